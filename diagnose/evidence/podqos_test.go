package evidence

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/podresources"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pods of a PodResources snapshot directory (its pods.json) and the
// pods given as evidence are read by the one pod reader, topomgr.ParsePods,
// and get one answer where podresources.QOSClassesFromPods and ParsePods
// used to disagree: a YAML pod was "not valid JSON" to the first, a List
// with an Event first was refused by it, and a pod without status was left
// out by it where ParsePods computes the class from the spec. The
// kubelet's answer wins: it computes a pod's QoS class from its spec
// (qos.GetPodQOS) when status carries none, and kubectl's lists are read
// item by item.
func TestOnePodReaderOneAnswer(t *testing.T) {
	const guaranteed = `{"kind":"Pod","metadata":{"name":"db","namespace":"shop"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"2","memory":"1Gi"}}}]}}`
	for _, tc := range []struct {
		name, pods string
		want       podresources.QOSClass
	}{
		{"a YAML pod", "apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: shop}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 500m}}\nstatus: {qosClass: Burstable}\n", podresources.Burstable},
		{"a List with an Event first", `{"kind":"List","items":[{"kind":"Event","metadata":{"name":"e","namespace":"shop"},"reason":"Scheduled"},` + guaranteed + `]}`, podresources.Guaranteed},
		{"a pod without status", guaranteed, podresources.Guaranteed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// the pods as evidence (--pod, a pasted pod)
			pods, err := ParsePods("pods.json", []byte(tc.pods))
			require.NoError(t, err, "as evidence")
			require.Len(t, pods, 1, "pods as evidence")
			assert.Equal(t, tc.want, pods[0].QOSClass, "QoS class as evidence")
			// the same file as a snapshot's pods.json
			classes, err := PodQOSClasses([]byte(tc.pods))
			require.NoError(t, err, "PodQOSClasses")
			assert.Empty(t, cmp.Diff(map[string]podresources.QOSClass{"shop/db": tc.want}, classes), "classes (-want +got)")
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, podresources.ListFile), []byte(`{"pods":[{"name":"db","namespace":"shop","containers":[{"name":"c"}]}]}`), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, podresources.PodsFile), []byte(tc.pods), 0o644))
			snap, err := podresources.LoadDir(dir, podresources.WithPods(PodQOSClasses))
			require.NoError(t, err, "LoadDir")
			require.NotNil(t, snap.Pod("shop", "db"), "the snapshot's pod")
			assert.Equal(t, tc.want, snap.Pod("shop", "db").QOSClass, "QoS class in the snapshot")
		})
	}
}

func TestPodQOSClassesRefuses(t *testing.T) {
	for _, tc := range []struct{ name, pods, want string }{
		{"another kind", `{"kind":"Node"}`, `"Node" is not a Pod`},
		{"a workload without a template", `{"kind":"Deployment"}`, `kind "Deployment": expected a Pod, PodList or List`},
		{"only templates", `{"kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}`, "only the pod templates"},
		{"no namespace", `{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c"}]}}]}`, "/items/0/metadata: the pod has no name or namespace"},
		{"no containers", `{"kind":"Pod","metadata":{"name":"a","namespace":"n"}}`, "/spec/containers: a pod needs at least one container"},
		{"not JSON", "{\n\"kind\": }", "pod"},
		{"a table", "NAME   READY   STATUS\nweb    1/1     Running\n", "events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PodQOSClasses([]byte(tc.pods))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// FuzzPodQOSClasses checks that reading kubectl's pod lists for a
// snapshot never panics, stays within the budget and yields only classes
// keyed by namespace/name.
func FuzzPodQOSClasses(f *testing.F) {
	f.Add([]byte(`{"kind":"List","items":[{"kind":"Event"},{"kind":"Pod","metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c"}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			classes, err := PodQOSClasses(data)
			if err != nil {
				return
			}
			require.NotEmpty(t, classes, "no error and no class")
			for ref, q := range classes {
				require.NotEmpty(t, q, "entry %q: empty class", ref)
				require.Contains(t, ref, "/", "entry %q: not namespace/name", ref)
			}
		})
	})
}
