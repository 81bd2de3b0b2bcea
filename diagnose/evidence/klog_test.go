package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func mustParseLogFile(t *testing.T, name string) *KubeletLog {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "logs", name))
	require.NoError(t, err)
	defer f.Close()
	l, err := ParseLog(name, f)
	require.NoError(t, err)
	return l.interpret()
}

func TestParseLogTextRecord(t *testing.T) {
	in := `Nov 29 10:00:00 worker-1 kubelet[1234]: I1129 10:00:00.101400    1234 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":2,"Preferred":true}]} pod="default/guaranteed" containerName="app" n=3 ok=true note="a \"quoted\" word"`
	l, err := ParseLog("in.log", strings.NewReader(in))
	require.NoError(t, err)
	if len(l.Records) != 1 {
		t.Fatalf("records = %d", len(l.Records))
	}
	r := l.Records[0]
	want := Record{Line: 1, Severity: "I", Time: "1129 10:00:00.101400", Source: "scope_container.go:75", Message: "TopologyHints",
		Values: []logValue{
			{Key: "hints", Text: `{"cpu":[{"NUMANodeAffinity":2,"Preferred":true}]}`, JSON: true},
			{Key: "pod", Text: "default/guaranteed"},
			{Key: "containerName", Text: "app"},
			{Key: "n", Text: "3", JSON: true},
			{Key: "ok", Text: "true", JSON: true},
			{Key: "note", Text: `a "quoted" word`},
		}, Node: "worker-1"}
	if diff := cmp.Diff(want, r, cmpopts.IgnoreUnexported(Record{}, logValue{})); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if l.Format != "text" {
		t.Errorf("format = %q", l.Format)
	}
}

func TestParseLogPrintfStyleAndNoise(t *testing.T) {
	in := "-- Logs begin at ... --\nrandom line\nE1129 10:00:00.000000 1 server.go:302] failed to run Kubelet: boom\n"
	l, err := ParseLog("x", strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, l.Records, 1, "records")
	assert.Equal(t, "failed to run Kubelet: boom", l.Records[0].Message, "message")
	assert.Equal(t, 3, l.Records[0].Line, "line of the record")
	assert.Equal(t, 2, l.Skipped, "skipped lines")
}

func TestParseLogEmptyNamesFile(t *testing.T) {
	_, err := ParseLog("/tmp/kubelet.log", strings.NewReader("nothing here\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/tmp/kubelet.log", "the error names the file")
	assert.Contains(t, err.Error(), "journalctl", "the error says how to get a log")
}

func TestParseLogJSONFormat(t *testing.T) {
	k := mustParseLogFile(t, "kubelet-1.37-json.log")
	if k.Format != "json" {
		t.Errorf("format = %q", k.Format)
	}
	if got := k.Records[1].PodRef(); got != "ml/trainer" {
		t.Errorf("PodRef = %q", got)
	}
	if len(k.Attempts) != 1 {
		t.Fatalf("attempts = %+v", k.Attempts)
	}
	a := k.Attempts[0]
	assert.Equal(t, "TopologyAffinityError", a.Reason, "reason")
	assert.Equal(t, "0d5c6e1a-1111-4222-8333-944455556666", a.PodUID, "pod UID")
	assert.Equal(t, 8, a.ResultLine, "result line")
	require.NotEmpty(t, a.Containers, "containers")
	c := a.Containers[0]
	assert.Equal(t, "cuda", c.Container, "container")
	require.Len(t, c.Providers, 3, "providers of %s", c.Container)
	if p := c.Providers[0]; assert.Equal(t, "device", p.Provider, "provider 0") && assert.NotEmpty(t, p.Resources, "device resources") {
		assert.True(t, p.Resources[0].Impossible, "device hints are impossible: %+v", p)
	}
	if p := c.Providers[1]; assert.Equal(t, "cpu", p.Provider, "provider 1") && assert.NotEmpty(t, p.Resources, "cpu resources") &&
		assert.Len(t, p.Resources[0].Hints, 3, "cpu hints") {
		assert.Equal(t, []int{0, 1}, p.Resources[0].Hints[2].NUMANodes, "nodes of cpu hint 2")
	}
	if p := c.Providers[2]; assert.Equal(t, "memory", p.Provider, "provider 2") {
		assert.True(t, p.NoPreference, "memory has no preference: %+v", p)
	}
	if assert.NotNil(t, c.BestHint, "best hint") {
		assert.Equal(t, "{0 non-preferred}", c.BestHint.String(), "best hint")
	}
	assert.False(t, c.Aligned, "aligned")
	if s := k.SignalsOf(SignalTopologyConfig); assert.Len(t, s, 1, "config signals") {
		assert.Equal(t, "restricted", s[0].Fields["policy"], "policy in config signal")
	}
	if s := k.SignalsOf(SignalCPUSetMismatch); assert.Len(t, s, 1, "cpuset signals") {
		assert.Equal(t, "0-15", s[0].Fields["online"], "online CPUs in cpuset signal")
		assert.Equal(t, "0-31", s[0].Fields["state"], "state CPUs in cpuset signal")
	}
	if k.Records[8].Severity != "E" {
		t.Errorf("severity of error record = %q", k.Records[8].Severity)
	}
}

func TestInterpretOldKubeletJournal(t *testing.T) {
	k := mustParseLogFile(t, "kubelet-1.29-single-numa.log")
	if len(k.Attempts) != 1 {
		t.Fatalf("attempts = %+v", k.Attempts)
	}
	a := k.Attempts[0]
	assert.Equal(t, "default/guaranteed", a.Pod, "pod")
	assert.Equal(t, "6f1a7c2e-0b7c-4a52-9b1e-2c1e0c3d4e5f", a.PodUID, "pod UID")
	assert.Equal(t, 2, a.StartLine, "start line")
	// The event comes first; the status patch must not overwrite it.
	assert.Equal(t, "TopologyAffinityError", a.Reason, "reason")
	assert.Equal(t, 10, a.ResultLine, "result line")
	require.NotEmpty(t, a.Containers, "containers")
	c := a.Containers[0]
	if assert.Len(t, c.Providers, 3, "providers") {
		assert.True(t, c.Providers[0].NoPreference, "provider 0 has no preference: %+v", c.Providers[0])
		assert.Equal(t, "cpu", c.Providers[1].Provider, "provider 1")
		assert.Equal(t, "memory", c.Providers[2].Provider, "provider 2")
	}
	if assert.NotNil(t, c.BestHint, "best hint") {
		assert.Nil(t, c.BestHint.NUMANodes, "nodes of the best hint")
		assert.False(t, c.BestHint.Preferred, "best hint preferred")
	}
	assert.Equal(t, 9, c.BestLine, "best hint line")
}

func TestInterpretMultilineError(t *testing.T) {
	k := mustParseLogFile(t, "kubelet-1.37-multiline.log")
	if len(k.Records) != 2 {
		t.Fatalf("records = %+v", k.Records)
	}
	for _, kind := range []string{SignalContainerManager, SignalRestoreFailed, SignalMemoryStateMismatch, SignalMemoryStateDetail} {
		if len(k.SignalsOf(kind)) == 0 {
			t.Errorf("no %s signal in %+v", kind, k.Signals)
		}
	}
	if t.Failed() {
		return
	}
	s := k.SignalsOf(SignalRestoreFailed)[0]
	assert.Equal(t, "memory", s.Fields["manager"], "manager in restore signal")
	assert.Equal(t, "/var/lib/kubelet/memory_manager_state", s.Fields["file"], "file in restore signal")
	assert.Equal(t, 1, s.Line, "line of restore signal")
	d := k.SignalsOf(SignalMemoryStateDetail)[0]
	assert.Equal(t, "TotalMemSize", d.Fields["field"], "field in detail signal")
	assert.Equal(t, 4, d.Line, "line of detail signal")
}

func TestSignalsFromErrorTexts(t *testing.T) {
	lines := []string{
		`E1129 10:00:00.000000 1 cpu_manager.go:249] "Could not initialize checkpoint manager, please drain node and remove policy state file" err="could not restore state from checkpoint: configured policy \"static\" differs from state checkpoint policy \"none\", please drain this node and delete the CPU manager checkpoint file \"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet"`,
		`I1129 10:00:01.000000 1 allocation_manager.go:660] "Pod admission denied" podUID="u1" pod="ns/p" reason="SMTAlignmentError" message="SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 2, requested CPUs = 4, CPUs per core = 2"`,
		`I1129 10:00:02.000000 1 allocation_manager.go:660] "Pod admission denied" podUID="u2" pod="ns/q" reason="UnexpectedAdmissionError" message="Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected"`,
		`E1129 10:00:03.000000 1 server.go:302] "Failed to run kubelet" err="failed to run Kubelet: failed to initialize topology manager: unsupported on machines with more than 8 NUMA Nodes"`,
		`I1129 10:00:04.000000 1 topology_hints.go:47] "Resource does not have a topology preference" resourceName="example.com/nic" pod="ns/p" containerName="c" request=1`,
		`I1129 10:00:05.000000 1 allocation_manager.go:660] "Pod admission denied" podUID="u3" pod="ns/r" reason="UnexpectedAdmissionError" message="Allocate failed due to [memorymanager] failed to find NUMA nodes to extend the current topology hint, which is unexpected"`,
	}
	l, err := ParseLog("s.log", strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	k := l.interpret()
	pm := k.SignalsOf(SignalPolicyMismatch)
	if assert.Len(t, pm, 1, "policy mismatch signals") {
		assert.Equal(t, "static", pm[0].Fields["configured"], "configured policy")
		assert.Equal(t, "none", pm[0].Fields["checkpoint"], "checkpoint policy")
		assert.Equal(t, "cpu", pm[0].Fields["manager"], "manager")
	}
	smt := k.SignalsOf(SignalSMTAlignment)
	if assert.Len(t, smt, 1, "SMT signals") {
		assert.Equal(t, "2", smt[0].Fields["availablePhysicalCPUs"], "available physical CPUs")
		assert.Equal(t, "ns/p", smt[0].Fields["pod"], "pod of SMT signal")
	}
	if d := k.SignalsOf(SignalDevicesUnavailable); assert.Len(t, d, 1, "devices-unavailable signals") {
		assert.Equal(t, "nvidia.com/gpu", d[0].Fields["resource"], "resource of devices signal")
		assert.Equal(t, "0", d[0].Fields["available"], "available devices")
	}
	if n := k.SignalsOf(SignalNUMALimit); assert.Len(t, n, 1, "NUMA limit signals") {
		assert.Equal(t, "8", n[0].Fields["limit"], "NUMA limit")
	}
	if n := k.SignalsOf(SignalDeviceNoTopology); assert.Len(t, n, 1, "no-topology signals") {
		assert.Equal(t, "example.com/nic", n[0].Fields["resource"], "resource without topology")
	}
	if n := k.SignalsOf(SignalMemoryExtend); assert.Len(t, n, 1, "memory extend signals") {
		assert.Equal(t, "ns/r", n[0].Fields["pod"], "pod of memory extend signal")
	}
	if assert.Len(t, k.Attempts, 3, "attempts") {
		assert.Equal(t, "SMTAlignmentError", k.Attempts[0].Reason, "reason of attempt 0")
	}
}

func TestInterpretPodScopeAndReadmission(t *testing.T) {
	lines := []string{
		`I1129 10:00:00.000000 1 scope_pod.go:146] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":3,"Preferred":true}]} pod="ns/p" operation="add"`,
		`I1129 10:00:00.000001 1 scope_pod.go:154] "PodTopologyHint" bestHint={"NUMANodeAffinity":3,"Preferred":true} pod="ns/p" operation="add"`,
		`I1129 10:00:00.000002 1 scope_pod.go:118] "Best TopologyHint" bestHint={"NUMANodeAffinity":3,"Preferred":true} pod="ns/p" operation="add"`,
		`I1129 10:00:00.000003 1 scope_pod.go:100] "Topology Affinity" bestHint={"NUMANodeAffinity":3,"Preferred":true} pod="ns/p" containerName="a"`,
		`I1129 10:00:01.000000 1 scope_container.go:93] "TopologyHints" hints=null pod="ns/q" containerName="a" operation="add"`,
		`I1129 10:00:01.000001 1 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":null,"Preferred":true} pod="ns/q" containerName="a" operation="add"`,
		`I1129 10:00:02.000000 1 scope_container.go:93] "TopologyHints" hints=null pod="ns/q" containerName="a" operation="add"`,
	}
	l, err := ParseLog("s.log", strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	k := l.interpret()
	if len(k.Attempts) != 3 {
		t.Fatalf("attempts = %+v", k.Attempts)
	}
	if a := k.Attempts[0]; assert.Equal(t, "pod", a.Scope, "scope of attempt 0") && assert.NotEmpty(t, a.Containers, "containers of attempt 0") {
		assert.True(t, a.Containers[0].Aligned, "container 0 aligned")
		if assert.NotNil(t, a.Containers[0].BestHint, "best hint of container 0") {
			assert.Equal(t, "{0,1 preferred}", a.Containers[0].BestHint.String(), "best hint of container 0")
		}
	}
	if k.Attempts[2].StartLine != 7 {
		t.Errorf("second admission of ns/q starts at %d", k.Attempts[2].StartLine)
	}
}

func FuzzParseLog(f *testing.F) {
	for _, name := range []string{"kubelet-1.29-single-numa.log", "kubelet-1.37-json.log", "kubelet-1.37-multiline.log",
		"kubelet-1.16-journal.log", "kubelet-1.17-plain.log", "kubelet-1.18-journal.log", "kubelet-1.20-pod-scope.log",
		"kubelet-1.25-plusv.log", "kubelet-1.20-talos-json.log"} {
		b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`I1129 10:00:00.000000 1 a.go:1] "m" k=<`))
	f.Add([]byte(`I1129 10:00:00.000000 1 a.go:1] "m" k={"a":[1,2 x="`))
	f.Add([]byte(`I1129 10:00:00.000000 1 a.go:1] "TopologyHints" hints=map[cpu:[{NUMANodeAffinity:01 Preferred:true} {1 x}]] pod="a/b"`))
	f.Add([]byte("I1129 10:00:00.000000 1 a.go:1] [topologymanager] Topology Affinity for Pod: u are map[c:{" + strings.Repeat("1", 65) + " true}]"))
	f.Add([]byte("F1129 10:00:00.000000 1 a.go:1] boom\n\tgoroutine 1\nmain()\n-- Boot 1 --\n"))
	f.Add([]byte("{\"MESSAGE\":[73,49,49],\"_HOSTNAME\":\"n\"}\n5月 06 09:14:02 h kubelet[1]: I0506 09:14:02.1 1 a.go:1] x\n"))
	f.Add(gzipped(f, "Mar 05 09:14:02 h k3s[1]: I0305 09:14:02.1 1 kubelet.go:1] "+admitDenied131+"\n"))
	f.Add([]byte(gzipped(f, string(gzipped(f, "I0305 09:14:02.1 1 kubelet.go:1] "+admitDenied131+"\n\n \t\n")))))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			l, err := ParseLogBytes("fuzz.log", data)
			if err != nil {
				assert.Contains(t, err.Error(), "fuzz.log", "an error names the file")
				return
			}
			_ = l.release().String()
			k := l.interpret()
			for _, a := range k.Attempts {
				for _, c := range a.Containers {
					if c.BestHint != nil {
						_ = c.BestHint.String()
					}
				}
			}
			if l.Compressed == "" {
				for _, r := range l.Records {
					if r.Line < 1 || r.Line > strings.Count(string(data), "\n")+1 {
						t.Fatalf("record line %d out of range", r.Line)
					}
				}
			}
			for _, a := range k.Attempts {
				for _, c := range a.Containers {
					for _, p := range c.Providers {
						if p.EmptyMap && p.Indistinct {
							t.Fatalf("line %d: an empty map is claimed where nil and empty look alike", p.Line)
						}
					}
				}
			}
		})
	})
}

func TestPlacementSignals(t *testing.T) {
	lines := []string{
		`I1129 10:00:00.000000 1 memory_manager.go:281] "Memory affinity" pod="ns/p" containerName="c" numaNodes={"0":{},"1":{}}`,
		`I1129 10:00:00.000001 1 memory_manager.go:281] "Memory affinity" pod="ns/p" containerName="d" numaNodes=[1]`,
		`I1129 10:00:00.000002 1 policy_static.go:642] "Allocated exclusive CPUs" pod="ns/p" containerName="c" cpuset="2-5"`,
	}
	l, err := ParseLog("p.log", strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	k := l.interpret()
	m := k.SignalsOf(SignalMemoryPlacement)
	if assert.Len(t, m, 2, "memory placement signals") {
		assert.Equal(t, "0, 1", m[0].Fields["numaNodes"], "NUMA nodes of memory placement 0")
		assert.Equal(t, "1", m[1].Fields["numaNodes"], "NUMA nodes of memory placement 1")
	}
	c := k.SignalsOf(SignalCPUPlacement)
	if assert.Len(t, c, 1, "cpu placement signals") {
		assert.Equal(t, "2-5", c[0].Fields["cpuset"], "cpuset of cpu placement")
		assert.Equal(t, "c", c[0].Fields["container"], "container of cpu placement")
	}
}

func TestParseLogJournalJSON(t *testing.T) {
	in := `{"__CURSOR":"s=1","_SYSTEMD_UNIT":"kubelet.service","MESSAGE":"I1129 10:00:00.000000    1234 allocation_manager.go:660] \"Pod admission denied\" podUID=\"u\" pod=\"ns/p\" reason=\"TopologyAffinityError\" message=\"Resources cannot be allocated with Topology locality\""}
{"__CURSOR":"s=2","MESSAGE":[73,49,49,50,57,32,49,48,58,48,48,58,48,49,46,48,48,48,48,48,48,32,49,32,97,46,103,111,58,49,93,32,34,120,34]}
{"__CURSOR":"s=3","MESSAGE":"{\"ts\":1.5,\"caller\":\"a.go:1\",\"msg\":\"Event occurred\",\"v\":0,\"object\":\"ns/q\",\"kind\":\"Pod\",\"type\":\"Warning\",\"reason\":\"SMTAlignmentError\",\"message\":\"SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2\"}"}`
	l, err := ParseLog("journal.json", strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, l.Records, 3, "records")
	assert.Equal(t, "Pod admission denied", l.Records[0].Message, "message of record 0")
	assert.Equal(t, "x", l.Records[1].Message, "message of record 1")
	assert.Equal(t, "Event occurred", l.Records[2].Message, "message of record 2")
	k := l.interpret()
	if assert.Len(t, k.Attempts, 2, "attempts") {
		assert.Equal(t, "SMTAlignmentError", k.Attempts[1].Reason, "reason of attempt 1")
	}
}

func BenchmarkParseLog(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "logs", "kubelet-1.29-single-numa.log"))
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(strings.Repeat(string(one), 1000)) // about 10k records
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := ParseLogBytes("bench.log", data)
		if err != nil {
			b.Fatal(err)
		}
		_ = l.interpret()
	}
}

type genHint struct {
	Nodes     []int `json:"nodes"`
	Preferred bool  `json:"preferred"`
}

type genAnswer struct {
	Nil       bool                  `json:"nil"`
	Resources map[string]*[]genHint `json:"resources"`
}

type genCase struct {
	Pod        string
	Policy     string
	Scope      string
	Containers []string
	Providers  []map[string]genAnswer
	Admit      bool
	Reason     string
	Message    string
}

// TestParseKubeletGeneratedLogs parses log lines printed by the kubelet's own
// Topology Manager, v1.37.2 in klog text and JSON (see testdata/logs/klgen)
// and v1.21.0 through klog v2.8.0, the %+v era (testdata/logs/klgen121), and
// checks that every hint, the "no preference" and "nowhere" distinctions (or,
// where the log cannot tell them apart, that it says so) and every admission
// decision come back.
func TestParseKubeletGeneratedLogs(t *testing.T) {
	for _, run := range []struct{ release, format, releaseRange string }{
		{"v1.37.2", "text", "1.31 or later"}, {"v1.37.2", "json", "1.31 or later"}, {"v1.21.0", "text", "1.21-1.26"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "logs", "kubelet-"+run.release+"-generated-expected.json"))
		require.NoError(t, err)
		var cases []genCase
		require.NoError(t, json.Unmarshal(b, &cases))
		format := run.release + " " + run.format
		goEra := run.release == "v1.21.0"
		k := mustParseLogFile(t, "kubelet-"+run.release+"-generated-"+run.format+".log")
		if k.Format != run.format {
			t.Errorf("%s: format %q", format, k.Format)
		}
		assert.Equal(t, run.releaseRange, k.release().String(), "%s: release, evidence %v", format, k.Release.Evidence)
		if goEra {
			if assert.Len(t, k.Warnings, 1, "%s: warnings", format) {
				assert.Contains(t, k.Warnings[0], "hint lines (first at line 3) come from a kubelet before 1.28", "%s: warning", format)
			}
		} else {
			assert.Empty(t, k.Warnings, "%s: warnings", format)
		}
		if got := len(k.SignalsOf(SignalTopologyConfig)); got != len(cases) {
			t.Errorf("%s: %d topology manager configurations, want %d", format, got, len(cases))
		}
		for _, c := range cases {
			var a *AdmissionAttempt
			for i := range k.Attempts {
				if k.Attempts[i].Pod == c.Pod {
					a = &k.Attempts[i]
				}
			}
			if a == nil {
				t.Errorf("%s: no attempt for %s", format, c.Pod)
				continue
			}
			if !goEra {
				// 1.21's Topology Manager logs no result line of its own; the
				// rejection is in the pod's events.
				assert.Equal(t, c.Admit, a.Reason == "", "%s %s: admitted (no reason)", format, c.Pod)
				assert.Equal(t, c.Reason, a.Reason, "%s %s: reason", format, c.Pod)
				assert.Equal(t, c.Message, a.Message, "%s %s: message", format, c.Pod)
			}
			if a.Scope != c.Scope {
				t.Errorf("%s %s: scope %q, want %q", format, c.Pod, a.Scope, c.Scope)
			}
			for _, ca := range a.Containers {
				key := ca.Container
				if len(ca.Providers) != 3 {
					t.Errorf("%s %s/%s: %d providers", format, c.Pod, key, len(ca.Providers))
					continue
				}
				for i, p := range ca.Providers {
					checkAnswer(t, fmt.Sprintf("%s %s/%s provider %d", format, c.Pod, key, i), c.Providers[i][key], p, goEra)
				}
				if ca.BestHint == nil {
					t.Errorf("%s %s/%s: no best hint", format, c.Pod, key)
				}
			}
			// Admitted: every container passed; rejected: the admission stopped at one that did not.
			assert.Equal(t, c.Admit, a.AllAligned(), "%s %s: every container aligned as the kubelet admitted", format, c.Pod)
		}
	}
}

func checkAnswer(t *testing.T, where string, want genAnswer, got ProviderHints, goEra bool) {
	t.Helper()
	if want.Nil || len(want.Resources) == 0 {
		assert.True(t, got.NoPreference, "%s: no preference: %+v", where, got)
		if goEra {
			// map[] for both nil and empty: never claim an empty map.
			assert.False(t, got.EmptyMap, "%s: empty map claimed in the %%+v era", where)
			assert.True(t, got.Indistinct, "%s: nil and empty are indistinct in the %%+v era", where)
		} else {
			assert.Equal(t, !want.Nil, got.EmptyMap, "%s: empty map (want nil=%v)", where, want.Nil)
			assert.False(t, got.Indistinct, "%s: indistinct", where)
		}
		return
	}
	if len(got.Resources) != len(want.Resources) {
		t.Errorf("%s: %d resources, want %d", where, len(got.Resources), len(want.Resources))
		return
	}
	for _, r := range got.Resources {
		list, ok := want.Resources[r.Resource]
		switch {
		case !ok:
			t.Errorf("%s: unexpected resource %s", where, r.Resource)
		case list == nil:
			if !r.NoPreference || r.Indistinct {
				t.Errorf("%s: %s should be no preference (settled by the provider line): %+v", where, r.Resource, r)
			}
		case len(*list) == 0:
			if !r.Impossible || r.Indistinct {
				t.Errorf("%s: %s should be impossible (settled by the provider line): %+v", where, r.Resource, r)
			}
		default:
			if len(r.Hints) != len(*list) {
				t.Errorf("%s: %s has %d hints, want %d", where, r.Resource, len(r.Hints), len(*list))
				continue
			}
			for i, h := range *list {
				assert.Equal(t, h.Nodes, r.Hints[i].NUMANodes, "%s: %s hint %d nodes", where, r.Resource, i)
				assert.Equal(t, h.Preferred, r.Hints[i].Preferred, "%s: %s hint %d preferred", where, r.Resource, i)
			}
		}
	}
}
