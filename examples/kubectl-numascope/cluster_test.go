package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cluster"
	"github.com/numascope/numascope/internal/nodebundle"
)

const scenario = "../../diagnose/testdata/troubleshooting-page"

// testCluster is the cluster every subtest of TestAgainstAPIServer shares.
type testCluster struct {
	*cluster.Cluster
	kubelets map[string]*cluster.Kubelet // by node name
	bundles  map[string]string           // the bundle line each node's short-lived pod prints
	// missing are the host paths a node does not have: its kubelet refuses
	// to mount them (a FailedMount event) and the pod does not start.
	missing map[string][]string
	mu      sync.Mutex
	started []string // short-lived pods seen
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenario, name))
	require.NoError(t, err)
	return data
}

// plugin runs kubectl-numascope in-process.
func plugin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestAgainstAPIServer runs the plugin against a real kube-apiserver and
// etcd, with fake kubelets behind the API server's node and pod proxies.
func TestAgainstAPIServer(t *testing.T) {
	if !cluster.InNetns(t) {
		return
	}
	ctx := context.Background()
	c := &testCluster{Cluster: cluster.Start(t, cluster.Options{CRDDirs: []string{"testdata/crds"}}),
		kubelets: map[string]*cluster.Kubelet{}, bundles: map[string]string{}, missing: map[string][]string{}}
	cs := c.Client

	// The page's node dell8: a kubelet with the node log query on, the
	// configuration of the scenario behind /configz, its log behind
	// /logs/?query=kubelet, and its files in the short-lived pod's bundle.
	dell8 := cluster.StartKubelet(t)
	cfg, err := yaml.YAMLToJSON(read(t, "kubelet-config.yaml"))
	require.NoError(t, err)
	dell8.Config, dell8.LogQuery = cfg, true
	c.kubelets["dell8"] = dell8
	c.bundles["dell8"] = bundleLine(t, "dell8", map[string]string{
		"cpu_manager_state": "cpu_manager_state", "memory_manager_state": "memory_manager_state", "machine-info.json": "machine-info.json"})
	_, err = c.AddNode(ctx, cluster.Node{Name: "dell8", Port: dell8.Port(),
		Capacity:    map[string]string{"cpu": "48", "memory": "256Gi"},
		Allocatable: map[string]string{"cpu": "47", "memory": "251Gi"}})
	require.NoError(t, err)

	// dell9: a kubelet without the node log query, whose node has neither
	// memory_manager_state nor dra_manager_state (a kubelet before v1.35
	// with DynamicResourceAllocation off writes no dra_manager_state).
	dell9 := cluster.StartKubelet(t)
	dell9.Config = cfg
	c.kubelets["dell9"] = dell9
	c.bundles["dell9"] = bundleLine(t, "dell9", map[string]string{"cpu_manager_state": "cpu_manager_state"})
	c.missing["dell9"] = []string{"/var/lib/kubelet/memory_manager_state", "/var/lib/kubelet/dra_manager_state"}
	_, err = c.AddNode(ctx, cluster.Node{Name: "dell9", Port: dell9.Port(), Capacity: map[string]string{"cpu": "48"}})
	require.NoError(t, err)

	// The pod the page shows, rejected by dell8's kubelet.
	var pod corev1.Pod
	require.NoError(t, yaml.Unmarshal(read(t, "pod.yaml"), &pod))
	status := pod.Status
	pod.UID, pod.Status = "", corev1.PodStatus{}
	created, err := cs.CoreV1().Pods("default").Create(ctx, &pod, metav1.CreateOptions{})
	require.NoError(t, err)
	created.Status = status
	_, err = cs.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	// The kubelet logs the pod's real UID.
	dell8.Log = strings.ReplaceAll(string(read(t, "kubelet.log")), "3d4c2b1a-5e6f-4a7b-8c9d-0e1f2a3b4c5d", string(created.UID))
	now := metav1.Now()
	_, err = cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "guaranteed.1", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "guaranteed", UID: created.UID, APIVersion: "v1"},
		Reason:         "TopologyAffinityError", Message: "Resources cannot be allocated with Topology locality", Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "kubelet", Host: "dell8"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	// The same pod on dell9, whose kubelet has no log query.
	pod9 := pod.DeepCopy()
	pod9.Name, pod9.Spec.NodeName = "guaranteed-9", "dell9"
	_, err = cs.CoreV1().Pods("default").Create(ctx, pod9, metav1.CreateOptions{})
	require.NoError(t, err)

	// The agent's namespace and DaemonSet (the image of the short-lived pod).
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
	// Stopped before the control plane: an open watch holds its shutdown up.
	kctx, stopKubelet := context.WithCancel(ctx)
	played := make(chan struct{})
	t.Cleanup(func() { stopKubelet(); <-played })
	go func() { defer close(played); c.playKubelet(t, kctx) }()

	// A user bound by rbac.yaml and rbac-kubelet.yaml, and nothing else.
	applyRBAC(t, cs, "rbac-kubelet.yaml")
	user := c.UserKubeconfig(t, "ana", "numascope:users")

	t.Run("diagnose pod/guaranteed gives the finding of diagnose --dir", func(t *testing.T) {
		code, out, errOut := plugin(t, "--kubeconfig", user, "diagnose", "pod/guaranteed", "-o", "json")
		assert.Equal(t, 1, code, errOut)
		var got diagnose.Report
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		want := dirReport(t)
		require.NotEmpty(t, got.Findings, errOut)
		assert.Empty(t, cmp.Diff(essentials(want.Findings), essentials(got.Findings)), "stderr: %s", errOut)
		c.mu.Lock()
		assert.Len(t, c.started, 1, "one short-lived pod")
		c.mu.Unlock()
		left, err := cs.CoreV1().Pods("numascope").List(ctx, metav1.ListOptions{LabelSelector: gatherLabel + "=" + gatherValue})
		require.NoError(t, err)
		assert.Empty(t, left.Items, "the short-lived pod is deleted")

		code, out, errOut = plugin(t, "--kubeconfig", user, "diagnose", "guaranteed", "-n", "default")
		assert.Equal(t, 1, code, errOut)
		t.Logf("kubectl numascope diagnose guaranteed -n default:\n%s\nstderr:\n%s", out, errOut)
		// The text of the finding is the one examples/diagnose --dir prints
		// (diagnose/testdata/troubleshooting-page/expected.txt) up to its
		// evidence list, whose file names differ (events.yaml for
		// describe-pod.txt, kubelet-config.json for kubelet-config.yaml).
		assert.Equal(t, findingText(string(read(t, "expected.txt"))), findingText(out))
		assert.Contains(t, out, "1. [ERROR] TopologyAffinityError: Pod default/guaranteed was rejected with TopologyAffinityError")
		assert.Contains(t, out, "Node: dell8 (kubelet v1.37.2): capacity cpu 48 memory 256Gi, allocatable cpu 47 memory 251Gi")
		assert.True(t, strings.HasPrefix(out, "✗ TopologyAffinityError: Pod default/guaranteed was rejected"), "the headline is the first line")
		code, out, errOut = plugin(t, "--kubeconfig", user, "diagnose", "pod/guaranteed", "-A", "-o", "markdown")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, out, "\n**✗ TopologyAffinityError: Pod default/guaranteed was rejected", "the headline under the Markdown heading")
		assert.NotContains(t, out, "error(s)")
		for _, f := range []string{"-o yaml", "-o markdown"} {
			code, out, errOut = plugin(t, "--kubeconfig", user, "diagnose", "pod/guaranteed", "-A", "-o", strings.TrimPrefix(f, "-o "))
			assert.Equal(t, 1, code, errOut)
			assert.Contains(t, out, "TopologyAffinityError", f)
		}
	})

	t.Run("--context picks a context whose user is an exec credential plugin", func(t *testing.T) {
		kc := execKubeconfig(t, user, c.UserKubeconfig(t, "stranger"))
		code, out, errOut := plugin(t, "--kubeconfig", kc, "--context", "ana-exec", "diagnose", "pod/guaranteed", "--no-node-access")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, out, "TopologyAffinityError")
		code, _, errOut = plugin(t, "--kubeconfig", kc, "diagnose", "pod/guaranteed", "--no-node-access")
		assert.Equal(t, 2, code, "the current context is the stranger's")
		assert.Contains(t, errOut, "the missing permission is get pods")
	})

	t.Run("kubectl's flags: --as, --token and --server, -o jsonpath", c.kubectlFlags)

	t.Run("gather node/dell8 writes what diagnose --dir reads", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "dell8")
		code, _, errOut := plugin(t, "--kubeconfig", user, "gather", "node/dell8", "--out", dir)
		require.Equal(t, 0, code, errOut)
		src, err := evidence.SourcesFromDir(dir)
		require.NoError(t, err)
		ev, err := evidence.Load(src)
		require.NoError(t, err)
		got, err := diagnose.Run(ctx, ev)
		require.NoError(t, err)
		assert.Empty(t, cmp.Diff(essentials(dirReport(t).Findings), essentials(got.Findings)))
		code, _, errOut = plugin(t, "--kubeconfig", user, "gather", "node/dell8", "--out", dir)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "is not empty")
	})

	t.Run("the log query disabled says how to enable it", func(t *testing.T) {
		code, out, errOut := plugin(t, "--kubeconfig", user, "diagnose", "pod/guaranteed-9")
		assert.Contains(t, errOut, "the kubelet does not answer the node log query")
		assert.Contains(t, errOut, "enableSystemLogQuery: true")
		assert.Contains(t, errOut, "NodeLogQuery")
		assert.Contains(t, []int{0, 1}, code, errOut)
		assert.True(t, strings.HasPrefix(out, "✓ no findings"), "the headline is the first line: %q", out)
		assert.Positive(t, dell9.Served("/logs/"), "the query reached dell9's kubelet")
	})

	t.Run("files the node does not have: the pod is made again without them", func(t *testing.T) {
		c.mu.Lock()
		before := len(c.started)
		c.mu.Unlock()
		code, out, errOut := plugin(t, "--kubeconfig", user, "diagnose", "pod/guaranteed-9", "-o", "json")
		assert.Contains(t, []int{0, 1}, code, errOut)
		var rep diagnose.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		read := map[string]string{}
		for _, e := range rep.Evidence {
			read[e.File] = e.Status
		}
		assert.Equal(t, "read", read["cpu_manager_state"], "the checkpoint the node has is read: %+v", rep.Evidence)
		for _, f := range []string{"memory_manager_state", "dra_manager_state"} {
			assert.Contains(t, errOut, "node dell9 has no /var/lib/kubelet/"+f+": the evidence goes without it (the kubelet: hostPath type check failed, /var/lib/kubelet/"+f+" is not a file")
		}
		assert.NotContains(t, errOut, "no on-node evidence")
		c.mu.Lock()
		assert.Len(t, c.started[before:], 2, "a second pod, without the two files")
		c.mu.Unlock()
		left, err := cs.CoreV1().Pods("numascope").List(ctx, metav1.ListOptions{LabelSelector: gatherLabel + "=" + gatherValue})
		require.NoError(t, err)
		assert.Empty(t, left.Items, "both short-lived pods are deleted")
	})

	t.Run("a forbidden call names the missing permission", func(t *testing.T) {
		nobody := c.UserKubeconfig(t, "nobody")
		code, _, errOut := plugin(t, "--kubeconfig", nobody, "diagnose", "pod/guaranteed")
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, `the missing permission is get pods (API group "" (core), in namespace default)`)
		assert.Contains(t, errOut, "rbac.yaml")

		// Read access without the node-access binding: the report still
		// comes, and says which permission the short-lived pod needs.
		reader := c.UserKubeconfig(t, "reader")
		_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "numascope"},
			Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "reader"}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			code, _, _ = plugin(t, "--kubeconfig", reader, "diagnose", "pod/guaranteed", "--no-node-access")
			return code != 2
		}, 10*time.Second, 200*time.Millisecond, "the binding takes effect")
		code, out, errOut := plugin(t, "--kubeconfig", reader, "diagnose", "pod/guaranteed")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, `the missing permission is create pods (API group "" (core), in namespace numascope)`)
		assert.Contains(t, errOut, `reading /configz of node dell8: forbidden: the cluster refused it; the missing permission is get nodes/proxy (API group "" (core), cluster-wide), granted by the ClusterRole in examples/kubectl-numascope/rbac-kubelet.yaml`)
		assert.Contains(t, out, "TopologyAffinityError")

		// Pod Security refusing the host paths is a 403 too, but no
		// permission is missing: the message says what is.
		_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restricted",
			Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		code, out, errOut = plugin(t, "--kubeconfig", c.Kubeconfig, "diagnose", "pod/guaranteed", "--agent-namespace", "restricted", "--agent-image", "agent")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, "the cluster's admission control refused it")
		assert.Contains(t, errOut, "pod-security.kubernetes.io/enforce=privileged")
		assert.NotContains(t, errOut, "missing permission")
		assert.Contains(t, out, "TopologyAffinityError")
	})

	t.Run("nodes: 200 agents through the API server, a node without the agent, NodeResourceTopology", func(t *testing.T) {
		sim := cluster.StartKubelet(t)
		const n = 200
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		sem := make(chan struct{}, 16)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				errs <- c.simNode(ctx, sim, i)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		t.Logf("%d nodes with an agent pod each registered in %s", n, time.Since(start).Round(time.Millisecond))
		dc, err := dynamic.NewForConfig(c.Config)
		require.NoError(t, err)
		_, err = dc.Resource(nrtGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology",
			"metadata":   map[string]any{"name": "dell9"},
			"attributes": []any{map[string]any{"name": "topologyManagerPolicy", "value": "single-numa-node"}},
			"zones": []any{
				map[string]any{"name": "node-0", "type": "Node", "resources": []any{map[string]any{"name": "cpu", "capacity": "24", "allocatable": "23", "available": "19"}, map[string]any{"name": "memory", "capacity": "128Gi", "allocatable": "125Gi", "available": "64Gi"}}},
				map[string]any{"name": "node-1", "type": "Node", "resources": []any{map[string]any{"name": "cpu", "capacity": "24", "allocatable": "24", "available": "24"}}},
			},
		}}, metav1.CreateOptions{})
		require.NoError(t, err)

		start = time.Now()
		code, out, errOut := plugin(t, "--kubeconfig", user, "nodes", "-o", "json", "--progress", "always")
		took := time.Since(start)
		t.Logf("nodes: %d nodes (%d through their agents) in %s", n+2, n, took.Round(time.Millisecond))
		assert.Equal(t, 1, code, "an error finding on one node: %s", errOut)
		var rows []nodeRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, n+2)
		byNode := map[string]nodeRow{}
		for _, r := range rows {
			byNode[r.Node] = r
		}
		assert.Empty(t, cmp.Diff(nodeRow{Node: "sim-000", Source: "agent", Checkpoints: "ok", FreeCPU: "0:10 1:12", FreeMemory: "0:1 GiB 1:2 GiB", Errors: []string{}}, byNode["sim-000"]))
		assert.Empty(t, cmp.Diff(nodeRow{Node: "sim-007", Source: "agent", Checkpoints: "1 rejected", FreeCPU: "0:10 1:12", FreeMemory: "0:1 GiB 1:2 GiB", Errors: []string{"CheckpointCorrupt"}}, byNode["sim-007"]))
		assert.Equal(t, "none", byNode["dell8"].Source)
		assert.Contains(t, byNode["dell8"].Note, "no running numascope agent")
		assert.Equal(t, "nrt", byNode["dell9"].Source)
		assert.Equal(t, "0:19 1:24", byNode["dell9"].FreeCPU)
		assert.Equal(t, "0:64Gi 1:?", byNode["dell9"].FreeMemory)
		assert.Contains(t, errOut, fmt.Sprintf("%d/%d nodes", n+2, n+2))
		assert.Equal(t, n, countPrefix(sim, "/containerLogs/numascope/agent-"), "one log request per agent")

		code, out, _ = plugin(t, "--kubeconfig", user, "nodes")
		assert.Equal(t, 1, code)
		assert.Contains(t, out, "NODE")
		assert.Regexp(t, `sim-007\s+agent\s+1 rejected`, out)
	})
}

// kubectlFlags runs the plugin with kubectl's flags against the cluster of
// TestAgainstAPIServer: --as and --as-group over the administrator's
// kubeconfig, then --server, --certificate-authority and a service
// account's --token with no kubeconfig; -o jsonpath prints the code.
func (c *testCluster) kubectlFlags(t *testing.T) {
	ctx, cs := context.Background(), c.Client
	// The administrator's kubeconfig, acting as ana (and her group,
	// which rbac.yaml and rbac-kubelet.yaml bind).
	code, out, errOut := plugin(t, "--kubeconfig", c.Kubeconfig, "--as", "ana", "--as-group", "numascope:users",
		"diagnose", "pod/guaranteed", "-n", "default", "-o", "jsonpath={.findings[0].code}")
	assert.Equal(t, 1, code, errOut)
	assert.Equal(t, "TopologyAffinityError", out)
	code, _, errOut = plugin(t, "--kubeconfig", c.Kubeconfig, "--as", "nobody", "diagnose", "pod/guaranteed", "--no-node-access")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `User "nobody" cannot get resource "pods"`)
	assert.Contains(t, errOut, "the missing permission is get pods")

	// No kubeconfig at all: the server, its CA and a service account's
	// token from the flags, as in a CI job.
	robot := c.TokenKubeconfig(t, "ci", "robot")
	_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "robot"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "numascope"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ci", Name: "robot"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	kc, err := clientcmd.LoadFromFile(robot)
	require.NoError(t, err)
	token := kc.AuthInfos["robot"].Token
	require.NotEmpty(t, token)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(ca, c.Config.CAData, 0o600))
	noKubeconfig(t)
	flags := []string{"--server", c.Config.Host, "--certificate-authority", ca, "--token", token}
	require.Eventually(t, func() bool {
		code, _, _ = plugin(t, append(flags, "diagnose", "pod/guaranteed", "-n", "default", "--no-node-access")...)
		return code != 2
	}, 10*time.Second, 200*time.Millisecond, "the binding takes effect")
	code, out, errOut = plugin(t, append(flags, "diagnose", "pod/guaranteed", "-n", "default", "--no-node-access", "-o", "jsonpath={.findings[0].code}")...)
	assert.Equal(t, 1, code, errOut)
	assert.Equal(t, "TopologyAffinityError", out)
	assert.NotContains(t, errOut, token)
	code, out, errOut = plugin(t, append(flags, "--request-timeout", "30s", "nodes", "-o", `jsonpath={range [?(@.node=="dell8")]}{.node} {.source}{end}`)...)
	assert.Contains(t, []int{0, 1}, code, errOut)
	assert.Equal(t, "dell8 none", out)
	code, _, errOut = plugin(t, "--server", c.Config.Host, "--certificate-authority", ca, "--token", "not-"+token, "nodes")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the cluster does not know these credentials")
	assert.NotContains(t, errOut, token)
	code, _, errOut = plugin(t, "--server", c.Config.Host, "--token", token, "nodes")
	assert.Equal(t, 2, code, "without the CA the server's certificate is not trusted")
	assert.Contains(t, errOut, "certificate")

	// The program itself, run by a shell with the quotes a user types.
	pluginOnPath(t)
	cmd := exec.Command("sh", "-c", `kubectl-numascope --server "$1" --certificate-authority "$2" --token "$3" diagnose pod/guaranteed -n default --no-node-access -o jsonpath='{.findings[0].code}'`,
		"sh", c.Config.Host, ca, token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
	assert.Equal(t, 1, ee.ExitCode(), "an error finding")
	assert.Equal(t, "TopologyAffinityError", stdout.String())
}

func countPrefix(k *cluster.Kubelet, prefix string) int {
	k.Lock()
	defer k.Unlock()
	n := 0
	for p, c := range k.Requests {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// simNode registers node sim-NNN on the shared fake kubelet with a running
// agent pod whose log holds a report line.
func (c *testCluster) simNode(ctx context.Context, k *cluster.Kubelet, i int) error {
	name := fmt.Sprintf("sim-%03d", i)
	if _, err := c.AddNode(ctx, cluster.Node{Name: name, Port: k.Port(), Capacity: map[string]string{"cpu": "24"}}); err != nil {
		return err
	}
	p, err := c.Client.CoreV1().Pods("numascope").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agent-%03d", i), Labels: map[string]string{"app": "numascope-agent"}},
		Spec:       corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{Name: "agent", Image: "agent"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	p.Status.Phase = corev1.PodRunning
	if _, err := c.Client.CoreV1().Pods("numascope").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return err
	}
	accepts, findings := "true", `[]`
	if i == 7 {
		accepts, findings = "false", `[{"code":"CheckpointCorrupt","severity":"error","title":"t"}]`
	}
	k.SetContainerLog("numascope", p.Name, "agent",
		`{"level":"INFO","msg":"numascope agent serving"}`+"\n"+
			`{"schema":"numascope.agent/v1","node":"`+name+`","checkpoints":[{"file":"cpu_manager_state","kind":"cpu","present":true,"kubeletAccepts":`+accepts+`},{"file":"dra_manager_state","kind":"dra","present":false}],`+
			`"memory":[{"numaNode":0,"resource":"memory","free":1073741824},{"numaNode":1,"resource":"memory","free":2147483648}],`+
			`"cpus":[{"numaNode":0,"free":10},{"numaNode":1,"free":12}],"findings":`+findings+`}`+"\n")
	return nil
}

// playKubelet plays the kubelet's part for the short-lived pods: serves the
// bundle as the container's log and marks the pod Succeeded.
func (c *testCluster) playKubelet(t *testing.T, ctx context.Context) {
	w, err := c.Client.CoreV1().Pods("numascope").Watch(ctx, metav1.ListOptions{LabelSelector: gatherLabel + "=" + gatherValue})
	if err != nil {
		t.Errorf("watching the short-lived pods: %v", err)
		return
	}
	defer w.Stop()
	for e := range w.ResultChan() {
		p, ok := e.Object.(*corev1.Pod)
		if !ok || e.Type != watch.Added {
			continue
		}
		c.mu.Lock()
		c.started = append(c.started, p.Name)
		k, line, missing := c.kubelets[p.Spec.NodeName], c.bundles[p.Spec.NodeName], c.missing[p.Spec.NodeName]
		c.mu.Unlock()
		if k == nil {
			continue
		}
		if c.failMounts(t, ctx, p, missing) {
			continue
		}
		k.SetContainerLog(p.Namespace, p.Name, "agent", `{"level":"INFO","msg":"agent: one round"}`+"\n"+line)
		p.Status.Phase = corev1.PodSucceeded
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}
		if _, err := c.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && ctx.Err() == nil {
			t.Errorf("setting the short-lived pod's status: %v", err)
		}
	}
}

// failMounts posts, for each hostPath volume of p whose path is missing,
// the event the kubelet posts when its hostPath type check refuses it
// (pkg/volume/hostpath's checkType, worded by the operation executor's
// generateVolumeMsg), and reports whether there was one: such a pod never
// starts.
func (c *testCluster) failMounts(t *testing.T, ctx context.Context, p *corev1.Pod, missing []string) bool {
	failed := false
	for _, v := range p.Spec.Volumes {
		if v.HostPath == nil || !slices.Contains(missing, v.HostPath.Path) {
			continue
		}
		failed = true
		want := map[corev1.HostPathType]string{corev1.HostPathFile: "file", corev1.HostPathSocket: "socket file", corev1.HostPathDirectory: "directory"}[*v.HostPath.Type]
		check := fmt.Errorf("hostPath type check failed, %s is not a %s, unable to determine its type: %w", v.HostPath.Path, want,
			&os.PathError{Op: "stat", Path: v.HostPath.Path, Err: syscall.ENOENT})
		now := metav1.Now()
		_, err := c.Client.CoreV1().Events(p.Namespace).Create(ctx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: p.Name + ".", Namespace: p.Namespace},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID, APIVersion: "v1"},
			Reason:         "FailedMount", Type: corev1.EventTypeWarning,
			Message: fmt.Sprintf("%v for volume %q %v", "MountVolume.SetUp failed", v.Name, ": "+check.Error()),
			Source:  corev1.EventSource{Component: "kubelet", Host: p.Spec.NodeName}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
		}, metav1.CreateOptions{})
		if err != nil && ctx.Err() == nil {
			t.Errorf("posting the FailedMount event: %v", err)
		}
	}
	return failed
}

// bundleLine is the bundle the agent prints on node, from scenario files
// (bundle path -> scenario file).
func bundleLine(t *testing.T, node string, files map[string]string) string {
	b := &nodebundle.Bundle{Node: node}
	for p, f := range files {
		b.Files = append(b.Files, nodebundle.File{Path: p, Data: read(t, f)})
	}
	var buf bytes.Buffer
	require.NoError(t, nodebundle.Write(&buf, b))
	return buf.String()
}

// applyRBAC creates the objects of rbac.yaml, and of the other manifests
// named.
func applyRBAC(t *testing.T, cs kubernetes.Interface, more ...string) {
	var docs []string
	for _, f := range append([]string{"rbac.yaml"}, more...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		docs = append(docs, strings.Split(string(data), "\n---\n")...)
	}
	ctx := context.Background()
	var err error
	for _, doc := range docs {
		var meta metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal([]byte(doc), &meta))
		switch meta.Kind {
		case "ClusterRole":
			var o rbacv1.ClusterRole
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
		case "RoleBinding":
			var o rbacv1.RoleBinding
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, &o, metav1.CreateOptions{})
		case "ValidatingAdmissionPolicy":
			var o admissionregistrationv1.ValidatingAdmissionPolicy
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &o, metav1.CreateOptions{})
		case "ValidatingAdmissionPolicyBinding":
			var o admissionregistrationv1.ValidatingAdmissionPolicyBinding
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected kind %q in the RBAC manifests", meta.Kind)
		}
		require.NoError(t, err)
	}
}

// dirReport is what examples/diagnose --dir prints for the scenario.
func dirReport(t *testing.T) diagnose.Report {
	src, err := evidence.SourcesFromDir(scenario)
	require.NoError(t, err)
	// The scenario's own files (its README, the expected reports) are not evidence.
	src.Files = slices.DeleteFunc(src.Files, func(f string) bool {
		switch filepath.Base(f) {
		case "README.md", "expected.json", "expected.txt":
			return true
		}
		return false
	})
	ev, err := evidence.Load(src)
	require.NoError(t, err)
	rep, err := diagnose.Run(context.Background(), ev)
	require.NoError(t, err)
	return rep
}

// finding is what must agree between two reports of the same case read
// from differently named files.
type finding struct {
	Code, Severity, Title, Cause, Explanation, Remedy string
}

func essentials(fs []diagnose.Finding) []finding {
	var out []finding
	for _, f := range fs {
		out = append(out, finding{f.Code, string(f.Severity), f.Title, string(f.Cause), f.Explanation, f.Remedy})
	}
	return out
}

// findingText is a text report from its first finding to that finding's
// evidence list.
func findingText(report string) string {
	i := strings.Index(report, "\n1. [")
	if i < 0 {
		return ""
	}
	rest := report[i+1:]
	if j := strings.Index(rest, "\n   Evidence:\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// execKubeconfig writes a kubeconfig with two contexts: "stranger" (the
// current one, from the stranger's kubeconfig) and "ana-exec", whose user
// gets ana's client certificate from an exec credential plugin, as cloud
// providers' plugins hand out credentials.
func execKubeconfig(t *testing.T, ana, stranger string) string {
	a, err := clientcmd.LoadFromFile(ana)
	require.NoError(t, err)
	cfg, err := clientcmd.LoadFromFile(stranger)
	require.NoError(t, err)
	var authInfo *clientcmdapi.AuthInfo
	for _, ai := range a.AuthInfos {
		authInfo = ai
	}
	require.NotNil(t, authInfo)
	cred, err := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
		"status": map[string]any{"clientCertificateData": string(authInfo.ClientCertificateData), "clientKeyData": string(authInfo.ClientKeyData)},
	})
	require.NoError(t, err)
	dir := t.TempDir()
	credFile := filepath.Join(dir, "credential.json")
	require.NoError(t, os.WriteFile(credFile, cred, 0o600))
	script := filepath.Join(dir, "credential-plugin")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexec cat "+credFile+"\n"), 0o700))
	var cluster string
	for _, ctx := range cfg.Contexts {
		cluster = ctx.Cluster
		cfg.Contexts["stranger"] = ctx
	}
	cfg.AuthInfos["ana-exec"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: script, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	cfg.Contexts["ana-exec"] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: "ana-exec"}
	cfg.CurrentContext = "stranger"
	p := filepath.Join(dir, "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, p))
	return p
}
