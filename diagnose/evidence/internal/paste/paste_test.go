package paste

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		warnings       []string
		commands       []string
	}{
		{name: "clean text is unchanged", in: "I1129 10:00:00.000000 1 a.go:1] x\nI1129 10:00:01.000000 1 a.go:2] y\n", want: "I1129 10:00:00.000000 1 a.go:1] x\nI1129 10:00:01.000000 1 a.go:2] y\n"},
		{name: "fences keep the line count", in: "```yaml\nkind: Pod\n```\n", want: "\nkind: Pod\n\n",
			warnings: []string{"line 1: removed a Markdown code fence (2 lines)"}},
		{name: "tilde fence", in: "~~~\n{}\n~~~", want: "\n{}\n", warnings: []string{"line 1: removed a Markdown code fence (2 lines)"}},
		{name: "quote prefixes", in: "> a: 1\n>> b: 2\n>\n> c", want: "a: 1\nb: 2\n\nc",
			warnings: []string{"line 1: removed a Markdown quote prefix '> ' (4 lines)"}},
		{name: "klog continuation is not a quote", in: "I1129 x] \"m\" v=<\n\tline\n >\n", want: "I1129 x] \"m\" v=<\n\tline\n >\n"},
		{name: "root prompt with cat and jq", in: "[root@wrk-numa-07 ~]# cat /var/lib/kubelet/cpu_manager_state | jq .\n{\"a\":1}\n", want: "\n{\"a\":1}\n",
			warnings: []string{"line 1: removed shell prompt and command"}, commands: []string{"cat /var/lib/kubelet/cpu_manager_state | jq ."}},
		{name: "user prompt", in: "core@wrk:~$ lscpu\nCPU(s): 4\n", want: "\nCPU(s): 4\n",
			warnings: []string{"line 1: removed shell prompt and command"}, commands: []string{"lscpu"}},
		{name: "dollar prompt with sudo", in: "$ sudo numactl -H\navailable: 2 nodes (0-1)\n", want: "\navailable: 2 nodes (0-1)\n",
			warnings: []string{"line 1: removed shell prompt and command"}, commands: []string{"sudo numactl -H"}},
		{name: "oc debug shell", in: "sh-5.1# journalctl -u kubelet\nx\n", want: "\nx\n",
			warnings: []string{"line 1: removed shell prompt and command"}, commands: []string{"journalctl -u kubelet"}},
		{name: "powershell", in: "PS C:\\> kubectl get pods\nNAME\n", want: "\nNAME\n",
			warnings: []string{"line 1: removed shell prompt and command"}, commands: []string{"kubectl get pods"}},
		{name: "a YAML comment that is not a command stays", in: "# my config\ncpuManagerPolicy: static\n", want: "# my config\ncpuManagerPolicy: static\n"},
		{name: "a dollar line that is not a command stays", in: "$ echo hi\n", want: "$ echo hi\n"},
		{name: "glued prompt at the end", in: "{\"checksum\":1}[root@wrk-numa-07 ~]# ", want: "{\"checksum\":1}",
			warnings: []string{"line 1: removed a shell prompt glued to the end of the output"}},
		{name: "bare prompt line", in: "x\n[root@h ~]#\n", want: "x\n\n", warnings: []string{"line 2: removed an empty shell prompt"}},
		{name: "html entities", in: "a &gt; b &amp;&amp; &quot;c&quot; &#39;d&#x27; &bogus; &#0;", want: "a > b && \"c\" 'd' &bogus; &#0;",
			warnings: []string{"line 1: decoded HTML entities"}},
		{name: "smart quotes, nbsp and dashes", in: "msg=“x” ‘y’\u00a0—cpu-manager-policy=static a — b", want: "msg=\"x\" 'y' --cpu-manager-policy=static a — b",
			warnings: []string{"line 1: replaced smart quotes with ASCII quotes", "line 1: replaced non-breaking spaces", "line 1: replaced a dash with '--' in front of a flag name"}},
		{name: "CRLF", in: "a\r\nb\r\n", want: "a\nb\n", warnings: []string{"line 1: converted CRLF line endings to LF (2 lines)"}},
		{name: "ANSI colours", in: "\x1b[1;31mE1129\x1b[0m x\x1b]0;title\x07y\x1b", want: "E1129 xy",
			warnings: []string{"line 1: removed ANSI escape codes"}},
		{name: "chat bullets on every line", in: "• I1129 a\n• I1129 b\n", want: "I1129 a\nI1129 b\n",
			warnings: []string{"line 1: removed a chat bullet '•' (2 lines)"}},
		{name: "a YAML list keeps its dashes", in: "- a\n- b\n", want: "- a\n- b\n"},
		{name: "quoted fenced prompt", in: "> ```\n> $ cat cpu_manager_state\n> {}\n> ```", want: "\n\n{}\n",
			warnings: []string{"line 1: removed a Markdown quote prefix '> ' (4 lines)", "line 1: removed a Markdown code fence (2 lines)", "line 2: removed shell prompt and command"},
			commands: []string{"cat cpu_manager_state"}},
		{name: "byte order mark", in: "\ufeffkind: Pod", want: "kind: Pod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			orig := bytes.Clone(in)
			r := Normalize(in)
			assert.Equal(t, tc.want, string(r.Text), "text")
			assert.Empty(t, cmp.Diff(tc.warnings, r.WarningStrings()), "warnings")
			assert.Empty(t, cmp.Diff(tc.commands, r.Commands), "commands")
			assert.Equal(t, len(tc.warnings) > 0, r.Changed(), "changed")
			assert.Equal(t, orig, in, "the input must not be modified")
			inPlace := NormalizeInPlace(bytes.Clone(in))
			assert.Equal(t, string(r.Text), string(inPlace.Text), "text normalised in place")
			assert.Equal(t, strings.Count(strings.TrimPrefix(tc.in, "\ufeff"), "\n"), strings.Count(string(r.Text), "\n"), "line count")
		})
	}
}

func TestNormalizeBoundsCommands(t *testing.T) {
	in := strings.Repeat("$ cat "+strings.Repeat("x", 1000)+"\n", 100)
	r := Normalize([]byte(in))
	assert.Len(t, r.Commands, maxCommands, "commands kept")
	assert.LessOrEqual(t, len(r.Commands[0]), maxCommandLen, "length of a kept command")
	assert.Equal(t, []string{"line 1: removed shell prompt and command (100 lines)"}, r.WarningStrings(), "warnings")
}

func BenchmarkNormalize(b *testing.B) {
	line := "> Nov 29 10:00:00 host kubelet[1]: I1129 10:00:00.000000 1 scope.go:1] “x” &gt; \x1b[0m\r\n"
	in := []byte(strings.Repeat(line, 100000))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Normalize(in)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"```\n$ cat x\n{}\n```", "> a\r\n&gt;&#39;\x1b[1m", "• a\n• b", "[root@h ~]# ", "—x “y”\u00a0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			orig := bytes.Clone(data)
			r := Normalize(data)
			if len(r.Text) > len(data) {
				t.Fatalf("output %d bytes longer than input %d", len(r.Text), len(data))
			}
			if !bytes.Equal(orig, data) {
				t.Fatal("input modified")
			}
			if got := NormalizeInPlace(bytes.Clone(data)); !bytes.Equal(got.Text, r.Text) {
				t.Fatalf("in place %q, copied %q", got.Text, r.Text)
			}
			in := bytes.TrimPrefix(data, []byte("\ufeff"))
			if bytes.Count(in, []byte("\n")) != bytes.Count(r.Text, []byte("\n")) {
				t.Fatalf("line count changed: %q -> %q", data, r.Text)
			}
			if len(r.Commands) > maxCommands {
				t.Fatal("too many commands")
			}
		})
	})
}
