package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	"sigs.k8s.io/yaml"
)

// kubeletQOS returns the QoS class the kubelet uses for a pod manifest. A
// pod read back from the cluster carries status.qosClass, which the kubelet
// takes as it is (GetPodQOS). A manifest without it gets the class the API
// server stores at creation: decoded, defaulted (container requests default
// to limits), then the pod strategy's PrepareForCreate, which defaults
// pod-level resources and computes status.qosClass.
func kubeletQOS(manifest []byte) (v1.PodQOSClass, error) {
	var pod v1.Pod
	if err := yaml.Unmarshal(manifest, &pod); err != nil {
		return "", err
	}
	legacyscheme.Scheme.Default(&pod)
	if pod.Status.QOSClass != "" {
		return qos.GetPodQOS(&pod), nil
	}
	var internal core.Pod
	if err := legacyscheme.Scheme.Convert(&pod, &internal, nil); err != nil {
		return "", err
	}
	podstore.Strategy.PrepareForCreate(context.Background(), &internal)
	return v1.PodQOSClass(internal.Status.QOSClass), nil
}

// randomPodManifest builds a pod with random containers, init containers
// (some of them sidecars), requests and limits (equal, unequal, one of the
// two, none), pod-level resources and sometimes a status.qosClass.
func randomPodManifest(r *rand.Rand) string {
	amounts := map[string][]string{
		"cpu":                {"1", "2", "500m", "1500m", "2000m", "0"},
		"memory":             {"1Gi", "1024Mi", "2Gi", "128974848", "0"},
		"hugepages-2Mi":      {"2Mi", "4Mi"},
		"example.com/device": {"1", "2"},
	}
	names := []string{"cpu", "memory", "hugepages-2Mi", "example.com/device"}
	resources := func(indent string) string {
		var req, lim []string
		for _, n := range names {
			if r.IntN(3) == 0 {
				continue
			}
			a := amounts[n][r.IntN(len(amounts[n]))]
			switch r.IntN(4) {
			case 0:
				req = append(req, fmt.Sprintf("%s    %s: %q", indent, n, a))
			case 1:
				lim = append(lim, fmt.Sprintf("%s    %s: %q", indent, n, a))
			case 2:
				req = append(req, fmt.Sprintf("%s    %s: %q", indent, n, a))
				lim = append(lim, fmt.Sprintf("%s    %s: %q", indent, n, a))
			default:
				b := amounts[n][r.IntN(len(amounts[n]))]
				req = append(req, fmt.Sprintf("%s    %s: %q", indent, n, a))
				lim = append(lim, fmt.Sprintf("%s    %s: %q", indent, n, b))
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%sresources:\n", indent)
		if len(req) > 0 {
			fmt.Fprintf(&b, "%s  requests:\n%s\n", indent, strings.Join(req, "\n"))
		}
		if len(lim) > 0 {
			fmt.Fprintf(&b, "%s  limits:\n%s\n", indent, strings.Join(lim, "\n"))
		}
		if len(req) == 0 && len(lim) == 0 {
			fmt.Fprintf(&b, "%s  {}\n", indent)
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:\n")
	if r.IntN(4) == 0 {
		b.WriteString(resources("  "))
	}
	if n := r.IntN(3); n > 0 {
		b.WriteString("  initContainers:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - name: init%d\n", i)
			if r.IntN(2) == 0 {
				b.WriteString("    restartPolicy: Always\n")
			}
			b.WriteString(resources("    "))
		}
	}
	b.WriteString("  containers:\n")
	for i := range 1 + r.IntN(3) {
		fmt.Fprintf(&b, "  - name: c%d\n", i)
		b.WriteString(resources("    "))
	}
	if r.IntN(8) == 0 {
		classes := []string{"Guaranteed", "Burstable", "BestEffort"}
		fmt.Fprintf(&b, "status:\n  qosClass: %s\n", classes[r.IntN(3)])
	}
	return b.String()
}

// compareQOS returns how numascope's QoS class of a manifest differs from
// the kubelet's, or "".
func compareQOS(manifest string) (string, error) {
	want, err := kubeletQOS([]byte(manifest))
	if err != nil {
		return "", fmt.Errorf("the reference does not read the manifest: %w\n%s", err, manifest)
	}
	pod, err := topomgr.ParsePod([]byte(manifest))
	if err != nil {
		return fmt.Sprintf("numascope refuses a pod the API server reads (%v):\n%s", err, manifest), nil
	}
	if got := string(pod.QOS()); got != string(want) {
		return fmt.Sprintf("QoS %s, the kubelet computes %s:\n%s", got, want, manifest), nil
	}
	return "", nil
}

func TestQOSAgainstKubelet(t *testing.T) {
	tests := []struct{ name, manifest string }{
		{"guaranteed", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n      limits: {cpu: 2, memory: 1Gi}\n"},
		{"burstable", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n      requests: {cpu: 1}\n"},
		{"best effort", "kind: Pod\nspec:\n  containers:\n  - name: a\n"},
		{"equal values in other units", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n      requests: {cpu: 2000m, memory: 1024Mi}\n      limits: {cpu: 2, memory: 1Gi}\n"},
		{"pod-level only", "kind: Pod\nspec:\n  resources:\n    limits: {cpu: 2, memory: 1Gi}\n  containers:\n  - name: a\n"},
		{"pod-level without cpu or memory", "kind: Pod\nspec:\n  resources:\n    limits: {hugepages-2Mi: 2Mi}\n  containers:\n  - name: a\n    resources:\n      limits: {cpu: 2, memory: 1Gi}\n"},
		{"sidecar best effort", "kind: Pod\nspec:\n  initContainers:\n  - name: s\n    restartPolicy: Always\n  containers:\n  - name: a\n    resources:\n      limits: {cpu: 2, memory: 1Gi}\n"},
		{"status wins", "kind: Pod\nspec:\n  containers:\n  - name: a\nstatus:\n  qosClass: Guaranteed\n"},
		{"pod-level device limit only", "kind: Pod\nspec:\n  resources:\n    limits: {nvidia.com/gpu: 1}\n  containers:\n  - name: a\n    resources:\n      limits: {cpu: 1, memory: 1Gi}\n"},
		{"pod-level limits above the containers' requests", "kind: Pod\nspec:\n  resources:\n    limits: {cpu: 4, memory: 2Gi}\n  containers:\n  - name: a\n    resources:\n      requests: {cpu: 1, memory: 1Gi}\n"},
		{"spaces around quantities", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n      requests: {cpu: \" 2\", memory: \"1Gi \"}\n      limits: {cpu: \"2\", memory: 1Gi}\n"},
		{"devices only", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n      limits: {example.com/gpu: 1}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := compareQOS(tt.manifest)
			require.NoError(t, err)
			assert.Empty(t, d)
		})
	}
}

func TestQOSRandomAgainstKubelet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, uint64(randomCount())))
	const n = 3000
	disagree := 0
	for range n {
		d, err := compareQOS(randomPodManifest(r))
		require.NoError(t, err)
		if d != "" {
			disagree++
			if disagree <= 10 {
				t.Error(d)
			}
		}
	}
	t.Logf("%d random pods, %d QoS disagreements with the kubelet", n, disagree)
}
