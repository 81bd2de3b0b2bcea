package cluster_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/numascope/numascope/internal/cluster"
)

// TestProxiesReachTheFakeKubelet proves the harness: the API server's node
// proxy and pod log endpoint carry requests to the fake kubelet.
func TestProxiesReachTheFakeKubelet(t *testing.T) {
	if !cluster.InNetns(t) {
		return
	}
	ctx := context.Background()
	c := cluster.Start(t, cluster.Options{})
	k := cluster.StartKubelet(t)
	k.LogQuery = true
	k.Config = json.RawMessage(`{"topologyManagerPolicy":"single-numa-node"}`)
	k.Log = "I1129 10:00:00.310000    2101 topology_manager.go:215] \"Topology Admit Handler\"\n"
	_, err := c.AddNode(ctx, cluster.Node{Name: "n1", Port: k.Port(), Capacity: map[string]string{"cpu": "4"}})
	require.NoError(t, err)

	raw, err := c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/n1/proxy/configz").DoRaw(ctx)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kubeletconfig":{"topologyManagerPolicy":"single-numa-node"}}`, string(raw))

	raw, err = c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/n1/proxy/logs/").Param("query", "kubelet").DoRaw(ctx)
	require.NoError(t, err)
	assert.Equal(t, k.Log, string(raw), "the log query answers with the log")

	k.Lock()
	k.LogQuery = false
	k.Unlock()
	raw, err = c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/n1/proxy/logs/").Param("query", "kubelet").DoRaw(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(raw), "<pre>", "without the log query the kubelet lists /var/log")

	_, err = c.Client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	k.SetContainerLog("default", "p", "c", "hello\n")
	rc, err := c.Client.CoreV1().Pods("default").GetLogs("p", &corev1.PodLogOptions{Container: "c"}).Stream(ctx)
	require.NoError(t, err)
	defer rc.Close()
	out, err := io.ReadAll(rc)
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(out))
	assert.Equal(t, 1, k.Served("/containerLogs/default/p/c"))
}

// TestAPIServerBinary builds (or finds cached) the kube-apiserver the
// cluster tests run; .ci/run runs it first, with a long timeout, so that a
// cold build does not eat the time of the tests that follow.
func TestAPIServerBinary(t *testing.T) {
	start := time.Now()
	p, err := cluster.APIServerBinary()
	if err != nil {
		if os.Getenv(cluster.RequireEnv) == "1" {
			t.Fatalf("building kube-apiserver: %v", err)
		}
		t.Skipf("kube-apiserver cannot be built here: %v", err)
	}
	t.Logf("kube-apiserver %s at %s (%s)", cluster.KubernetesVersion, p, time.Since(start).Round(time.Millisecond))
	out, err := exec.Command(p, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "Kubernetes "+cluster.KubernetesVersion, strings.TrimSpace(string(out)))
}
