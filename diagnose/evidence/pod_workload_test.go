package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/poddoc"
)

func TestParsePodsDeployment(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "pods-deployment", "pod-deployment.yaml"))
	require.NoError(t, err)
	pods, err := ParsePods("deploy.yaml", b)
	require.NoError(t, err)
	require.Len(t, pods, 1, "pods")
	p := pods[0]
	assert.Equal(t, "telco/dpdk-fwd", p.Ref(), "the template pod is named after the Deployment")
	assert.Equal(t, "/spec/template", p.Path, "path")
	assert.Equal(t, "deploy.yaml", p.Source, "source")
	assert.EqualValues(t, "Guaranteed", p.QOSClass, "QoS computed from the template")
	assert.Equal(t, "ReplicaSet", p.OwnerKind, "a Deployment's pods are owned by its ReplicaSet")
	if assert.Len(t, p.Warnings(), 1, "warnings") {
		assert.Contains(t, p.Warnings()[0], "QoS computed from the template")
	}
}

func TestParsePodsTableWrapsErrNotPodObject(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "events-get-pods-table", "events-pods.txt"))
	require.NoError(t, err)
	_, err = ParsePods("pods.txt", b)
	require.Error(t, err)
	assert.True(t, errors.Is(err, poddoc.ErrNotPodObject), "%v wraps poddoc.ErrNotPodObject", err)
	assert.Contains(t, err.Error(), "pods.txt: not a Pod object: this is a `kubectl get pods` table")
	ev, err := ParseEvents("pods.txt", b)
	require.NoError(t, err, "the same text reads as events")
	assert.Len(t, ev.ForReason("TopologyAffinityError"), 2, "rejected rows")
}

// TestParsePodsPasted: pasted text is normalised once, here as in Set.Add;
// topomgr.ParsePods reads clean text only.
func TestParsePodsPasted(t *testing.T) {
	in := "> ```yaml\n> $ kubectl get pod a -n ns -o yaml\n> kind: Pod\n> metadata: {name: a, namespace: ns}\n> spec:\n>   containers: [{name: c}]\n> ```\n"
	pods, err := ParsePods("pod.yaml", []byte(in))
	require.NoError(t, err)
	require.Len(t, pods, 1)
	assert.Equal(t, "ns/a", pods[0].Ref())
	assert.EqualValues(t, "BestEffort", pods[0].QOSClass)
	var set Set
	it := set.Add("pod.yaml", "", []byte(in))
	assert.Equal(t, KindPod, it.Kind)
	require.Len(t, set.Pods, 1)
	assert.Equal(t, "ns/a", set.Pods[0].Ref())
}
