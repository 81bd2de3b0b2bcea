package evidence

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func readEvidence(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "evidence", name))
	require.NoError(t, err)
	return b
}

func TestParsePod(t *testing.T) {
	pods, err := ParsePods("pod.yaml", readEvidence(t, "pod-guaranteed.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, pods, "pods")
	p := pods[0]
	assert.Equal(t, "default/guaranteed", p.Ref(), "pod ref")
	assert.EqualValues(t, "Guaranteed", p.QOSClass, "QoS class")
	assert.Equal(t, "TopologyAffinityError", p.Reason, "reason")
	assert.Equal(t, "Job", p.OwnerKind, "owner kind")
	assert.Equal(t, "worker-1", p.NodeName, "node name")
	if assert.Len(t, p.InitContainers, 2, "init containers") {
		assert.True(t, p.InitContainers[0].Terminated, "init container 0 terminated")
		assert.False(t, p.InitContainers[0].IsRestartable(), "init container 0 restartable")
		assert.True(t, p.InitContainers[1].IsRestartable(), "init container 1 restartable")
	}
	require.NotEmpty(t, p.Containers, "containers")
	app := p.Containers[0]
	q, ok := app.Resources.Requested("memory")
	assert.True(t, ok, "memory is requested")
	assert.EqualValues(t, 150<<30, q.Value(), "memory = %s", q)
	q, ok = app.Resources.Requested("cpu")
	assert.True(t, ok, "cpu is requested")
	assert.EqualValues(t, 4, q.Value(), "cpu = %s", q)
	assert.True(t, q.IsInteger(), "cpu %s is an integer", q)
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
	require.NoError(t, err)
	require.Len(t, pods, 3, "pods")
	got := []string{string(pods[0].QOSClass), string(pods[1].QOSClass), string(pods[2].QOSClass)}
	assert.Equal(t, []string{"Guaranteed", "Burstable", "BestEffort"}, got, "QoS classes")
	assert.Equal(t, "/items/1", pods[1].Path, "path of pod 1")
}

func TestParsePodErrorsNameField(t *testing.T) {
	_, err := ParsePods("p.yaml", []byte("kind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {cpu: lots}}\n"))
	require.Error(t, err, "bad cpu quantity")
	assert.Contains(t, err.Error(), "p.yaml: /spec/containers/0/resources/limits/cpu")
	_, err = ParsePods("p.yaml", []byte("kind: Node\n"))
	require.Error(t, err, "wrong kind")
	assert.Contains(t, err.Error(), "/kind")
	_, err = ParsePods("p.yaml", []byte("a: [\n"))
	require.Error(t, err, "broken YAML")
	assert.Contains(t, err.Error(), "p.yaml")
}

func TestParseEventsDescribe(t *testing.T) {
	ev, err := ParseEvents("describe.txt", readEvidence(t, "describe-pod.txt"))
	require.NoError(t, err)
	assert.Equal(t, "describe", ev.Format, "format")
	require.NotNil(t, ev.Pod, "pod")
	assert.Equal(t, "guaranteed", ev.Pod.Name, "pod name")
	assert.Equal(t, "TopologyAffinityError", ev.Pod.Reason, "pod reason")
	assert.EqualValues(t, "Guaranteed", ev.Pod.QOSClass, "pod QoS class")
	tae := ev.ForReason("TopologyAffinityError")
	if assert.Len(t, tae, 1, "TopologyAffinityError events in %+v", ev.Events) {
		assert.Equal(t, "Warning", tae[0].Type, "event type")
		assert.Equal(t, "Resources cannot be allocated with Topology locality", tae[0].Message, "event message")
		assert.Equal(t, "kubelet, dell8", tae[0].From, "event source")
		assert.Equal(t, 28, tae[0].Line, "event line")
	}
	if ev.Pod.Lines["Reason"] != 10 {
		t.Errorf("reason line = %d", ev.Pod.Lines["Reason"])
	}
}

func TestParseEventsTableAndList(t *testing.T) {
	ev, err := ParseEvents("events.txt", readEvidence(t, "events-table.txt"))
	require.NoError(t, err)
	tae := ev.ForReason("TopologyAffinityError")
	assert.Equal(t, "events-table", ev.Format, "format of the table")
	if assert.Len(t, tae, 1, "TopologyAffinityError events in the table") {
		assert.Equal(t, "pod/guaranteed", tae[0].Object, "event object")
		assert.Equal(t, 3, tae[0].Line, "event line")
		assert.Equal(t, "Resources cannot be allocated with Topology locality", tae[0].Message, "event message")
	}
	ev, err = ParseEvents("events.yaml", readEvidence(t, "events.yaml"))
	require.NoError(t, err)
	smt := ev.ForReason("SMTAlignmentError")
	assert.Equal(t, "list", ev.Format, "format of the list")
	if assert.Len(t, smt, 1, "SMTAlignmentError events in %+v", ev.Events) {
		assert.Equal(t, "pod/perf/odd", smt[0].Object, "event object")
		assert.Equal(t, "/items/0", smt[0].Path, "event path")
		assert.Equal(t, "kubelet, worker-3", smt[0].From, "event source")
	}
	_, err = ParseEvents("e", []byte("hello\n"))
	if assert.Error(t, err, "not events") {
		assert.Contains(t, err.Error(), "kubectl describe pod", "the error says what to give")
	}
}

func TestParseKubeletConfig(t *testing.T) {
	c, err := ParseKubeletConfig("config.yaml", readEvidence(t, "kubelet-config.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "single-numa-node", c.EffectiveTopologyPolicy(), "topology manager policy")
	assert.Equal(t, "pod", c.EffectiveTopologyScope(), "topology manager scope")
	assert.Equal(t, "static", c.CPUManagerPolicy, "cpuManagerPolicy")
	assert.Equal(t, "static", c.MemoryManagerPolicy, "memoryManagerPolicy")
	assert.Equal(t, "0,8", c.ReservedSystemCPUs, "reservedSystemCPUs")
	assert.Equal(t, "true", c.CPUManagerPolicyOptions["full-pcpus-only"], "cpuManagerPolicyOptions full-pcpus-only")
	assert.Equal(t, "true", c.TopologyManagerPolicyOptions["prefer-closest-numa-nodes"], "topologyManagerPolicyOptions prefer-closest-numa-nodes")
	assert.True(t, c.FeatureGates["TopologyManagerPolicyAlphaOptions"], "feature gate TopologyManagerPolicyAlphaOptions")
	if assert.Len(t, c.ReservedMemory, 2, "reservedMemory") {
		assert.EqualValues(t, 1, c.ReservedMemory[1].NumaNode, "numaNode of reservedMemory 1")
		assert.Equal(t, "0", c.ReservedMemory[1].Limits["hugepages-1Gi"], "hugepages-1Gi of reservedMemory 1")
	}
	assert.True(t, c.IsSet("memoryManagerPolicy"), "memoryManagerPolicy is set: %v", c.Set)
	assert.False(t, c.IsSet("evictionHard"), "evictionHard is set: %v", c.Set)
	empty, err := ParseKubeletConfig("c", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"))
	require.NoError(t, err, "empty config")
	assert.Equal(t, "None", empty.EffectiveMemoryManagerPolicy(), "default memory manager policy")
	assert.Equal(t, "none", empty.EffectiveCPUManagerPolicy(), "default cpu manager policy")
}

func TestParseKubeletConfigErrors(t *testing.T) {
	for in, want := range map[string]string{
		"kind: Pod\n": "/kind",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: [a]\n":                            "/topologyManagerPolicy",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nreservedMemory:\n- numaNode: 0\n  limits: {memory: x}\n": "/reservedMemory/0/limits/memory",
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates: {A: maybe}\n":                              "/featureGates/A",
		"- a\n": "mapping",
	} {
		_, err := ParseKubeletConfig("k.yaml", []byte(in))
		if assert.Error(t, err, "%q", in) {
			assert.Contains(t, err.Error(), want, "%q: the error names the field", in)
			assert.Contains(t, err.Error(), "k.yaml", "%q: the error names the file", in)
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
				if !strings.HasPrefix(err.Error(), "fuzz") {
					t.Fatalf("the error does not name the input: %v", err)
				}
				return
			}
			switch ev.Format {
			case "list", "events-table", "kubectl-events", "get-pods-table", "kubelet-message", "describe", "describe-fragment":
			default:
				t.Fatalf("format %q", ev.Format)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range ev.Events {
				if e.Line < 0 || e.Line > lines {
					t.Fatalf("line %d of %d", e.Line, lines)
				}
				if e.Inferred && e.Message == "" {
					t.Fatal("a reason inferred from no message")
				}
			}
			if len(ev.Warnings) > maxEventWarnings {
				t.Fatalf("%d warnings", len(ev.Warnings))
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
