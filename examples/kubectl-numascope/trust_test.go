package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/numascope/numascope/internal/cluster"
	"github.com/numascope/numascope/internal/fuzzbudget"
)

// agentImageForTests is the image of the numascope-agent DaemonSet the
// cluster tests create.
var agentImageForTests = "registry.example/numascope-agent@sha256:" + strings.Repeat("ab", 32)

// TestHostileKubelet runs the plugin against a real kube-apiserver whose
// node "evil" has a kubelet that answers every request with a redirect to
// a recorder: what a compromised node would do to steal the credentials of
// whoever diagnoses it.
func TestHostileKubelet(t *testing.T) {
	if !cluster.InNetns(t) {
		return
	}
	ctx := context.Background()
	c := &testCluster{Cluster: cluster.Start(t, cluster.Options{}),
		kubelets: map[string]*cluster.Kubelet{}, bundles: map[string]string{}}
	cs := c.Client
	rec := cluster.StartRecorder(t)
	evil := cluster.StartKubelet(t)
	for _, p := range []string{"/configz", "/logs/", "/containerLogs/"} {
		evil.Redirect(p, rec.URL()+p)
	}
	c.kubelets["evil"] = evil
	c.bundles["evil"] = bundleLine(t, "evil", map[string]string{"cpu_manager_state": "cpu_manager_state"})
	_, err := c.AddNode(ctx, cluster.Node{Name: "evil", Port: evil.Port(), Capacity: map[string]string{"cpu": "8"}})
	require.NoError(t, err)
	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "victim"},
		Spec:       corev1.PodSpec{NodeName: "evil", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "numascope"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	labels := map[string]string{"app": "numascope-agent"}
	_, err = cs.AppsV1().DaemonSets("numascope").Create(ctx, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "numascope-agent"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: agentImageForTests}}}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	agent, err := cs.CoreV1().Pods("numascope").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-evil", Labels: labels},
		Spec:       corev1.PodSpec{NodeName: "evil", Containers: []corev1.Container{{Name: "agent", Image: agentImageForTests}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	agent.Status.Phase = corev1.PodRunning
	_, err = cs.CoreV1().Pods("numascope").UpdateStatus(ctx, agent, metav1.UpdateOptions{})
	require.NoError(t, err)
	kctx, stopKubelet := context.WithCancel(ctx)
	played := make(chan struct{})
	t.Cleanup(func() { stopKubelet(); <-played })
	go func() { defer close(played); c.playKubelet(t, kctx) }()

	// huge: a kubelet whose /configz never ends and whose log trickles, and
	// 20 pods of 1 MiB each (etcd stores at most 1.5 MiB per object).
	huge := cluster.StartKubelet(t)
	huge.Override("/configz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kubeletconfig":{"a":"`)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 256 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}}`)
	}))
	huge.Override("/logs/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := io.WriteString(w, "I"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	_, err = c.AddNode(ctx, cluster.Node{Name: "huge", Port: huge.Port(), Capacity: map[string]string{"cpu": "8"}})
	require.NoError(t, err)
	for i := range 20 {
		_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%02d", i)},
			Spec: corev1.PodSpec{NodeName: "huge", Containers: []corev1.Container{{Name: "c", Image: "busybox",
				Env: []corev1.EnvVar{{Name: "BIG", Value: strings.Repeat("x", 1<<20)}}}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	// A cluster administrator's bearer token: what the hostile kubelet is after.
	admin := c.TokenKubeconfig(t, "ci", "diag")
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "diag"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ci", Name: "diag"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		code, _, _ := plugin(t, "--kubeconfig", admin, "diagnose", "pod/victim", "-n", "default", "--no-node-access")
		return code != 2
	}, 10*time.Second, 200*time.Millisecond, "the binding takes effect")

	for _, tc := range []struct {
		name string
		args []string
		// want are in stderr (diagnose, gather) or in the node's row (nodes).
		want []string
	}{
		{"diagnose", []string{"diagnose", "pod/victim", "-n", "default"},
			[]string{"node evil", "/configz", "/logs/", "redirect"}},
		{"gather", []string{"gather", "node/evil", "--out", filepath.Join(t.TempDir(), "evil")},
			[]string{"node evil", "/configz", "redirect"}},
		{"nodes", []string{"nodes", "-o", "json"}, []string{"redirect"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.Requests())
			code, out, errOut := plugin(t, append([]string{"--kubeconfig", admin}, tc.args...)...)
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			got := rec.Requests()[before:]
			withAuth := 0
			for _, r := range got {
				if r.Authorization != "" {
					withAuth++
				}
			}
			var paths []string
			for _, r := range got {
				paths = append(paths, r.Method+" "+r.Path)
			}
			t.Logf("the redirect target received %d requests, %d with an Authorization header: %v", len(got), withAuth, paths)
			assert.Empty(t, got, "the redirect target must receive nothing")
			text := errOut
			if tc.name == "nodes" {
				text = out
			}
			for _, w := range tc.want {
				assert.Contains(t, text, w)
			}
			assert.NotContains(t, out+errOut, "stolen", "the redirect target's answer is not taken for the node's")
		})
	}

	t.Run("answers over their bounds", func(t *testing.T) {
		var code int
		var errOut string
		var before, after runtime.MemStats
		start := time.Now()
		fuzzbudget.RunWith(t, fuzzbudget.Budget{Time: 30 * time.Second, Alloc: 256 << 20}, func() {
			runtime.ReadMemStats(&before)
			code, _, errOut = plugin(t, "--kubeconfig", admin, "--timeout", "3s", "gather", "node/huge", "--no-node-access", "--out", filepath.Join(t.TempDir(), "huge"))
			runtime.ReadMemStats(&after)
		})
		t.Logf("gather node/huge: exit %d in %s, %d MiB allocated\n%s", code, time.Since(start).Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, errOut)
		assert.Equal(t, 0, code, "what could be read is written")
		for _, want := range []string{
			"reading /configz of node huge: the kubelet's answer to /configz is over 1 MiB: refused",
			"reading the kubelet log of node huge: the API server did not finish its answer to GET /api/v1/nodes/huge/proxy/logs/ within 3s: given up",
			"listing the pods of node huge: the API server's answer to GET /api/v1/pods is over 16 MiB: refused",
		} {
			assert.Contains(t, errOut, want)
		}
	})
}
