package diagnose

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// encodeCPU writes a cpu_manager_state with valid checksums.
func encodeCPU(t *testing.T, format statefile.Format, def cpuset.CPUSet, entries map[string]map[string]cpuset.CPUSet) []byte {
	t.Helper()
	data, err := statefile.Encode(&statefile.File{Name: "cpu_manager_state", Kind: statefile.KindCPU,
		CPU: &statefile.CPUState{PolicyName: "static", DefaultCPUSet: def, Entries: entries}}, format)
	require.NoError(t, err)
	return data
}

func runState(t *testing.T, name string, data []byte) Report {
	t.Helper()
	ev := &evidence.Set{}
	require.NoError(t, ev.AddStateFile(name, data))
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	return rep
}

func findingsWithCode(r Report, code string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func TestStateProblemFindings(t *testing.T) {
	twoOwners := map[string]map[string]cpuset.CPUSet{
		"pod-a": {"web": cpuset.New(3, 8)},
		"pod-b": {"batch": cpuset.New(3, 9)},
	}
	many := map[string]map[string]cpuset.CPUSet{}
	for i := range 40 {
		many[fmt.Sprintf("pod-%02d", i)] = map[string]cpuset.CPUSet{"c": cpuset.New(3)}
	}
	corrupt := encodeCPU(t, statefile.FormatV2, cpuset.New(0, 1, 2), twoOwners)
	corrupt = []byte(strings.Replace(string(corrupt), `"checksum":`, `"checksum":1`, 1))
	tests := []struct {
		name     string
		data     []byte
		want     []Ref // evidence of the one StateFileProblem finding (nil: none)
		severity string
		remedy   string
		explains string
	}{
		{
			name: "two owners v4",
			data: encodeCPU(t, statefile.FormatV4, cpuset.New(0, 1, 2), twoOwners),
			want: []Ref{
				{File: "cpu_manager_state", Path: "/data/entries/pod-a/web", Quote: `cpu_manager_state: CPU 3 is assigned to both container "web" of pod "pod-a" and container "batch" of pod "pod-b"`},
				{File: "cpu_manager_state", Path: "/data/entries/pod-b/batch", Quote: `container "batch" of pod "pod-b"`},
			},
			severity: "error",
			remedy:   "Drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file).",
			explains: "restore check passes",
		},
		{
			name: "two owners v2",
			data: encodeCPU(t, statefile.FormatV2, cpuset.New(0, 1, 2), twoOwners),
			want: []Ref{
				{File: "cpu_manager_state", Path: "/entries/pod-a/web", Quote: `cpu_manager_state: CPU 3 is assigned to both container "web" of pod "pod-a" and container "batch" of pod "pod-b"`},
				{File: "cpu_manager_state", Path: "/entries/pod-b/batch", Quote: `container "batch" of pod "pod-b"`},
			},
			severity: "error",
			remedy:   "Drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file).",
			explains: "restore check passes",
		},
		{
			name: "a pointer token with a slash is escaped",
			data: encodeCPU(t, statefile.FormatV2, cpuset.New(0), map[string]map[string]cpuset.CPUSet{
				"a/b": {"x~y": cpuset.New(1)}, "c": {"d": cpuset.New(1)},
			}),
			want: []Ref{
				{File: "cpu_manager_state", Path: "/entries/a~1b/x~0y", Quote: `cpu_manager_state: CPU 1 is assigned to both container "x~y" of pod "a/b" and container "d" of pod "c"`},
				{File: "cpu_manager_state", Path: "/entries/c/d", Quote: `container "d" of pod "c"`},
			},
			severity: "error",
			remedy:   "Drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file).",
			explains: "restore check passes",
		},
		{
			name: "a pasted copy with a shell prompt",
			data: append([]byte("[root@node ~]# cat /var/lib/kubelet/cpu_manager_state\n"), encodeCPU(t, statefile.FormatV2, cpuset.New(0, 1, 2), twoOwners)...),
			want: []Ref{
				{File: "cpu_manager_state", Path: "/entries/pod-a/web", Quote: `cpu_manager_state: CPU 3 is assigned to both container "web" of pod "pod-a" and container "batch" of pod "pod-b"`},
				{File: "cpu_manager_state", Path: "/entries/pod-b/batch", Quote: `container "batch" of pod "pod-b"`},
			},
			severity: "error",
			remedy:   "Drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file).",
			explains: "is a copy of the checkpoint, not the node's file, so no kubelet verdict applies to it",
		},
		{
			// the corrupt-checkpoint finding cites the overlap already
			name: "corrupt file: no duplicate",
			data: corrupt,
		},
		{
			name: "clean file",
			data: encodeCPU(t, statefile.FormatV4, cpuset.New(0, 1, 2), map[string]map[string]cpuset.CPUSet{"pod-a": {"web": cpuset.New(3)}}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := runState(t, "cpu_manager_state", tt.data)
			got := findingsWithCode(rep, CodeStateFileProblem)
			if tt.want == nil {
				assert.Empty(t, got, "findings: %v", codes(rep))
				return
			}
			require.Len(t, got, 1, "findings: %v", codes(rep))
			if diff := cmp.Diff(tt.want, got[0].Evidence); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.severity, string(got[0].Severity))
			assert.Equal(t, tt.remedy, got[0].Remedy)
			assert.Contains(t, got[0].Explanation, tt.explains)
			assert.True(t, rep.HasErrors(), "an error problem is an error finding")
		})
	}

	t.Run("bounded", func(t *testing.T) {
		rep := runState(t, "cpu_manager_state", encodeCPU(t, statefile.FormatV2, cpuset.New(0), many))
		got := findingsWithCode(rep, CodeStateFileProblem)
		require.Len(t, got, 1)
		assert.Len(t, got[0].Evidence, 2*maxStateRefsPerFinding)
		assert.Contains(t, got[0].Title, "(and 38 more)")
		assert.Contains(t, got[0].Explanation, "27 more problems of this file are not listed here: `inspect cpu_manager_state` lists every one.")
	})
}

// TestStateProblemsReported holds every scenario to the rule: each error
// and warning statefile finds in a state file the scenario gives is
// evidence of a finding, and of one finding only.
func TestStateProblemsReported(t *testing.T) {
	for _, dir := range scenarioDirs(t) {
		t.Run(dir, func(t *testing.T) {
			rep := runScenario(t, dir)
			src, err := evidence.SourcesFromDir(".")
			require.NoError(t, err)
			src.Files = scenarioFiles(src.Files)
			ev, err := evidence.Load(src)
			require.NoError(t, err)
			for _, f := range ev.States {
				if ev.Partial(f) {
					continue
				}
				copyOnly := ev.Provenance(f) != nil && (ev.Provenance(f).Repair != nil || len(ev.Provenance(f).Redactions) > 0)
				for _, p := range f.Problems {
					if p.Severity == statefile.SeverityInfo || copyOnly && verdictProblem(p) {
						continue
					}
					n := 0
					for _, g := range rep.Findings {
						if citesProblem(g, f, p) {
							n++
						}
					}
					assert.NotZero(t, n, "%s: problem %q at %q is in no finding (%v)", f.Name, p.Message, p.Path, codes(rep))
					if n > 1 {
						var in []string
						for _, g := range rep.Findings {
							if citesProblem(g, f, p) && g.Code == CodeStateFileProblem {
								in = append(in, g.Code)
							}
						}
						assert.LessOrEqual(t, len(in), 1, "%s: problem %q reported twice as %s", f.Name, p.Message, CodeStateFileProblem)
					}
				}
			}
		})
	}
}

func citesProblem(g Finding, f *statefile.File, p statefile.Problem) bool { // the rule of citations.covers, for one finding
	for _, r := range g.Evidence {
		if r.File != f.Name {
			continue
		}
		if p.Path != "" && r.Path == p.Path || r.Quote == p.Message || r.Quote != "" && r.Quote == f.Reason && strings.Contains(p.Message, f.Reason) ||
			r.Quote != "" && samePlaceOnAnotherNode(r.Path, p.Path) && strings.Contains(p.Message, r.Quote) {
			return true
		}
	}
	return false
}

// BenchmarkStateProblemFindings diagnoses a hand-made cpu_manager_state in
// which 2,000 containers share CPUs 0-63: 1,999 problems, one finding.
func BenchmarkStateProblemFindings(b *testing.B) {
	entries := map[string]map[string]cpuset.CPUSet{}
	all := make([]int, 64)
	for i := range all {
		all[i] = i
	}
	for i := range 2000 {
		entries[fmt.Sprintf("pod-%04d", i)] = map[string]cpuset.CPUSet{"c": cpuset.New(all...)}
	}
	data, err := statefile.Encode(&statefile.File{Name: "cpu_manager_state", Kind: statefile.KindCPU,
		CPU: &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(64), Entries: entries}}, statefile.FormatV2)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		ev := &evidence.Set{}
		require.NoError(b, ev.AddStateFile("cpu_manager_state", data))
		rep, err := Run(context.Background(), ev)
		require.NoError(b, err)
		require.Len(b, findingsWithCode(rep, CodeStateFileProblem), 1)
	}
}
