package diagnose

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func mustParseLogFile(t *testing.T, name string) *KubeletLog {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ParseLog(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return l.interpret()
}

func TestParseLogTextRecord(t *testing.T) {
	in := `Nov 29 10:00:00 worker-1 kubelet[1234]: I1129 10:00:00.101400    1234 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":2,"Preferred":true}]} pod="default/guaranteed" containerName="app" n=3 ok=true note="a \"quoted\" word"`
	l, err := ParseLog("in.log", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 1 {
		t.Fatalf("records = %d", len(l.Records))
	}
	r := l.Records[0]
	want := logRecord{Line: 1, Severity: "I", Time: "1129 10:00:00.101400", Source: "scope_container.go:75", Message: "TopologyHints",
		Values: []logValue{
			{Key: "hints", Text: `{"cpu":[{"NUMANodeAffinity":2,"Preferred":true}]}`, JSON: true},
			{Key: "pod", Text: "default/guaranteed"},
			{Key: "containerName", Text: "app"},
			{Key: "n", Text: "3", JSON: true},
			{Key: "ok", Text: "true", JSON: true},
			{Key: "note", Text: `a "quoted" word`},
		}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %#v\nwant %#v", r, want)
	}
	if l.Format != "text" {
		t.Errorf("format = %q", l.Format)
	}
}

func TestParseLogPrintfStyleAndNoise(t *testing.T) {
	in := "-- Logs begin at ... --\nrandom line\nE1129 10:00:00.000000 1 server.go:302] failed to run Kubelet: boom\n"
	l, err := ParseLog("x", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 1 || l.Records[0].Message != "failed to run Kubelet: boom" || l.Records[0].Line != 3 || l.Skipped != 2 {
		t.Fatalf("got %+v skipped=%d", l.Records, l.Skipped)
	}
}

func TestParseLogEmptyNamesFile(t *testing.T) {
	_, err := ParseLog("/tmp/kubelet.log", strings.NewReader("nothing here\n"))
	if err == nil || !strings.Contains(err.Error(), "/tmp/kubelet.log") || !strings.Contains(err.Error(), "journalctl") {
		t.Fatalf("err = %v", err)
	}
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
	if a.Reason != "TopologyAffinityError" || a.PodUID != "0d5c6e1a-1111-4222-8333-944455556666" || a.ResultLine != 8 {
		t.Errorf("result = %+v", a)
	}
	c := a.Containers[0]
	if c.Container != "cuda" || len(c.Providers) != 3 {
		t.Fatalf("container = %+v", c)
	}
	if p := c.Providers[0]; p.Provider != "device" || !p.Resources[0].Impossible {
		t.Errorf("device provider = %+v", p)
	}
	if p := c.Providers[1]; p.Provider != "cpu" || len(p.Resources[0].Hints) != 3 || !reflect.DeepEqual(p.Resources[0].Hints[2].NUMANodes, []int{0, 1}) {
		t.Errorf("cpu provider = %+v", p)
	}
	if p := c.Providers[2]; p.Provider != "memory" || !p.NoPreference {
		t.Errorf("memory provider = %+v", p)
	}
	if c.BestHint == nil || c.BestHint.String() != "{0 non-preferred}" || c.Aligned {
		t.Errorf("best = %v aligned=%v", c.BestHint, c.Aligned)
	}
	if s := k.signalsOf(signalTopologyConfig); len(s) != 1 || s[0].Fields["policy"] != "restricted" {
		t.Errorf("config signal = %+v", s)
	}
	if s := k.signalsOf(signalCPUSetMismatch); len(s) != 1 || s[0].Fields["online"] != "0-15" || s[0].Fields["state"] != "0-31" {
		t.Errorf("cpuset signal = %+v", s)
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
	if a.Pod != "default/guaranteed" || a.PodUID != "6f1a7c2e-0b7c-4a52-9b1e-2c1e0c3d4e5f" || a.StartLine != 2 {
		t.Errorf("attempt = %+v", a)
	}
	// The event comes first; the status patch must not overwrite it.
	if a.Reason != "TopologyAffinityError" || a.ResultLine != 10 {
		t.Errorf("result = %q line %d", a.Reason, a.ResultLine)
	}
	c := a.Containers[0]
	if len(c.Providers) != 3 || !c.Providers[0].NoPreference || c.Providers[1].Provider != "cpu" || c.Providers[2].Provider != "memory" {
		t.Errorf("providers = %+v", c.Providers)
	}
	if c.BestHint == nil || c.BestHint.NUMANodes != nil || c.BestHint.Preferred || c.BestLine != 9 {
		t.Errorf("best = %+v line %d", c.BestHint, c.BestLine)
	}
}

func TestInterpretMultilineError(t *testing.T) {
	k := mustParseLogFile(t, "kubelet-1.37-multiline.log")
	if len(k.Records) != 2 {
		t.Fatalf("records = %+v", k.Records)
	}
	for _, kind := range []string{signalContainerManager, signalRestoreFailed, signalMemoryStateMismatch, signalMemoryStateDetail} {
		if len(k.signalsOf(kind)) == 0 {
			t.Errorf("no %s signal in %+v", kind, k.Signals)
		}
	}
	s := k.signalsOf(signalRestoreFailed)[0]
	if s.Fields["manager"] != "memory" || s.Fields["file"] != "/var/lib/kubelet/memory_manager_state" || s.Line != 1 {
		t.Errorf("restore signal = %+v", s)
	}
	d := k.signalsOf(signalMemoryStateDetail)[0]
	if d.Fields["field"] != "TotalMemSize" || d.Line != 4 {
		t.Errorf("detail = %+v", d)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	k := l.interpret()
	pm := k.signalsOf(signalPolicyMismatch)
	if len(pm) != 1 || pm[0].Fields["configured"] != "static" || pm[0].Fields["checkpoint"] != "none" || pm[0].Fields["manager"] != "cpu" {
		t.Errorf("policy mismatch = %+v", pm)
	}
	smt := k.signalsOf(signalSMTAlignment)
	if len(smt) != 1 || smt[0].Fields["availablePhysicalCPUs"] != "2" || smt[0].Fields["pod"] != "ns/p" {
		t.Errorf("smt = %+v", smt)
	}
	if d := k.signalsOf(signalDevicesUnavailable); len(d) != 1 || d[0].Fields["resource"] != "nvidia.com/gpu" || d[0].Fields["available"] != "0" {
		t.Errorf("devices = %+v", d)
	}
	if n := k.signalsOf(signalNUMALimit); len(n) != 1 || n[0].Fields["limit"] != "8" {
		t.Errorf("numa limit = %+v", n)
	}
	if n := k.signalsOf(signalDeviceNoTopology); len(n) != 1 || n[0].Fields["resource"] != "example.com/nic" {
		t.Errorf("no topology = %+v", n)
	}
	if n := k.signalsOf(signalMemoryExtend); len(n) != 1 || n[0].Fields["pod"] != "ns/r" {
		t.Errorf("extend = %+v", n)
	}
	if len(k.Attempts) != 3 || k.Attempts[0].Reason != "SMTAlignmentError" {
		t.Errorf("attempts = %+v", k.Attempts)
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
	if err != nil {
		t.Fatal(err)
	}
	k := l.interpret()
	if len(k.Attempts) != 3 {
		t.Fatalf("attempts = %+v", k.Attempts)
	}
	if a := k.Attempts[0]; a.Scope != "pod" || !a.Containers[0].Aligned || a.Containers[0].BestHint.String() != "{0,1 preferred}" {
		t.Errorf("pod scope = %+v", a)
	}
	if k.Attempts[2].StartLine != 7 {
		t.Errorf("second admission of ns/q starts at %d", k.Attempts[2].StartLine)
	}
}

func FuzzParseLog(f *testing.F) {
	for _, name := range []string{"kubelet-1.29-single-numa.log", "kubelet-1.37-json.log", "kubelet-1.37-multiline.log"} {
		b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`I1129 10:00:00.000000 1 a.go:1] "m" k=<`))
	f.Add([]byte(`I1129 10:00:00.000000 1 a.go:1] "m" k={"a":[1,2 x="`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			l, err := ParseLogBytes("fuzz.log", data)
			if err != nil {
				return
			}
			k := l.interpret()
			for _, a := range k.Attempts {
				for _, c := range a.Containers {
					if c.BestHint != nil {
						_ = c.BestHint.String()
					}
				}
			}
			for _, r := range l.Records {
				if r.Line < 1 || r.Line > strings.Count(string(data), "\n")+1 {
					t.Fatalf("record line %d out of range", r.Line)
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
	if err != nil {
		t.Fatal(err)
	}
	k := l.interpret()
	m := k.signalsOf(signalMemoryPlacement)
	if len(m) != 2 || m[0].Fields["numaNodes"] != "0, 1" || m[1].Fields["numaNodes"] != "1" {
		t.Errorf("memory placement = %+v", m)
	}
	c := k.signalsOf(signalCPUPlacement)
	if len(c) != 1 || c[0].Fields["cpuset"] != "2-5" || c[0].Fields["container"] != "c" {
		t.Errorf("cpu placement = %+v", c)
	}
}

func TestParseLogJournalJSON(t *testing.T) {
	in := `{"__CURSOR":"s=1","_SYSTEMD_UNIT":"kubelet.service","MESSAGE":"I1129 10:00:00.000000    1234 allocation_manager.go:660] \"Pod admission denied\" podUID=\"u\" pod=\"ns/p\" reason=\"TopologyAffinityError\" message=\"Resources cannot be allocated with Topology locality\""}
{"__CURSOR":"s=2","MESSAGE":[73,49,49,50,57,32,49,48,58,48,48,58,48,49,46,48,48,48,48,48,48,32,49,32,97,46,103,111,58,49,93,32,34,120,34]}
{"__CURSOR":"s=3","MESSAGE":"{\"ts\":1.5,\"caller\":\"a.go:1\",\"msg\":\"Event occurred\",\"v\":0,\"object\":\"ns/q\",\"kind\":\"Pod\",\"type\":\"Warning\",\"reason\":\"SMTAlignmentError\",\"message\":\"SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2\"}"}`
	l, err := ParseLog("journal.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 3 || l.Records[0].Message != "Pod admission denied" || l.Records[1].Message != "x" || l.Records[2].Message != "Event occurred" {
		t.Fatalf("records = %+v", l.Records)
	}
	k := l.interpret()
	if len(k.Attempts) != 2 || k.Attempts[1].Reason != "SMTAlignmentError" {
		t.Errorf("attempts = %+v", k.Attempts)
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

// TestParseKubeletGeneratedLogs parses log lines printed by kubelet v1.37.2's
// own Topology Manager (see testdata/logs/klgen) and checks that the hints,
// the nil/empty distinctions and the decisions all come back.
func TestParseKubeletGeneratedLogs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "logs", "kubelet-v1.37.2-generated-expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []genCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		k := mustParseLogFile(t, "kubelet-v1.37.2-generated-"+format+".log")
		if k.Format != format {
			t.Errorf("%s: format %q", format, k.Format)
		}
		if got := len(k.signalsOf(signalTopologyConfig)); got != len(cases) {
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
			if (a.Reason == "") != c.Admit || a.Reason != c.Reason || a.Message != c.Message {
				t.Errorf("%s %s: result %q %q, kubelet said admit=%v %q", format, c.Pod, a.Reason, a.Message, c.Admit, c.Reason)
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
					checkAnswer(t, fmt.Sprintf("%s %s/%s provider %d", format, c.Pod, key, i), c.Providers[i][key], p)
				}
				if ca.BestHint == nil {
					t.Errorf("%s %s/%s: no best hint", format, c.Pod, key)
				}
			}
			if c.Admit {
				for _, ca := range a.Containers {
					if !ca.Aligned {
						t.Errorf("%s %s/%s: admitted by the kubelet but not marked aligned", format, c.Pod, ca.Container)
					}
				}
			}
		}
	}
}

func checkAnswer(t *testing.T, where string, want genAnswer, got ProviderHints) {
	t.Helper()
	if want.Nil || len(want.Resources) == 0 {
		if !got.NoPreference || got.EmptyMap != (!want.Nil) {
			t.Errorf("%s: got %+v, want nil=%v empty map", where, got, want.Nil)
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
			if !r.NoPreference {
				t.Errorf("%s: %s should be no preference", where, r.Resource)
			}
		case len(*list) == 0:
			if !r.Impossible {
				t.Errorf("%s: %s should be impossible", where, r.Resource)
			}
		default:
			if len(r.Hints) != len(*list) {
				t.Errorf("%s: %s has %d hints, want %d", where, r.Resource, len(r.Hints), len(*list))
				continue
			}
			for i, h := range *list {
				if !reflect.DeepEqual(r.Hints[i].NUMANodes, h.Nodes) || r.Hints[i].Preferred != h.Preferred {
					t.Errorf("%s: %s hint %d = %v, want %v", where, r.Resource, i, r.Hints[i], h)
				}
			}
		}
	}
}
