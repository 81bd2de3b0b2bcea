package evidence

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/journalgen"
)

var (
	journalOut  = flag.String("journal", "", "write a generated `journalctl -u kubelet` log to this file (TestWriteJournal)")
	journalSize = flag.Int64("journal-size", 1<<30, "size of the log TestWriteJournal writes")
)

// TestLogStream checks what a streamed log says about itself: its size
// limit, gzip, an unbounded read, a log with no kubelet line.
func TestLogStream(t *testing.T) {
	var gen bytes.Buffer
	admitted, rejected, err := journalgen.Write(&gen, 2<<20, 7)
	require.NoError(t, err)
	require.Positive(t, rejected)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(gen.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	tests := []struct {
		name      string
		data      []byte
		limit     int64
		status    string
		note      string // a substring of the note
		warning   string // a substring of one warning
		errSubstr []string
	}{
		{name: "text", data: gen.Bytes(), status: "read", note: "kept for the findings"},
		{name: "gzip", data: gz.Bytes(), status: "read", warning: "decompressed gzip data"},
		{name: "unbounded", data: gen.Bytes(), limit: -1, status: "read", warning: "without a size limit"},
		{name: "over the limit", data: gen.Bytes(), limit: 1 << 20, status: "refused",
			errSubstr: []string{"over the limit.log: the log is larger than 1 MiB", "--log-limit"}},
		{name: "gzip over the limit", data: gz.Bytes(), limit: 1 << 20, status: "refused",
			errSubstr: []string{"inflates to more than 1 MiB"}},
		{name: "no kubelet line", data: bytes.Repeat([]byte("hello world\n"), 1000), status: "refused",
			errSubstr: []string{"no kubelet log lines found in 1000 lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Set{StreamFrom: -1}
			it := e.AddLogStream(tt.name+".log", bytes.NewReader(tt.data), tt.limit)
			assert.Equal(t, tt.status, it.Status)
			assert.Contains(t, it.Note, tt.note)
			if tt.warning != "" {
				assert.Contains(t, strings.Join(it.Warnings, "\n"), tt.warning)
			}
			for _, s := range tt.errSubstr {
				assert.Contains(t, it.Error, s)
			}
			if tt.status != "read" {
				assert.Empty(t, e.Logs)
				return
			}
			require.Len(t, e.Logs, 1)
			l := e.Logs[0]
			assert.Positive(t, l.Dropped)
			guaranteed, denied := 0, 0
			for _, a := range l.Attempts {
				if strings.HasPrefix(a.Pod, "numa/") {
					guaranteed++
				}
				if a.Reason == "TopologyAffinityError" {
					denied++
				}
			}
			assert.Equal(t, admitted, guaranteed)
			assert.Equal(t, rejected, denied)
		})
	}
}

// TestLogStreamKeepsBounded feeds more needed records than the stream
// keeps and wants the rest counted in a warning.
func TestLogStreamKeepsBounded(t *testing.T) {
	var b bytes.Buffer
	for i := range 3000 {
		b.WriteString(`I1201 10:00:00.000000    2143 predicate.go:152] "Pod admission denied" podUID="u" pod="ns/p` + strings.Repeat("x", i%7) + `" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"` + "\n")
	}
	l, err := parseLogWith("many.log", &b, logOptions{limit: input.MaxLog, stream: true, maxKept: 1000})
	require.NoError(t, err)
	assert.Len(t, l.Records, 1000)
	assert.Contains(t, strings.Join(l.Warnings, "\n"), "2000 more records the findings read were not kept (first at line 1001)")
}

// TestWriteJournal writes a generated log for a run of the CLI:
// go test ./diagnose -run TestWriteJournal -journal /tmp/kubelet.log [-journal-size N]
func TestWriteJournal(t *testing.T) {
	if *journalOut == "" {
		t.Skip("no -journal file given")
	}
	f, err := os.Create(*journalOut)
	require.NoError(t, err)
	admitted, rejected, err := journalgen.Write(f, *journalSize, 1)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	t.Logf("%s: %d admissions, %d rejected", *journalOut, admitted, rejected)
	assert.Positive(t, rejected)
}

func TestCutQuoted(t *testing.T) {
	tests := []string{
		`"plain" rest`, `"a\"b" rest`, `"a\\" rest`, `"a\\\"b" c`, `"\"\"x" y`, `"tab\tnl\n" z`,
		`"unicode \u00e9 \x41 \101" r`, `"bad \q" r`, `"open`, `"ends with \"`, `""`, `"\\\\"`,
		"\"nl inside\nx\" r", "\"invalid \xff utf8\" r", `"patch={\"status\":{\"reason\":\"TopologyAffinityError\"}}" pod="a/b"`,
	}
	for _, s := range tests {
		t.Run(s, func(t *testing.T) {
			v, rest, ok := cutQuoted(s)
			wv, wrest, wok := cutQuotedSlow(s)
			assert.Equal(t, []any{wv, wrest, wok}, []any{v, rest, ok})
		})
	}
}

// FuzzCutQuoted wants cutQuoted to give what the byte loop and
// strconv.Unquote give.
func FuzzCutQuoted(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			v, rest, ok := cutQuoted(`"` + s)
			wv, wrest, wok := cutQuotedSlow(`"` + s)
			if v != wv || rest != wrest || ok != wok {
				t.Fatalf("cutQuoted(%q) = %q, %q, %v; want %q, %q, %v", `"`+s, v, rest, ok, wv, wrest, wok)
			}
		})
	})
}

// TestStreamShortcuts checks what the shortcuts of the streaming reader
// rest on: every admission reason ends with "Error" (mayHoldReason), and
// parseJSONRecord refuses what jsonMayStart refuses.
func TestStreamShortcuts(t *testing.T) {
	for r := range admissionReasons {
		assert.True(t, strings.HasSuffix(r, "Error"), r)
	}
	for _, s := range []string{`{\"status\":1}`, `{1:2}`, `{ x}`, `{]`, `{{"a":1}}`, `{'a':1}`} {
		assert.False(t, jsonMayStart(s), s)
		_, err := parseJSONRecord(s)
		assert.Error(t, err, s)
	}
	for _, s := range []string{`{"ts":1,"msg":"x"}`, `{ "msg":"x"}`, "{\n}", `{}`, `{`} {
		assert.True(t, jsonMayStart(s), s)
	}
}

// TestLiteralSet checks the one-pass search against strings.Contains.
func TestLiteralSet(t *testing.T) {
	s := newLiteralSet([]string{"SMT Alignment Error", "rpc error: code = ", "ab"}, "invalid state, please drain")
	tests := []struct {
		text string
		want bool
	}{
		{"", false}, {"a", false}, {"ab", true}, {"xxab", true}, {"xa b", false},
		{"foo SMT Alignment Erro", false}, {"foo SMT Alignment Error: bar", true},
		{"err=rpc error: code = Unknown", true}, {"rpc error: code =", false},
		{"INVALID STATE, Please Drain node", true}, {"invalid state, please", false},
		{"non-ASCII é with no text", true}, // the case-insensitive text may hide behind a rune
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, literalsIn(s, tt.text), tt.text)
		assert.Equal(t, tt.want, literalsIn(s, []byte(tt.text)), tt.text)
	}
}

// TestSignalLiteralsInStep reads the source of signals and record (and
// the helpers signals hands a record to) and wants every message they
// compare and every text they look for in the lists the streaming filter
// lets records go by: a check added there and not here would make a
// streamed log lose a finding.
func TestSignalLiteralsInStep(t *testing.T) {
	fset := token.NewFileSet()
	var decls []ast.Decl
	for _, name := range []string{"logevents.go", "logsignals.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		decls = append(decls, f.Decls...)
	}
	read := map[string]bool{"signals": true, "messageSignals": true, "stateSignals": true, "admissionSignals": true, "record": true}
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	isIdent := func(e ast.Expr, name string) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == name
	}
	isMessage := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && isIdent(sel.X, "r") && sel.Sel.Name == "Message"
	}
	texts := map[string]bool{}
	for _, l := range append(append([]string{}, admissionLiterals...), signalLiterals...) {
		texts[l] = true
	}
	special := map[string]bool{"Event occurred": true, "Patch status for pod": true} // need reads them itself
	var messages, literals []string
	conds := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if len(x.Args) >= 2 && isIdent(x.Args[0], "t") {
					fn := ""
					switch f := x.Fun.(type) {
					case *ast.Ident:
						fn = f.Name
					case *ast.SelectorExpr:
						fn = f.Sel.Name
					}
					if s, ok := lit(x.Args[1]); ok && (fn == "findIf" || fn == "Contains") {
						literals = append(literals, s)
					}
				}
			case *ast.BinaryExpr:
				if s, ok := lit(x.Y); ok && x.Op == token.EQL && isMessage(x.X) {
					messages = append(messages, s)
				}
			}
			return true
		})
	}
	found := map[string]bool{}
	for _, d := range decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !read[fd.Name.Name] {
			continue
		}
		found[fd.Name.Name] = true
		for _, st := range fd.Body.List {
			switch s := st.(type) {
			case *ast.SwitchStmt:
				if s.Tag == nil || !isMessage(s.Tag) && !isIdent(s.Tag, "msg") {
					continue
				}
				for _, c := range s.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if m, ok := lit(e); ok {
							messages = append(messages, m)
						}
					}
				}
			case *ast.IfStmt:
				if s.Init != nil {
					conds(s.Init)
				}
				conds(s.Cond)
			}
		}
	}
	assert.Equal(t, read, found)
	assert.Greater(t, len(messages), 20)
	assert.Greater(t, len(literals), 15)
	for _, m := range messages {
		assert.True(t, interpretMessages[m] || signalMessages[m] || special[m], "message %q is not in interpretMessages or signalMessages", m)
	}
	for _, l := range literals {
		assert.True(t, texts[l], "text %q is not in signalLiterals", l)
	}
}

// FuzzLiteralSet wants the one-pass search of the streaming filter to find
// every text strings.Contains finds (and, in ASCII, nothing else).
func FuzzLiteralSet(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		fuzzbudget.Run(t, func() {
			want := strings.Contains(strings.ToLower(text), signalFoldLiteral)
			for _, l := range admissionLiterals {
				want = want || strings.Contains(text, l)
			}
			for _, l := range signalLiterals {
				want = want || strings.Contains(text, l)
			}
			got := literalsIn(neededTexts, text)
			if want && !got || got && !want && isASCII(text) {
				t.Fatalf("literalsIn(%q) = %v, want %v", text, got, want)
			}
		})
	})
}

// TestLogLongLines wants a line longer than the reader keeps skipped and
// counted, the lines around it read, in both the in-memory and the
// streaming reader, and the last line read without its newline.
func TestLogLongLines(t *testing.T) {
	good := `I1201 10:00:00.000000    2143 predicate.go:152] "Pod admission denied" podUID="u" pod="ns/p" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"`
	huge := `I1201 10:00:00.000000    2143 kubelet.go:1] "noise" v="` + strings.Repeat("x", maxLogLine+10) + `"`
	tests := []struct {
		name    string
		text    string
		records int
		lines   int
		warning string
	}{
		{name: "huge line between", text: good + "\n" + huge + "\n" + good + "\n", records: 2, lines: 3, warning: "1 lines longer than 4 MiB were skipped (first at line 2)"},
		{name: "huge last line", text: good + "\n" + huge, records: 1, lines: 2, warning: "first at line 2"},
		{name: "no final newline", text: good + "\n" + good, records: 2, lines: 2},
		{name: "CRLF", text: good + "\r\n" + good + "\r\n", records: 2, lines: 2},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				l, err := parseLogWith("long.log", strings.NewReader(tt.text), logOptions{limit: input.MaxLog, stream: stream})
				require.NoError(t, err)
				assert.Len(t, l.Records, tt.records)
				assert.Equal(t, tt.lines, l.Lines)
				for _, r := range l.Records {
					assert.Equal(t, "Pod admission denied", r.Message)
					assert.Equal(t, "Resources cannot be allocated with Topology locality", r.Values[len(r.Values)-1].Text)
				}
				if tt.warning != "" {
					assert.Contains(t, strings.Join(l.Warnings, "\n"), tt.warning)
				}
			})
		}
	}
}

// FuzzLogStreamMatches reads any input both ways, every record kept and
// streamed, and wants the same admissions, signals, release and warnings:
// the streaming filter drops only records interpret does not read.
func FuzzLogStreamMatches(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			all, err := parseLogWith("f.log", bytes.NewReader(data), logOptions{limit: 1 << 20})
			streamed, serr := parseLogWith("f.log", bytes.NewReader(data), logOptions{limit: 1 << 20, stream: true})
			if err != nil {
				if serr == nil && len(all.Records) == 0 {
					return // both found nothing; only the stream counts dropped records as read
				}
				if serr == nil {
					t.Fatalf("in memory: %v; streamed: no error", err)
				}
				return
			}
			if serr != nil {
				t.Fatalf("streamed: %v; in memory: no error", serr)
			}
			a, s := all.interpret(), streamed.interpret()
			if d := cmp.Diff(a.Attempts, s.Attempts); d != "" {
				t.Fatalf("attempts differ: %s", d)
			}
			if d := cmp.Diff(a.Signals, s.Signals, cmp.AllowUnexported(Signal{})); d != "" {
				t.Fatalf("signals differ: %s", d)
			}
			if d := cmp.Diff(all.Release, streamed.Release); d != "" {
				t.Fatalf("release differs: %s", d)
			}
			if d := cmp.Diff(all.Warnings, streamed.Warnings); d != "" {
				t.Fatalf("warnings differ: %s", d)
			}
			if len(all.Records) != len(streamed.Records)+streamed.Dropped {
				t.Fatalf("%d records in memory, %d kept and %d dropped streamed", len(all.Records), len(streamed.Records), streamed.Dropped)
			}
		})
	})
}
