package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testEntries is a small catalogue written as the generator writes one.
func testEntries() []Entry {
	es := []Entry{
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "failed to run Kubelet: %w", Errs: []int{0}},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "failed to parse kubelet flag: %w", Errs: []int{0}},
		{Kind: KindFlag, Level: LevelError, Form: FormPrintf, Format: "unknown flag: --%s"},
		{Kind: KindLog, Level: LevelError, Form: FormStructured, Format: "command failed", Keys: []string{"err"}},
		{Kind: KindLog, Level: LevelError, Form: FormPrintf, Format: "Error: %v", Errs: []int{0}},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", Errs: []int{0}},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "checkpoint is corrupted"},
		{Kind: KindAdmit, Level: LevelError, Form: FormPrintf, Format: "Allocate failed due to %v, which is unexpected", Reason: "UnexpectedAdmissionError", Errs: []int{0}},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "no healthy devices present; cannot allocate unhealthy devices %s"},
		{Kind: KindLog, Level: LevelInfo, Form: FormPrintf, Format: "[cpumanager] allocated %d CPUs to %q"},
		{Kind: KindLog, Level: LevelError, Form: FormPrintf, Format: "unable to allocate devices"},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "unable to allocate devices"},
		{Kind: KindError, Level: LevelError, Form: FormPrintf, Format: "could not restore state from checkpoint: %v\nPlease drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet.", Errs: []int{0}},
		{Kind: KindLog, Level: LevelInfo, Form: FormStructured, Format: "Topology Admit Handler", Keys: []string{"podUID", "pod"}},
		{Kind: KindLog, Level: LevelInfo, Form: FormPrintf, Format: "%v: %v"},
		{Kind: KindLog, Level: LevelInfo, Form: FormStructured, Format: "Allocate"},
		{Kind: KindAdmit, Level: LevelError, Form: FormPrintf, Format: "Pod was rejected: %v", Reason: "?", Errs: []int{0}, Dynamic: true},
		{Kind: KindAdmit, Level: LevelError, Form: FormPrintf, Format: "Resources cannot be allocated with Topology locality", Reason: "TopologyAffinityError"},
	}
	for i := range es {
		es[i].Releases = Ranges{{First: 16, Last: 37}}
		es[i].ID = ID(&es[i])
	}
	return es
}

// summary is what a test compares of a hit.
type summary struct {
	Format   string
	Text     string // the hit's span of the input
	Captures []string
	Fields   []string
	Also     []string
	Chain    []string // the formats of the wrapped hits, outermost first
	Inner    []summary
}

func summarize(text string, hs []Hit) []summary {
	var out []summary
	for i := range hs {
		h := &hs[i]
		s := summary{Format: h.Entry.Format, Text: text[h.Start:h.End]}
		for _, c := range h.Captures {
			s.Captures = append(s.Captures, c.Verb+"="+c.Text)
			s.Inner = append(s.Inner, summarize(text, c.Hits)...)
		}
		for _, f := range h.Fields {
			s.Fields = append(s.Fields, f.Key+"="+f.Value)
			s.Inner = append(s.Inner, summarize(text, f.Hits)...)
		}
		for _, a := range h.Also {
			s.Also = append(s.Also, string(a.Kind)+" "+a.Format)
		}
		for _, w := range h.Chain()[1:] {
			s.Chain = append(s.Chain, w.Entry.Format)
		}
		out = append(out, s)
	}
	return out
}

func TestMatch(t *testing.T) {
	m := NewMatcher(testEntries())
	chain := []string{"failed to run Kubelet: %w", "failed to parse kubelet flag: %w", "unknown flag: --%s"}
	for _, tc := range []struct {
		name string
		text string
		want []summary
	}{
		{"a structured line and its wrapped errors",
			`E1202 03:15:00.123456    2741 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manger-policy"`,
			[]summary{{Format: "command failed",
				Text:   `"command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manger-policy"`,
				Fields: []string{"err=failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manger-policy"},
				Chain:  chain,
				Inner: []summary{{Format: "failed to run Kubelet: %w", Text: "failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manger-policy",
					Captures: []string{"%w=failed to parse kubelet flag: unknown flag: --cpu-manger-policy"}, Chain: chain[1:],
					Inner: []summary{{Format: "failed to parse kubelet flag: %w", Text: "failed to parse kubelet flag: unknown flag: --cpu-manger-policy",
						Captures: []string{"%w=unknown flag: --cpu-manger-policy"}, Chain: chain[2:],
						Inner: []summary{{Format: "unknown flag: --%s", Text: "unknown flag: --cpu-manger-policy", Captures: []string{"%s=cpu-manger-policy"}}}}}}}}}},
		{"the same error printed before logging starts",
			"Error: failed to run Kubelet: unknown flag: --foo",
			[]summary{{Format: "Error: %v", Text: "Error: failed to run Kubelet: unknown flag: --foo",
				Captures: []string{"%v=failed to run Kubelet: unknown flag: --foo"}, Chain: []string{chain[0], chain[2]},
				Inner: []summary{{Format: chain[0], Text: "failed to run Kubelet: unknown flag: --foo", Captures: []string{"%w=unknown flag: --foo"}, Chain: chain[2:],
					Inner: []summary{{Format: chain[2], Text: "unknown flag: --foo", Captures: []string{"%s=foo"}}}}}}}},
		{"a short text is matched only as a whole message",
			"we saw Error: something in the log",
			nil},
		{"typed captures, %q unquoted",
			`I1202 03:15:00.123456    2741 policy_static.go:301] [cpumanager] allocated 4 CPUs to "telco/dpdk-fwd"`,
			[]summary{{Format: "[cpumanager] allocated %d CPUs to %q", Text: `[cpumanager] allocated 4 CPUs to "telco/dpdk-fwd"`,
				Captures: []string{"%d=4", "%q=telco/dpdk-fwd"}}}},
		{"a JSON log line: the members are the fields",
			`{"ts":1764645300123.4,"caller":"app/server.go:300","msg":"command failed","v":0,"err":"failed to run Kubelet: unknown flag: --x"}`,
			[]summary{{Format: "command failed",
				Text:   `{"ts":1764645300123.4,"caller":"app/server.go:300","msg":"command failed","v":0,"err":"failed to run Kubelet: unknown flag: --x"}`,
				Fields: []string{"err=failed to run Kubelet: unknown flag: --x"}, Chain: []string{chain[0], chain[2]},
				Inner: []summary{{Format: chain[0], Text: "failed to run Kubelet: unknown flag: --x", Captures: []string{"%w=unknown flag: --x"}, Chain: chain[2:],
					Inner: []summary{{Format: chain[2], Text: "unknown flag: --x", Captures: []string{"%s=x"}}}}}}}},
		{"journald, a printf line, an escaped %q in the err value",
			`Dec 02 03:15:00 worker-1 kubelet[2741]: E1202 03:15:00.123456    2741 kubelet.go:1381] "command failed" err="could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet"`,
			[]summary{{Format: "command failed",
				Text:   `"command failed" err="could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet"`,
				Fields: []string{`err=could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet`},
				Chain:  []string{testEntries()[5].Format, "checkpoint is corrupted"},
				Inner: []summary{{Format: testEntries()[5].Format,
					Text:     `could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet`,
					Captures: []string{"%v=checkpoint is corrupted", "%q=/var/lib/kubelet/cpu_manager_state"}, Chain: []string{"checkpoint is corrupted"},
					Inner: []summary{{Format: "checkpoint is corrupted", Text: "checkpoint is corrupted"}}}}}}},
		{"a describe Message field: the inner error's free end is cut to its capture",
			"  Message:          Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected",
			[]summary{{Format: "Allocate failed due to %v, which is unexpected",
				Text:     "Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected",
				Captures: []string{"%v=no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu"},
				Chain:    []string{"no healthy devices present; cannot allocate unhealthy devices %s"},
				Inner: []summary{{Format: "no healthy devices present; cannot allocate unhealthy devices %s", Text: "no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu",
					Captures: []string{"%s=nvidia.com/gpu"}}}}}},
		{"a structured message is a whole message: Allocate is not the start of another text",
			"  Warning  UnexpectedAdmissionError  3m  kubelet  Allocate failed due to x, which is unexpected",
			[]summary{{Format: "Allocate failed due to %v, which is unexpected", Text: "Allocate failed due to x, which is unexpected", Captures: []string{"%v=x"}}}},
		{"a whole structured message in a quoted string",
			`the kubelet said "Allocate" twice`,
			[]summary{{Format: "Allocate", Text: "Allocate"}}},
		{"a rejected pod's status message wraps the admission handler's",
			"  Message:          Pod was rejected: Resources cannot be allocated with Topology locality",
			[]summary{{Format: "Pod was rejected: %v", Text: "Pod was rejected: Resources cannot be allocated with Topology locality",
				Captures: []string{"%v=Resources cannot be allocated with Topology locality"}, Chain: []string{"Resources cannot be allocated with Topology locality"},
				Inner: []summary{{Format: "Resources cannot be allocated with Topology locality", Text: "Resources cannot be allocated with Topology locality"}}}}},
		{"the same text from two entries: a log line prefers the log call",
			"E1202 03:15:00.123456    2741 manager.go:42] unable to allocate devices",
			[]summary{{Format: "unable to allocate devices", Text: "unable to allocate devices", Also: []string{"error unable to allocate devices"}}}},
		{"a multi-line format is matched on its line with the most constant text",
			"could not restore state from checkpoint: checkpoint is corrupted\nPlease drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet.",
			[]summary{
				{Format: "checkpoint is corrupted", Text: "checkpoint is corrupted"},
				{Format: testEntries()[12].Format, Text: "Please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet.",
					Captures: []string{"%q=/var/lib/kubelet/cpu_manager_state"}},
			}},
		{"structured keys of a klog line",
			`I1202 03:15:00.123456    2741 scope.go:77] "Topology Admit Handler" podUID="3f1c9a2e" pod="telco/dpdk-fwd" hints=map[cpu:[{01 true}]]`,
			[]summary{{Format: "Topology Admit Handler",
				Text:   `"Topology Admit Handler" podUID="3f1c9a2e" pod="telco/dpdk-fwd" hints=map[cpu:[{01 true}]]`,
				Fields: []string{"podUID=3f1c9a2e", "pod=telco/dpdk-fwd", "hints=map[cpu:[{01 true}]]"}}}},
		{"nothing of the catalogue", "I1202 03:15:00.123456    2741 kubelet.go:2455] \"SyncLoop ADD\" source=\"api\"", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Empty(t, cmp.Diff(tc.want, summarize(tc.text, m.Match(tc.text))))
		})
	}
}

func TestCaptureInt(t *testing.T) {
	m := NewMatcher(testEntries())
	hs := m.Match(`[cpumanager] allocated 12 CPUs to "p"`)
	require.Len(t, hs, 1)
	n, ok := hs[0].Captures[0].Int()
	assert.True(t, ok)
	assert.Equal(t, int64(12), n)
	_, ok = hs[0].Captures[1].Int()
	assert.False(t, ok)
	n, ok = Capture{Verb: "%x", Text: "ff"}.Int()
	assert.True(t, ok)
	assert.Equal(t, int64(255), n)
}

func TestMatchLinesAndOffsets(t *testing.T) {
	m := NewMatcher(testEntries())
	text := "noise\r\ncheckpoint is corrupted\n\nE1202 03:15:00.123456    2741 x.go:1] unable to allocate devices\n"
	hs := m.Match(text)
	require.Len(t, hs, 2)
	assert.Equal(t, "checkpoint is corrupted", text[hs[0].Start:hs[0].End])
	assert.Equal(t, "unable to allocate devices", text[hs[1].Start:hs[1].End])
	assert.Same(t, &hs[1], hs[1].Innermost())
	assert.Len(t, hs[1].Chain(), 1)
}

func TestUnmatchable(t *testing.T) {
	m := NewMatcher(testEntries())
	var got []string
	for _, e := range m.Unmatchable() {
		got = append(got, e.Format)
	}
	assert.Equal(t, []string{"%v: %v"}, got)
	assert.Empty(t, m.Match("a: b"))
}

func TestEmbeddedCatalogue(t *testing.T) {
	require.NoError(t, Err())
	h := Info()
	assert.Equal(t, "kubelet", h.Catalogue)
	require.Len(t, h.Releases, 22)
	assert.Equal(t, "1.16", h.Releases[0].Release)
	assert.Equal(t, "1.37", h.Releases[21].Release)
	for _, r := range h.Releases {
		require.NotEmpty(t, r.Modules, r.Release)
		assert.Equal(t, "k8s.io/kubernetes", r.Modules[0].Path)
		for _, mod := range r.Modules {
			assert.True(t, strings.HasPrefix(mod.Sum, "h1:"), "%s %s@%s", r.Release, mod.Path, mod.Version)
		}
	}
	es := Entries()
	assert.Equal(t, h.Entries, len(es))
	e, ok := Lookup(es[0].ID)
	require.True(t, ok)
	assert.Equal(t, es[0].Format, e.Format)
	// the texts the issue's families are about are in it
	for _, f := range []string{"failed to run Kubelet: %w", "failed to parse kubelet flag: %w", "unknown flag: --%s",
		"command failed", "Error: %v", "cannot discover NUMA topology: %w", "checkpoint is corrupted",
		"device plugin PreStartContainer rpc failed with err: %v", "Failed to prepare dynamic resources: %v",
		"Resources cannot be allocated with Topology locality", "Allocate failed due to %v, which is unexpected"} {
		found := false
		for _, e := range es {
			found = found || e.Format == f
		}
		assert.True(t, found, "the catalogue has %q", f)
	}
}

func ExampleMatch() {
	line := `E1202 03:15:00.123456    2741 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manger-policy"`
	for _, h := range Match(line) {
		for _, x := range h.Chain() {
			fmt.Printf("%s %q (%s)\n", x.Entry.Kind, x.Entry.Format, x.Entry.Releases)
		}
		inner := h.Innermost()
		fmt.Println("flag:", inner.Captures[0].Text)
	}
	// Output:
	// log "command failed" (1.23-1.37)
	// error "failed to run Kubelet: %w" (1.22-1.37)
	// error "failed to parse kubelet flag: %w" (1.24-1.37)
	// flag "unknown flag: --%s" (1.16-1.37)
	// flag: cpu-manger-policy
}
