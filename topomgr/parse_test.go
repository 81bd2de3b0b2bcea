package topomgr

import (
	"strings"
	"testing"

	"github.com/numascope/numascope/podresources"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseQuantity(t *testing.T) {
	// Values and accept/reject as k8s.io/apimachinery's resource.ParseQuantity
	// gives them (checked against it by internal/conformance).
	for _, tc := range []struct {
		in           string
		value, milli int64
		integer      bool
		str          string
	}{
		{"2", 2, 2000, true, "2"},
		{"500m", 1, 500, false, "0.5"},
		{"1500m", 2, 1500, false, "1.5"},
		{"1.5", 2, 1500, false, "1.5"},
		{"1.5m", 1, 2, false, "0.0015"},
		{"3.0001", 4, 3001, false, "3.0001"},
		{"1Gi", 1 << 30, 1000 << 30, true, "1073741824"},
		{"1e3", 1000, 1000000, true, "1000"},
		{"2k", 2000, 2000000, true, "2000"},
		{"0.5Ki", 512, 512000, true, "512"},
		{"1E-3", 1, 1, false, "0.001"},
		{"100u", 1, 1, false, "0.0001"},
		{"+3", 3, 3000, true, "3"},
		{"e3", 0, 0, true, "0"},                                     // the API server reads a bare suffix as 0
		{"m", 0, 0, true, "0"},                                      //
		{".5", 1, 500, false, "0.5"},                                // no digit before the point
		{"1.", 1, 1000, true, "1"},                                  // none after it
		{"1e-12", 1, 1, false, "0.000000001"},                       // rounded up to 1n
		{"0.0000000015", 1, 1, false, "0.000000002"},                //
		{"10Ei", 1<<63 - 1, 1<<63 - 1, true, "9223372036854775807"}, // binary quantities are capped
		{"1e4294967296", 1, 1000, true, "1"},                        // the exponent wraps at 32 bits, as upstream
	} {
		t.Run(tc.in, func(t *testing.T) {
			q, err := ParseQuantity(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.value, q.Value(), "Value")
			assert.Equal(t, tc.milli, q.MilliValue(), "MilliValue")
			assert.Equal(t, tc.integer, q.IsInteger(), "IsInteger")
			assert.Equal(t, tc.str, q.String(), "String")
			back, err := ParseQuantity(q.String())
			require.NoError(t, err)
			assert.Zero(t, back.Cmp(q), "String reads back to the same value")
		})
	}
	for _, bad := range []string{"", "two", "1Gb", "1.2.3", "1e", "--1", " 1", "1 ", "1K", "1mi", "1ee3", "e-10", "0x10", "1e1001", "1" + strings.Repeat("0", 1000)} {
		t.Run("refuses "+bad, func(t *testing.T) {
			_, err := ParseQuantity(bad)
			require.Error(t, err)
			assert.ErrorIs(t, err, errQuantity)
		})
	}
}

func TestPodQOS(t *testing.T) {
	// As the kubelet's GetPodQOS (1.37) computes it.
	for _, tc := range []struct {
		name, manifest string
		want           podresources.QOSClass
	}{
		{"limits only: requests default to them", `{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"2","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"request below limit", `{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2","memory":"1Gi"}}}]}}`, podresources.Burstable},
		{"nothing", `{"spec":{"containers":[{"name":"a"}]}}`, podresources.BestEffort},
		{"only a device", `{"spec":{"containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}`, podresources.BestEffort},
		{"one guaranteed, one best-effort", `{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"2","memory":"1Gi"}}},{"name":"b"}]}}`, podresources.Burstable},
		{"status wins", `{"spec":{"containers":[{"name":"a"}]},"status":{"qosClass":"Guaranteed"}}`, podresources.Guaranteed},
		{"pod-level requests and limits", `{"spec":{"resources":{"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"2","memory":"1Gi"}},"containers":[{"name":"a"}]}}`, podresources.Guaranteed},
		{"pod-level limits only: requests default to them", `{"spec":{"resources":{"limits":{"cpu":"2","memory":"1Gi"}},"containers":[{"name":"a"}]}}`, podresources.Guaranteed},
		{"pod-level limits, container requests below", `{"spec":{"resources":{"limits":{"cpu":"2","memory":"1Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}}`, podresources.Burstable},
		// Pod-level limits of a device only: the API server still defaults
		// pod-level cpu and memory requests from the containers, which then
		// have no pod-level limit.
		// The API server defaults pod-level cpu and memory from the containers
		// (PodLevelResourcesFixDefaulting), so the class is theirs.
		{"pod-level limits of a device only", `{"spec":{"resources":{"limits":{"nvidia.com/gpu":"1"}},"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"pod-level limits above the containers' requests", `{"spec":{"resources":{"limits":{"cpu":"4","memory":"2Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Burstable},
		{"pod-level huge pages only, containers guaranteed", `{"spec":{"resources":{"limits":{"hugepages-2Mi":"2Mi"}},"containers":[{"name":"a","resources":{"limits":{"cpu":"2","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"pod-level requests of a device only are ignored", `{"spec":{"resources":{"requests":{"nvidia.com/gpu":"1"}},"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"empty pod-level resources are ignored", `{"spec":{"resources":{},"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"init container counts", `{"spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Burstable},
		{"restartable init container counts", `{"spec":{"initContainers":[{"name":"i","restartPolicy":"Always","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`, podresources.Guaranteed},
		{"3.0001 CPUs is not 3", `{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"3"},"limits":{"cpu":"3.0001","memory":"1Gi"}}}]}}`, podresources.Burstable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePod([]byte(tc.manifest))
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.QOS())
		})
	}
}

func TestParsePods(t *testing.T) {
	list := `{"kind":"List","items":[
	  {"kind":"Pod","metadata":{"name":"a","namespace":"n","ownerReferences":[{"kind":"Job","controller":true}]},"spec":{"nodeName":"w1","containers":[{"name":"c"}]},
	   "status":{"phase":"Failed","reason":"TopologyAffinityError","containerStatuses":[{"name":"c","state":{"terminated":{"exitCode":0}}}]}},
	  {"kind":"Service"},
	  {"metadata":{"name":"b","namespace":"n"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":2}}}]}}]}`
	pods, err := ParsePods([]byte(list))
	require.NoError(t, err)
	require.Len(t, pods, 2)
	want := []*Pod{
		{Name: "a", Namespace: "n", UID: "uid-of-n/a", Path: "/items/0", NodeName: "w1", OwnerKind: "Job", Phase: "Failed", Reason: "TopologyAffinityError",
			Containers: []Container{{Name: "c", Path: "/items/0/spec/containers/0", Terminated: true}}},
		{Name: "b", Namespace: "n", UID: "uid-of-n/b", Path: "/items/2",
			Containers: []Container{{Name: "c", Path: "/items/2/spec/containers/0", Resources: Resources{Requests: map[string]string{"cpu": "2"}, Limits: map[string]string{"cpu": "2"}}}}},
	}
	assert.Empty(t, cmp.Diff(want, pods))
	_, err = ParsePod([]byte(list))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `/kind: "List" is not a Pod`)
}

func TestParsePodErrors(t *testing.T) {
	for in, want := range map[string]string{
		"kind: Service\nspec: {}":                    `/kind: "Service" is not a Pod`,
		"kind: Pod\nspec: {containers: []}":          "/spec/containers: a pod needs at least one container",
		"spec: {containers: [{name: a}, {name: a}]}": `/spec/containers/1/name: "a" is used twice`,
		"spec: {containers: [{resources: {}}]}":      "/spec/containers/0/name: missing",
		"spec: {initContainers: [{name: i, resources: {requests: {memory: lots}}}], containers: [{name: a}]}": "/spec/initContainers/0/resources/requests/memory",
		"{": "not YAML or JSON",
	} {
		_, err := ParsePod([]byte(in))
		if assert.Error(t, err, "%q", in) {
			assert.Contains(t, err.Error(), want, "%q", in)
		}
	}
}

func FuzzParsePod(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d, uid: u}\nspec:\n  initContainers:\n  - name: i\n    restartPolicy: Always\n    resources: {limits: {cpu: 1, memory: 1Gi}}\n  containers:\n  - name: c\n    resources: {limits: {cpu: \"2\", memory: 2Gi, nvidia.com/gpu: 1}}\n"))
	f.Add([]byte(`{"spec":{"resources":{"requests":{"cpu":"500m"}},"containers":[{"name":"a"}]},"status":{"qosClass":"Burstable"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			p, err := ParsePod(data)
			if err != nil {
				return
			}
			_ = p.QOS() // must not panic
			for _, c := range p.AllContainers() {
				for k := range c.Resources.Requests {
					_, err := ParseQuantity(c.Resources.Requests[k])
					require.NoError(t, err, "accepted pod has a bad quantity %q", c.Resources.Requests[k])
				}
			}
		})
	})
}

func FuzzParseMachineInfo(f *testing.F) {
	f.Add([]byte(`{"num_cores":4,"topology":[{"node_id":0,"memory":1024,"distances":[10,20],"cores":[{"core_id":0,"thread_ids":[0,2],"socket_id":0}]},{"node_id":1,"memory":1024,"distances":[20,10],"cores":[{"core_id":1,"thread_ids":[1,3],"socket_id":1}]}]}`))
	f.Add([]byte(`{"topology":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			m, err := ParseMachine(data)
			if err != nil {
				return
			}
			require.NoError(t, m.check(), "accepted machine fails its check")
			for _, n := range m.CPUNUMANodes() {
				require.GreaterOrEqual(t, n, 0, "NUMA node accepted")
				require.LessOrEqual(t, n, maxNUMANodeID, "NUMA node accepted")
			}
		})
	})
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"2", "500m", "1Gi", "1e3", "0.5Ki", "-1", "1E-3", "3.0001", "1.5m", "10Ei", "1e-12", "e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			q, err := ParseQuantity(s)
			if err != nil {
				return
			}
			if q.Value() > 0 {
				require.GreaterOrEqual(t, q.MilliValue(), q.Value(), "%q: milli value below value", s)
			}
			back, err := ParseQuantity(q.String())
			require.NoError(t, err, "%q prints as %q", s, q.String())
			assert.Zero(t, back.Cmp(q), "%q prints as %q, which reads back as %s", s, q.String(), back)
		})
	})
}

func TestParseKubeletConfig(t *testing.T) {
	c, err := ParseKubeletConfig([]byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\ntopologyManagerPolicy: restricted\ntopologyManagerPolicyOptions:\n  prefer-closest-numa-nodes: \"true\"\nreservedSystemCPUs: \"0-1\"\nfeatureGates: {PodLevelResourceManagers: true}\n"))
	require.NoError(t, err)
	assert.EqualValues(t, "restricted", c.TopologyManagerPolicy, "topologyManagerPolicy")
	assert.EqualValues(t, "container", c.TopologyManagerScope, "topologyManagerScope (default)")
	assert.EqualValues(t, "None", c.MemoryManagerPolicy, "memoryManagerPolicy (default)")
	assert.Equal(t, "true", c.TopologyManagerPolicyOptions[PreferClosestNUMANodes], "topologyManagerPolicyOptions")
	assert.Equal(t, "0-1", c.ReservedSystemCPUs, "reservedSystemCPUs")
	assert.True(t, c.Gates().PodLevelResourceManagers, "featureGates: PodLevelResourceManagers")
	_, err = ParseKubeletConfig([]byte("kind: Pod\n"))
	assert.Error(t, err, "a Pod accepted as a KubeletConfiguration")
}

func FuzzParseKubeletConfig(f *testing.F) {
	f.Add([]byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			c, err := ParseKubeletConfig(data)
			if err != nil {
				return
			}
			require.NotEmpty(t, c.TopologyManagerPolicy, "default topologyManagerPolicy not filled in")
			require.NotEmpty(t, c.TopologyManagerScope, "default topologyManagerScope not filled in")
		})
	})
}
