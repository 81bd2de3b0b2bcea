package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// cpuFile renders a cpu_manager_state with a zero checksum (which the v2
// reader does not check), so that only the cpusets decide the verdict.
func cpuFile(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func repeat(s string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = s
	}
	return strings.Join(parts, ",")
}

// TestHostileCPUSets holds every cpuset a hostile file can use to make the
// kubelet's CPU-by-CPU expansion hang or exhaust memory: each is refused
// with a problem that names the file, the field and the value, and Verify
// gives Decode's verdict. Realistic files and the ids the kubelet accepts
// stay accepted.
func TestHostileCPUSets(t *testing.T) {
	entries := func(n int, set string) map[string]map[string]string {
		m := map[string]map[string]string{}
		for i := range n {
			m[fmt.Sprintf("pod%02d", i)] = map[string]string{"c": set}
		}
		return m
	}
	podEntries := func(n int, set string) map[string]map[string]string {
		m := map[string]map[string]string{}
		for i := range n {
			m[fmt.Sprintf("pod%02d", i)] = map[string]string{"cpuSet": set}
		}
		return m
	}
	node8192 := func() map[string]map[string]string {
		m := map[string]map[string]string{}
		for i := range 1024 {
			m[fmt.Sprintf("pod%04d", i)] = map[string]string{"c": fmt.Sprintf("%d-%d", 4096+4*i, 4096+4*i+3)}
		}
		return m
	}
	overBudget := fmt.Sprintf("more than %d CPUs in all", MaxFileCPUs)
	half := fmt.Sprintf("1-%d", MaxFileCPUs/2+1) // two of them go over the budget
	twoHalves := fmt.Sprintf("0-%d,0-%d", MaxFileCPUs/2, MaxFileCPUs/2)
	tests := []struct {
		name     string
		file     any
		accepts  bool
		path     string // the problem's JSON pointer ("" when accepted)
		contains []string
	}{
		{name: "64 ranges of 2^20 CPUs in defaultCpuSet",
			file: map[string]any{"policyName": "none", "defaultCpuSet": repeat("0-1048575", 64), "checksum": 0},
			path: "/defaultCpuSet", contains: []string{"hostile.json", overBudget, `"0-1048575,0-1048575`, "no node has that many", "validateState"}},
		{name: "one CPU over the budget in defaultCpuSet",
			file: map[string]any{"policyName": "none", "defaultCpuSet": fmt.Sprintf("0-%d,%d", MaxFileCPUs-1, MaxFileCPUs), "checksum": 0},
			path: "/defaultCpuSet", contains: []string{"hostile.json", overBudget, fmt.Sprintf("numascope does not expand more than %d CPUs from one file", MaxFileCPUs)}},
		{name: "64 entries each just under the range cap",
			file: map[string]any{"policyName": "static", "defaultCpuSet": "", "entries": entries(64, "1-1048575"), "checksum": 0},
			path: "/entries/pod01/c", contains: []string{"hostile.json", `"1-1048575"`, `pod "pod01"`, overBudget}},
		{name: "64 entries each half the file's budget",
			file: map[string]any{"policyName": "static", "defaultCpuSet": "", "entries": entries(64, half), "checksum": 0},
			path: "/entries/pod01/c", contains: []string{"hostile.json", strconv.Quote(half), `pod "pod01"`, overBudget}},
		{name: "64 v3 podEntries each half the file's budget",
			file: map[string]any{"policyName": "static", "defaultCpuSet": "", "podEntries": podEntries(64, half), "checksum": 1},
			path: "/podEntries/pod01/cpuSet", contains: []string{"hostile.json", strconv.Quote(half), `pod "pod01"`, overBudget}},
		{name: "one v3 pod-level set over the budget",
			file: map[string]any{"policyName": "static", "defaultCpuSet": "", "podEntries": podEntries(2, twoHalves), "checksum": 1},
			path: "/podEntries/pod00/cpuSet", contains: []string{"hostile.json", strconv.Quote(twoHalves), overBudget}},
		{name: "one v4 pod-level set over the budget",
			file: map[string]any{"policyName": "static", "defaultCpuSet": "", "checksum": 1, "dataChecksum": 1,
				"data": `{"policyName":"static","defaultCpuSet":"","podEntries":{"p":{"cpuSet":"0-9223372036854775807"}}}`},
			path: "/data/podEntries/p/cpuSet", contains: []string{"hostile.json", `"0-9223372036854775807"`, "never ends"}},
		{name: "a range to the largest int",
			file: map[string]any{"policyName": "none", "defaultCpuSet": "0-9223372036854775807", "checksum": 0},
			path: "/defaultCpuSet", contains: []string{"hostile.json", `"0-9223372036854775807"`, "never ends"}},
		{name: "a one-CPU range at the largest int",
			file: map[string]any{"policyName": "none", "defaultCpuSet": "9223372036854775807-9223372036854775807", "checksum": 0},
			path: "/defaultCpuSet", contains: []string{"never ends"}},
		{name: "a range wider than 2^20",
			file: map[string]any{"policyName": "none", "defaultCpuSet": fmt.Sprintf("0-%d", maxParsedCPUs), "checksum": 0},
			path: "/defaultCpuSet", contains: []string{fmt.Sprintf(`"0-%d" names %d CPUs, more than %d`, maxParsedCPUs, maxParsedCPUs+1, maxParsedCPUs),
				"numascope does not expand it", "no node has that many"}},
		{name: "the largest int as one id (the kubelet adds it once)",
			file:    map[string]any{"policyName": "none", "defaultCpuSet": "9223372036854775807", "checksum": 0},
			accepts: true},
		{name: "2^31 as one id",
			file:    map[string]any{"policyName": "none", "defaultCpuSet": "0-3,2147483648", "checksum": 0},
			accepts: true},
		{name: "2^20 CPUs in one range fit the budget",
			file:    map[string]any{"policyName": "none", "defaultCpuSet": fmt.Sprintf("0-%d", MaxFileCPUs-1), "checksum": 0},
			accepts: true},
		{name: "2^20 CPUs in two sets fit the budget",
			file: map[string]any{"policyName": "static", "defaultCpuSet": fmt.Sprintf("0-%d", MaxFileCPUs/2-1),
				"entries": map[string]map[string]string{"pod": {"c": fmt.Sprintf("%d-%d", MaxFileCPUs/2, MaxFileCPUs-1)}}, "checksum": 0},
			accepts: true},
		{name: "a node of 8192 CPUs with 1024 containers",
			file:    map[string]any{"policyName": "static", "defaultCpuSet": "0-4095", "entries": node8192(), "checksum": 0},
			accepts: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := cpuFile(t, tt.file)
			f, err := Decode(data, Options{Name: "hostile.json"})
			require.NoError(t, err)
			assert.Equal(t, tt.accepts, f.KubeletAccepts, "reason %q", f.Reason)
			v, err := Verify(data, Options{Name: "hostile.json", Kind: KindCPU})
			require.NoError(t, err)
			assert.Equal(t, f.KubeletAccepts, v.KubeletAccepts)
			assert.Equal(t, f.Reason, v.Reason)
			if tt.accepts {
				return
			}
			var found *Problem
			for i, p := range f.Problems {
				if p.Path == tt.path && p.Severity == SeverityError {
					found = &f.Problems[i]
					break
				}
			}
			require.NotNil(t, found, "no error at %s in %+v", tt.path, f.Problems)
			for _, c := range tt.contains {
				assert.Contains(t, found.Message, c)
			}
			assert.NotEmpty(t, found.Remedy)
			assert.Less(t, len(f.Problems), 5, "one problem for the set over the budget, not one per set after it")
		})
	}
}

// TestHostileCPUState checks that the state of a file the kubelet accepts
// but whose sets go over the budget (here through the baselines, which the
// verdict does not need) is shown as far as it was expanded, and says so.
func TestHostileCPUState(t *testing.T) {
	all := cpuset.New()
	pool, err := parseCPUSet(fmt.Sprintf("0-%d", MaxFileCPUs-1))
	require.NoError(t, err)
	all = all.Union(pool)
	state := &CPUState{PolicyName: "static", DefaultCPUSet: all,
		Entries:   map[string]map[string]cpuset.CPUSet{},
		Baselines: map[string]map[string]cpuset.CPUSet{"pod": {"c": cpuset.New(0, 1)}}}
	data, err := Encode(&File{Kind: KindCPU, CPU: state}, FormatV4)
	require.NoError(t, err)
	f, err := Decode(data, Options{Name: "baselines.json"})
	require.NoError(t, err)
	require.True(t, f.KubeletAccepts, f.Reason)
	assert.Equal(t, MaxFileCPUs, f.CPU.DefaultCPUSet.Size())
	assert.Equal(t, 0, f.CPU.Baselines["pod"]["c"].Size(), "not expanded")
	want := []Problem{{Path: "/data/baselines/pod/c/baseline", Severity: SeverityWarning,
		Message: fmt.Sprintf("baselines.json: the cpusets of the file name more than %d CPUs in all; numascope expanded them up to this one, so the CPU state shown is incomplete", MaxFileCPUs),
		Remedy:  "check that this is a file a kubelet wrote"}}
	var got []Problem
	for _, p := range f.Problems {
		if strings.Contains(p.Message, strconv.Itoa(MaxFileCPUs)) {
			got = append(got, p)
		}
	}
	assert.Empty(t, cmp.Diff(want, got))
}

// TestParseCPUSetIsKubelets holds the bounded parser to cpuset.Parse on the
// cpusets cpuset.Parse can build: the same set, or the same error text.
func TestParseCPUSetIsKubelets(t *testing.T) {
	for _, s := range []string{"", "0", "0-3,7", "3,1,1-2", "+1", "+1-+3", "1-1", "2147483648", "9223372036854775807",
		"3-1", "-1", "1--3", "1-2-3", "a", ",", "0,", " 1", "1 ", "0-3,x,0-9223372036854775807", "0x1", "1-", "-",
		// the digits-only spelling kubeletRange reads without strconv, and its edges
		"007", "0-007", "5-3", "123456789012345678", "1234567890123456789", "1-0123", "9223372036854775808", "1-2,3-"} {
		t.Run(s, func(t *testing.T) {
			got, err := parseCPUSet(s)
			want, werr := cpuset.Parse(s)
			if werr != nil {
				require.Error(t, err)
				assert.Equal(t, werr.Error(), err.Error())
				return
			}
			require.NoError(t, err)
			assert.True(t, want.Equals(got), "got %s, want %s", got, want)
		})
	}
}

// FuzzParseCPUSet holds the bounded parser to cpuset.Parse wherever
// cpuset.Parse ends quickly: the same set or the same error; and it never
// expands more than MaxFileCPUs.
func FuzzParseCPUSet(f *testing.F) {
	for _, s := range []string{"", "0-3,7", "+1", "1--2", "3-1", "9223372036854775807", "0-9223372036854775807",
		"9223372036854775807-9223372036854775807", "0-1048575,0-1048575", "0-1048576", "1-2-3", "0,,1",
		"0-1048575"} { // the widest set numascope expands
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			got, err := parseCPUSet(s)
			if errors.Is(err, errHugeCPUSet) || errors.Is(err, errCPUBudget) {
				return // cpuset.Parse would hang or take gigabytes
			}
			require.LessOrEqual(t, got.Size(), MaxFileCPUs, "parseCPUSet(%q): CPUs built", s)
			want, werr := cpuset.Parse(s)
			if werr != nil {
				require.EqualError(t, err, werr.Error(), "parseCPUSet(%q) against cpuset.Parse", s)
			} else {
				require.NoError(t, err, "parseCPUSet(%q), which cpuset.Parse accepts", s)
				require.True(t, want.Equals(got), "parseCPUSet(%q) = %s, cpuset.Parse = %s", s, got, want)
			}
		})
	})
}

func TestNewCPUSetMatchesParse(t *testing.T) {
	require.True(t, presizedOK, "the layout view of cpuset.CPUSet no longer holds: sets are built with cpuset.New")
	for _, text := range []string{"", "0", "0-3", "0-3,7", "5,1,3-4", "1-1,1", "9223372036854775807", "0-2,9223372036854775805-9223372036854775806"} {
		n, bad, err := cpuCount(text, MaxFileCPUs)
		require.NoError(t, err, text)
		require.False(t, bad, text)
		want, err := cpuset.Parse(text)
		require.NoError(t, err, text)
		got := newCPUSet(n, text)
		assert.True(t, got.Equals(want), "%q: got %s, want %s", text, got, want)
		assert.Equal(t, want.String(), got.String(), text)
	}
}
