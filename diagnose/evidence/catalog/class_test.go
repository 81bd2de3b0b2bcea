package catalog

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/statefile"
)

// TestClassesCoverage fails when a catalogue entry has no row in
// classes.jsonl, a row names an entry the catalogue does not have or
// repeats another format, or the table declares a code or fact no row
// uses. It prints the coverage per manager and per release.
func TestClassesCoverage(t *testing.T) {
	require.NoError(t, Err())
	require.NoError(t, ClassesErr())
	entries := Entries()
	rows := Classes()
	byID := map[string]Class{}
	for _, c := range rows {
		byID[c.ID] = c
	}
	var missing, unknown, stale []string
	for i := range entries {
		e := &entries[i]
		c, ok := byID[e.ID]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s %s %q", e.ID, strings.Join(e.Managers, ","), e.Format))
		case c.Format != e.Format:
			stale = append(stale, fmt.Sprintf("%s: the row's format %q, the catalogue's %q", e.ID, c.Format, e.Format))
		}
	}
	for _, c := range rows {
		if _, ok := Lookup(c.ID); !ok {
			unknown = append(unknown, c.ID+" "+c.Format)
		}
	}
	assert.Empty(t, missing, "catalogue entries without a row in classes.jsonl: classify them")
	assert.Empty(t, unknown, "rows of classes.jsonl that name no catalogue entry: remove them")
	assert.Empty(t, stale, "rows whose format is not the entry's")

	usedCodes, usedFacts := map[string]bool{}, map[string]bool{}
	for _, c := range rows {
		usedCodes[c.Code] = true
		usedFacts[c.Fact] = true
	}
	for _, c := range Codes() {
		assert.True(t, usedCodes[c.Name], "code %s is declared but no row uses it", c.Name)
	}
	for _, f := range Facts() {
		assert.True(t, usedFacts[f.Name], "fact %s is declared but no row uses it", f.Name)
	}

	t.Log("\n" + coverageTable(entries, byID))
}

// coverageTable counts entries per manager and per release by class.
func coverageTable(entries []Entry, byID map[string]Class) string {
	type count struct{ finding, fact, nd, reviewed int }
	add := func(m map[string]*count, key string, c Class) {
		n := m[key]
		if n == nil {
			n = &count{}
			m[key] = n
		}
		switch c.Kind {
		case ClassFinding:
			n.finding++
		case ClassFact:
			n.fact++
		default:
			n.nd++
		}
		if c.Reviewed != "" {
			n.reviewed++
		}
	}
	perManager, perRelease := map[string]*count{}, map[string]*count{}
	total := &count{}
	for i := range entries {
		e := &entries[i]
		c := byID[e.ID]
		for _, m := range e.Managers {
			add(perManager, m, c)
		}
		for _, r := range e.Releases.Minors() {
			add(perRelease, fmt.Sprintf("1.%02d", r), c)
		}
		add(map[string]*count{"": total}, "", c)
	}
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.AlignRight)
	line := func(name string, n *count) {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t\n", name, n.finding+n.fact+n.nd, n.finding, n.fact, n.nd, n.reviewed)
	}
	fmt.Fprintf(w, "manager\tentries\tfinding\tfact\tnot-diagnostic\treviewed\t\n")
	for _, k := range sortedKeys(perManager) {
		line(k, perManager[k])
	}
	line("all", total)
	fmt.Fprintf(w, "release\tentries\tfinding\tfact\tnot-diagnostic\treviewed\t\n")
	for _, k := range sortedKeys(perRelease) {
		line(strings.Replace(k, ".0", ".", 1), perRelease[k])
	}
	w.Flush()
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestClassesFollowTheKubelet checks that the table's severities follow
// the kubelet: a Fatal or Exit line is an error finding, an admission
// result is an error finding (a rejected pod), and an error-level entry is
// not-diagnostic only with a reason written for it.
func TestClassesFollowTheKubelet(t *testing.T) {
	require.NoError(t, ClassesErr())
	var quiet []string
	for _, e := range Entries() {
		c, ok := Classify(e.ID)
		require.True(t, ok, e.ID)
		switch {
		case e.Level == LevelFatal:
			assert.Equal(t, ClassFinding, c.Kind, "%s %q: the kubelet stops on it", e.ID, e.Format)
			assert.Equal(t, statefile.SeverityError, c.Severity, "%s %q: the kubelet stops on it", e.ID, e.Format)
		case e.Kind == KindAdmit:
			assert.Equal(t, ClassFinding, c.Kind, "%s %q: a pod is rejected", e.ID, e.Format)
			assert.Equal(t, statefile.SeverityError, c.Severity, "%s %q: a pod is rejected", e.ID, e.Format)
		case e.Level == LevelError && c.Kind == ClassNotDiagnostic:
			quiet = append(quiet, e.ID)
			assert.NotEmpty(t, c.Reviewed, "%s %q: an error-level entry is not-diagnostic only after reading its source", e.ID, e.Format)
			assert.False(t, strings.HasPrefix(c.Reason, "V("), "%s %q: say why a node engineer need not see this error", e.ID, e.Format)
			assert.GreaterOrEqual(t, len(c.Reason), 40, "%s %q: say why a node engineer need not see this error", e.ID, e.Format)
		}
		if c.Kind == ClassFinding && e.Level == LevelError && c.Severity == statefile.SeverityInfo {
			// an error is at least a warning unless the row says why it
			// is benign: there is nothing to do
			assert.Contains(t, strings.ToLower(c.RemedyTemplate), "nothing to", "%s %q: an info-level finding of an error says there is nothing to do", e.ID, e.Format)
		}
	}
	// The errors that are not diagnostic are programming-error checks of
	// the binary and sentinels that callers wrap; keep them few.
	assert.LessOrEqual(t, len(quiet), 55, "error-level entries classified not-diagnostic: %v", quiet)
}

// rePlaceholder finds a placeholder left in rendered text.
var rePlaceholder = regexp.MustCompile(`\{[A-Za-z0-9_.\-]+(\|[^{}]*)?\}`)

// TestClassTemplates checks each row's templates against its entry: Args
// name no more verbs than the format has, and every placeholder is the
// entry's own verb or key, or a name another entry of the catalogue
// provides (a wrapping error's file, say).
func TestClassTemplates(t *testing.T) {
	require.NoError(t, ClassesErr())
	provided := map[string]bool{}
	for _, c := range Classes() {
		for _, a := range c.Args {
			provided[a] = true
		}
	}
	for _, e := range Entries() {
		for _, k := range e.Keys {
			provided[k] = true
		}
	}
	for _, c := range Classes() {
		e, ok := Lookup(c.ID)
		require.True(t, ok, c.ID)
		verbs := len(Verbs(e.Format))
		assert.LessOrEqual(t, len(c.Args), verbs, "%s %q: args name more verbs than the format has", c.ID, e.Format)
		own := map[string]bool{}
		for _, a := range c.Args {
			if a != "" {
				own[a] = true
			}
		}
		for _, k := range e.Keys {
			own[k] = true
		}
		for _, tmpl := range []string{c.RemedyTemplate, c.Means} {
			for _, p := range placeholders(tmpl) {
				if n, ok := position(p.name); ok {
					assert.Less(t, n, verbs, "%s %q: {%s} is past the format's verbs", c.ID, e.Format, p.name)
					continue
				}
				assert.True(t, own[p.name] || provided[p.name], "%s %q: {%s} is neither a verb, a key nor a name any entry provides", c.ID, e.Format, p.name)
			}
		}
	}
}

// TestClassRemedyOnCatalogue renders every finding's remedy and means over
// its own entry printed with sample arguments, as the kubelet prints it:
// no placeholder is left, and a named verb's value shows in the text.
func TestClassRemedyOnCatalogue(t *testing.T) {
	require.NoError(t, ClassesErr())
	found, findings := 0, 0
	for _, c := range Classes() {
		if c.Kind != ClassFinding {
			continue
		}
		findings++
		e, _ := Lookup(c.ID)
		text := render(e)
		var hit *Hit
		hs := Match(text)
		for i := range hs {
			for _, x := range hs[i].Chain() {
				if x.Entry == e || slices.Contains(x.Also, e) {
					hit = x
				}
			}
		}
		remedy := c.Remedy(Hit{})
		means := c.Explain(Hit{})
		assert.Empty(t, rePlaceholder.FindAllString(remedy+means, -1), "%s: without evidence", c.ID)
		if hit == nil {
			continue
		}
		found++
		remedy, means = c.Remedy(*hit), c.Explain(*hit)
		assert.Empty(t, rePlaceholder.FindAllString(remedy+means, -1), "%s: %q", c.ID, text)
		for i, a := range c.Args {
			if a == "" || !strings.Contains(c.RemedyTemplate+c.Means, "{"+a+"}") && !strings.Contains(c.RemedyTemplate+c.Means, "{"+a+"|") {
				continue
			}
			for _, cp := range hit.Captures {
				if cp.Index == i && cp.Text != "" && len(cp.Text) < maxValue {
					assert.Contains(t, remedy+means, clean(cp.Text), "%s: {%s} from %q", c.ID, a, text)
				}
			}
		}
	}
	t.Logf("%d of %d findings rendered over their own sample text", found, findings)
	assert.Greater(t, found, findings*9/10, "most findings' entries should match their own sample text")
}

// remedyEntries are entries for the renderer's table tests.
func remedyEntries() []Entry {
	es := []Entry{
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", Errs: []int{0}},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "checkpoint is corrupted"},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "requested number of devices unavailable for %s. Requested: %d, Available: %d"},
		{Kind: KindLog, Level: LevelError, Form: FormStructured, Format: "ListAndWatch ended unexpectedly for device plugin", Keys: []string{"err", "resource"}},
		{Kind: KindFlag, Level: LevelError, Form: FormPrintf, Format: "unknown flag: --%s"},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "failed to parse kubelet flag: %w", Errs: []int{0}},
	}
	for i := range es {
		es[i].Releases = Ranges{{First: 16, Last: 37}}
		es[i].ID = ID(&es[i])
	}
	return es
}

func TestClassRemedy(t *testing.T) {
	require.NoError(t, ClassesErr())
	es := remedyEntries()
	m := NewMatcher(es)
	hitOf := func(text string) Hit {
		hs := m.Match(text)
		require.NotEmpty(t, hs, text)
		return hs[0]
	}
	restore := `could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet`
	for _, tc := range []struct {
		name  string
		class Class
		text  string // matched; "" for no evidence
		want  string
	}{
		{"capture by name", Class{ID: es[2].ID, Args: []string{"resource", "requested", "available"}, RemedyTemplate: "free {requested} {resource}, {available} left"},
			"requested number of devices unavailable for nvidia.com/gpu. Requested: 2, Available: 1", "free 2 nvidia.com/gpu, 1 left"},
		{"capture by position", Class{ID: es[2].ID, RemedyTemplate: "{0}: {2} of {1}"},
			"requested number of devices unavailable for nvidia.com/gpu. Requested: 2, Available: 1", "nvidia.com/gpu: 1 of 2"},
		{"field by key", Class{ID: es[3].ID, RemedyTemplate: "restart the {resource} plugin ({err})"},
			`E0102 03:04:05.000000    1 client.go:1] "ListAndWatch ended unexpectedly for device plugin" err="rpc error: code = Unavailable desc = closing" resource="example.com/fpga"`,
			"restart the example.com/fpga plugin (rpc error: code = Unavailable desc = closing)"},
		{"flag name", Class{ID: es[4].ID, Args: []string{"flag"}, RemedyTemplate: "remove --{flag} from the unit"},
			"unknown flag: --cpu-manager", "remove --cpu-manager from the unit"},
		{"from the wrapping error", Class{ID: es[1].ID, RemedyTemplate: "move {file} away"},
			restore, "move /var/lib/kubelet/cpu_manager_state away"},
		{"own value first", Class{ID: es[0].ID, Args: []string{"err", "file"}, RemedyTemplate: "{file}: {err}"},
			restore, "/var/lib/kubelet/cpu_manager_state: checkpoint is corrupted"},
		{"inline words", Class{ID: es[1].ID, RemedyTemplate: "move {file|the CPU manager's file} away"},
			"checkpoint is corrupted", "move the CPU manager's file away"},
		{"the table's words", Class{ID: es[1].ID, RemedyTemplate: "move {file} away"},
			"checkpoint is corrupted", "move the state file named in the log away"},
		{"no words at all", Class{ID: es[1].ID, RemedyTemplate: "set {cpuManagerPolicy}"},
			"", "set the cpu manager policy"},
		{"empty words close the gap", Class{ID: es[2].ID, Args: []string{"resource"}, RemedyTemplate: "devices {resource|} are short, check {x|}."},
			"", "devices are short, check."},
		{"literal braces", Class{ID: es[1].ID, RemedyTemplate: "hints={} and {not closed and {|x}"},
			"", "hints={} and {not closed and {|x}"},
		{"value on one line and cut", Class{ID: es[4].ID, Args: []string{"flag"}, RemedyTemplate: "[{flag}]"},
			"unknown flag: --" + strings.Repeat("x", 300), "[" + strings.Repeat("x", maxValue) + "…]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Hit
			if tc.text != "" {
				h = hitOf(tc.text)
			}
			assert.Equal(t, tc.want, tc.class.Remedy(h))
		})
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\nb\tc", "a b c"},
		{"  lead and trail  ", "lead and trail"},
		{"bad \xff byte", "bad byte"},
		{strings.Repeat("é", 150), strings.Repeat("é", 100) + "…"},
	} {
		assert.Equal(t, tc.want, clean(tc.in), "%q", tc.in)
	}
}

// TestResolve checks which class decides a chain: the innermost specific
// finding, with the chain's highest severity.
func TestResolve(t *testing.T) {
	require.NoError(t, ClassesErr())
	text := `E0102 03:04:05.000000    1 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manager"`
	hs := Match(text)
	require.Len(t, hs, 1)
	c, at, ok := Resolve(&hs[0])
	require.True(t, ok)
	assert.Equal(t, "KubeletFlagInvalid", c.Code)
	assert.Equal(t, "unknown flag: --%s", at.Entry.Format)
	assert.Equal(t, statefile.SeverityError, c.Severity)
	assert.Contains(t, c.Remedy(hs[0]), "--cpu-manager")

	text = `E0102 03:04:05.000000    1 kubelet.go:1] "Failed to start ContainerManager" err="start cpu manager error: could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet"`
	hs = Match(text)
	require.Len(t, hs, 1)
	c, at, ok = Resolve(&hs[0])
	require.True(t, ok)
	assert.Equal(t, "CorruptCheckpoint", c.Code)
	assert.Equal(t, "checkpoint is corrupted", at.Entry.Format)
	assert.Contains(t, c.Remedy(hs[0]), "/var/lib/kubelet/cpu_manager_state")

	_, _, ok = Resolve(nil)
	assert.False(t, ok)
}

func TestDecodeClassesRefuses(t *testing.T) {
	header := `{"classes":"kubelet","schema":1,"rows":1}` + "\n"
	code := `{"code":"KubeletError","means":"m"}` + "\n"
	for _, tc := range []struct{ name, table, want string }{
		{"empty", "", "empty"},
		{"schema", `{"classes":"kubelet","schema":9,"rows":0}`, "schema 9"},
		{"unknown field", header + `{"id":"a","class":"fact","fact":"x","format":"","extra":1}`, "unknown field"},
		{"unknown code", header + `{"id":"a","class":"finding","code":"Nope","severity":"error","cause":"c","remedy":"r","means":"m","format":"f"}`, `unknown code "Nope"`},
		{"unknown fact", header + `{"id":"a","class":"fact","fact":"x","format":"f"}`, `unknown fact "x"`},
		{"bad severity", header + code + `{"id":"a","class":"finding","code":"KubeletError","severity":"fatal","cause":"c","remedy":"r","means":"m","format":"f"}`, "severity"},
		{"no reason", header + `{"id":"a","class":"not-diagnostic","format":"f"}`, "needs a reason"},
		{"no words", header + code + `{"id":"a","class":"finding","code":"KubeletError","severity":"error","cause":"c","remedy":"see {thing}","means":"m","format":"f"}`, "{thing} has no words"},
		{"order", `{"classes":"kubelet","schema":1,"rows":2}` + "\n" + `{"id":"b","class":"not-diagnostic","reason":"r","format":"f"}` + "\n" + `{"id":"a","class":"not-diagnostic","reason":"r","format":"f"}`, "out of order"},
		{"count", header, "counts 1 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeClasses(strings.NewReader(tc.table))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestClassesAccessors(t *testing.T) {
	require.NoError(t, ClassesErr())
	cs := Classes()
	require.NotEmpty(t, cs)
	cs[0].Code = "changed"
	again := Classes()
	assert.NotEqual(t, "changed", again[0].Code, "Classes returns a copy")
	c, ok := Classify(again[0].ID)
	require.True(t, ok)
	assert.Empty(t, cmp.Diff(again[0], c))
	_, ok = Classify("no-such-id")
	assert.False(t, ok)
	for _, p := range Placeholders() {
		assert.NotEmpty(t, p.Missing, p.Name)
	}
	assert.True(t, sort.SliceIsSorted(Codes(), func(i, j int) bool { return Codes()[i].Name < Codes()[j].Name }))
}
