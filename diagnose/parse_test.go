package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func readEvidence(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "evidence", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParsePod(t *testing.T) {
	pods, err := ParsePods("pod.yaml", readEvidence(t, "pod-guaranteed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := pods[0]
	if p.Ref() != "default/guaranteed" || p.QOSClass != "Guaranteed" || p.Reason != "TopologyAffinityError" || p.OwnerKind != "Job" || p.NodeName != "worker-1" {
		t.Errorf("pod = %+v", p)
	}
	if len(p.InitContainers) != 2 || !p.InitContainers[0].Terminated || p.InitContainers[0].IsRestartable() || !p.InitContainers[1].IsRestartable() {
		t.Errorf("init containers = %+v", p.InitContainers)
	}
	app := p.Containers[0]
	if q, _ := request(&app, "memory"); q.Value() != 150<<30 {
		t.Errorf("memory = %s", q)
	}
	if q, _ := request(&app, "cpu"); q.Value() != 4 || !q.IsInteger() {
		t.Errorf("cpu = %s", q)
	}
	if app.Path != "/spec/containers/0" {
		t.Errorf("path = %s", app.Path)
	}
}

func TestParsePodQOSAndList(t *testing.T) {
	in := `{"kind":"List","items":[
	 {"kind":"Pod","metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1500m","memory":"1Gi"}}}]}},
	 {"kind":"Pod","metadata":{"name":"b","namespace":"n"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}},
	 {"kind":"Pod","metadata":{"name":"c","namespace":"n"},"spec":{"containers":[{"name":"c"}]}}]}`
	pods, err := ParsePods("list.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{string(pods[0].QOSClass), string(pods[1].QOSClass), string(pods[2].QOSClass)}
	if strings.Join(got, ",") != "Guaranteed,Burstable,BestEffort" || pods[1].Path != "/items/1" {
		t.Errorf("qos = %v path=%s", got, pods[1].Path)
	}
}

func TestParsePodErrorsNameField(t *testing.T) {
	_, err := ParsePods("p.yaml", []byte("kind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {cpu: lots}}\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml: /spec/containers/0/resources/limits/cpu") {
		t.Fatalf("err = %v", err)
	}
	_, err = ParsePods("p.yaml", []byte("kind: Node\n"))
	if err == nil || !strings.Contains(err.Error(), "/kind") {
		t.Fatalf("err = %v", err)
	}
	_, err = ParsePods("p.yaml", []byte("a: [\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseEventsDescribe(t *testing.T) {
	ev, err := ParseEvents("describe.txt", readEvidence(t, "describe-pod.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Format != "describe" || ev.Pod == nil || ev.Pod.Name != "guaranteed" || ev.Pod.Reason != "TopologyAffinityError" || ev.Pod.QOSClass != "Guaranteed" {
		t.Fatalf("pod = %+v", ev.Pod)
	}
	tae := ev.ForReason("TopologyAffinityError")
	if len(tae) != 1 || tae[0].Type != "Warning" || tae[0].Message != "Resources cannot be allocated with Topology locality" || tae[0].From != "kubelet, dell8" || tae[0].Line != 28 {
		t.Errorf("events = %+v", ev.Events)
	}
	if ev.Pod.Lines["Reason"] != 10 {
		t.Errorf("reason line = %d", ev.Pod.Lines["Reason"])
	}
}

func TestParseEventsTableAndList(t *testing.T) {
	ev, err := ParseEvents("events.txt", readEvidence(t, "events-table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tae := ev.ForReason("TopologyAffinityError")
	if ev.Format != "table" || len(tae) != 1 || tae[0].Object != "pod/guaranteed" || tae[0].Line != 3 || tae[0].Message != "Resources cannot be allocated with Topology locality" {
		t.Errorf("table = %+v", ev)
	}
	ev, err = ParseEvents("events.yaml", readEvidence(t, "events.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	smt := ev.ForReason("SMTAlignmentError")
	if ev.Format != "list" || len(smt) != 1 || smt[0].Object != "pod/perf/odd" || smt[0].Path != "/items/0" || smt[0].From != "kubelet, worker-3" {
		t.Errorf("list = %+v", ev.Events)
	}
	if _, err := ParseEvents("e", []byte("hello\n")); err == nil || !strings.Contains(err.Error(), "kubectl describe pod") {
		t.Errorf("err = %v", err)
	}
}

func TestParseKubeletConfig(t *testing.T) {
	c, err := ParseKubeletConfig("config.yaml", readEvidence(t, "kubelet-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.EffectiveTopologyPolicy() != "single-numa-node" || c.EffectiveTopologyScope() != "pod" || c.CPUManagerPolicy != "static" ||
		c.MemoryManagerPolicy != "static" || c.ReservedSystemCPUs != "0,8" || c.CPUManagerPolicyOptions["full-pcpus-only"] != "true" ||
		c.TopologyManagerPolicyOptions["prefer-closest-numa-nodes"] != "true" || !c.FeatureGates["TopologyManagerPolicyAlphaOptions"] {
		t.Errorf("config = %+v", c)
	}
	if len(c.ReservedMemory) != 2 || c.ReservedMemory[1].NumaNode != 1 || c.ReservedMemory[1].Limits["hugepages-1Gi"] != "0" {
		t.Errorf("reserved memory = %+v", c.ReservedMemory)
	}
	if !c.IsSet("memoryManagerPolicy") || c.IsSet("evictionHard") {
		t.Errorf("set = %v", c.Set)
	}
	empty, err := ParseKubeletConfig("c", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"))
	if err != nil || empty.EffectiveMemoryManagerPolicy() != "None" || empty.EffectiveCPUManagerPolicy() != "none" {
		t.Errorf("defaults: %v %+v", err, empty)
	}
}

func TestParseKubeletConfigErrors(t *testing.T) {
	for in, want := range map[string]string{
		"kind: Pod\n": "/kind",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: [a]\n":                            "/topologyManagerPolicy",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nreservedMemory:\n- limits: {memory: 1Gi}\n":              "/reservedMemory/0/numaNode",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nreservedMemory:\n- numaNode: 0\n  limits: {memory: x}\n": "/reservedMemory/0/limits/memory",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates: {A: maybe}\n":                              "/featureGates/A",
		"- a\n": "mapping",
	} {
		_, err := ParseKubeletConfig("k.yaml", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "k.yaml") {
			t.Errorf("%q: err = %v, want %s", in, err, want)
		}
	}
}

func FuzzParseEvents(f *testing.F) {
	for _, n := range []string{"describe-pod.txt", "events-table.txt", "events.yaml"} {
		f.Add(readEvidence(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			ev, err := ParseEvents("fuzz", data)
			if err != nil {
				return
			}
			for _, e := range ev.Events {
				if e.Line < 0 {
					t.Fatal("negative line")
				}
			}
		})
	})
}

func FuzzParsePods(f *testing.F) {
	f.Add(readEvidence(f, "pod-guaranteed.yaml"))
	f.Add([]byte(`{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1500m"}}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			pods, err := ParsePods("fuzz", data)
			if err != nil {
				return
			}
			for _, p := range pods {
				switch p.QOSClass {
				case "":
					t.Fatal("empty QoS class")
				}
			}
		})
	})
}

func FuzzParseKubeletConfig(f *testing.F) {
	f.Add(readEvidence(f, "kubelet-config.yaml"))
	f.Add([]byte(`{"kubeletconfig":{"memoryManagerPolicy":"Static"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			c, err := ParseKubeletConfig("fuzz", data)
			if err != nil {
				return
			}
			_ = c.EffectiveTopologyPolicy()
		})
	})
}
