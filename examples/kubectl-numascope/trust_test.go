package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

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

	// Why get nodes/proxy is in rbac-kubelet.yaml, apart: the API server
	// passes a WebSocket GET under the node proxy to the kubelet, and the
	// kubelet's /exec/ is opened by one (a real kubelet would run the
	// command; this one only records the request).
	t.Run("get nodes/proxy reaches the kubelet's exec endpoint", func(t *testing.T) {
		applyRBAC(t, cs, "rbac-kubelet.yaml")
		kim, err := clientcmd.BuildConfigFromFlags("", c.UserKubeconfig(t, "kim", "numascope:users"))
		require.NoError(t, err)
		tlsConfig, err := rest.TLSConfigFor(kim)
		require.NoError(t, err)
		var mu sync.Mutex
		var reached []string
		evil.Override("/exec/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			reached = append(reached, r.Method+" "+r.URL.Path+" Upgrade: "+r.Header.Get("Upgrade"))
			mu.Unlock()
			w.WriteHeader(http.StatusForbidden)
		}))
		status := map[string]int{}
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			req, err := http.NewRequestWithContext(ctx, method, kim.Host+"/api/v1/nodes/evil/proxy/exec/default/victim/c?command=id&output=1", nil)
			require.NoError(t, err)
			for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
				"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v5.channel.k8s.io"} {
				req.Header.Set(k, v)
			}
			resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}).Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			status[method] = resp.StatusCode
		}
		mu.Lock()
		defer mu.Unlock()
		t.Logf("the kubelet received %v; statuses %v", reached, status)
		assert.Equal(t, []string{"GET /exec/default/victim/c Upgrade: websocket"}, reached, "the GET reached the kubelet's exec endpoint, the POST (create nodes/proxy) did not")
	})

	t.Run("answers over their bounds", func(t *testing.T) {
		var code int
		var errOut string
		var before, after runtime.MemStats
		start := time.Now()
		fuzzbudget.RunWith(t, fuzzbudget.Budget{Time: 60 * time.Second, Alloc: 256 << 20}, func() {
			runtime.ReadMemStats(&before)
			code, _, errOut = plugin(t, "--kubeconfig", admin, "--timeout", "3s", "gather", "node/huge", "--no-node-access", "--out", filepath.Join(t.TempDir(), "huge"))
			runtime.ReadMemStats(&after)
		})
		t.Logf("gather node/huge: exit %d in %s, %d MiB allocated\n%s", code, time.Since(start).Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, errOut)
		assert.Equal(t, 0, code, "what could be read is written")
		assert.Contains(t, errOut, "reading /configz of node huge: the kubelet's answer to /configz is over 1 MiB: refused")
		assert.Contains(t, errOut, "reading the kubelet log of node huge: the API server did not finish its answer to GET /api/v1/nodes/huge/proxy/logs/ within 3s: given up")
		// The page of 20 pods is refused for its size; on a machine too busy
		// to carry 16 MiB in 3 s, for its time.
		bySize := strings.Contains(errOut, "listing the pods of node huge: the API server's answer to GET /api/v1/pods is over 16 MiB: refused")
		byTime := strings.Contains(errOut, "listing the pods of node huge: the API server did not finish its answer to GET /api/v1/pods within 3s")
		assert.True(t, bySize || byTime, "the page of pods is refused")
	})
}

// agentManifest is the Namespace and the DaemonSet of
// examples/agent/daemonset.yaml, decoded strictly.
func agentManifest(t *testing.T) (*corev1.Namespace, *appsv1.DaemonSet) {
	t.Helper()
	data, err := os.ReadFile("../agent/daemonset.yaml")
	require.NoError(t, err)
	var ns *corev1.Namespace
	var ds *appsv1.DaemonSet
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal([]byte(doc), &meta))
		switch meta.Kind {
		case "Namespace":
			ns = &corev1.Namespace{}
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), ns))
		case "DaemonSet":
			ds = &appsv1.DaemonSet{}
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), ds))
		}
	}
	require.NotNil(t, ns, "daemonset.yaml has no Namespace")
	require.NotNil(t, ds, "daemonset.yaml has no DaemonSet")
	return ns, ds
}

// policyFiles are the host paths and hostPath types of the files variable
// of rbac.yaml's ValidatingAdmissionPolicy.
func policyFiles(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("rbac.yaml")
	require.NoError(t, err)
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var p admissionregistrationv1.ValidatingAdmissionPolicy
		require.NoError(t, yaml.Unmarshal([]byte(doc), &p))
		if p.Kind != "ValidatingAdmissionPolicy" {
			continue
		}
		for _, v := range p.Spec.Variables {
			if v.Name == "files" {
				out := map[string]string{}
				for _, m := range regexp.MustCompile(`\{'path': '([^']+)', 'type': '([^']+)'\}`).FindAllStringSubmatch(v.Expression, -1) {
					out[m[1]] = m[2]
				}
				return out
			}
		}
	}
	t.Fatal("rbac.yaml has no ValidatingAdmissionPolicy with a files variable")
	return nil
}

func TestPolicyFilesAreTheGatherPodFiles(t *testing.T) {
	want := map[string]string{}
	for _, f := range nodeFiles {
		want[kubeletRoot+"/"+f.path] = string(f.typ)
	}
	assert.Empty(t, cmp.Diff(want, policyFiles(t)), "rbac.yaml's policy allows other files than the gather pod mounts")
	pod := gatherPod("n1", "img", "numascope", nil)
	got := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		require.NotNil(t, v.HostPath, "volume %s", v.Name)
		got[v.HostPath.Path] = string(*v.HostPath.Type)
	}
	assert.Empty(t, cmp.Diff(want, got), "the gather pod mounts")
}

// TestNodeAccessPolicy checks against a real API server that the holders
// of numascope-node-access may create the gather pod the plugin builds,
// and nothing that would give them more of the node.
func TestNodeAccessPolicy(t *testing.T) {
	if !cluster.InNetns(t) {
		return
	}
	ctx := context.Background()
	c := cluster.Start(t, cluster.Options{})
	cs := c.Client
	ns, ds := agentManifest(t)
	_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{})
	require.NoError(t, err)
	image := ds.Spec.Template.Spec.Containers[0].Image
	applyRBAC(t, cs)
	nina, err := clientcmd.BuildConfigFromFlags("", c.UserKubeconfig(t, "nina", "numascope:users"))
	require.NoError(t, err)
	asNina, err := kubernetes.NewForConfig(nina)
	require.NoError(t, err)

	// Another kind of subject bound to the role: the policy follows the
	// role, not the group of rbac.yaml's binding.
	bot := c.TokenKubeconfig(t, "ci", "bot")
	_, err = cs.RbacV1().RoleBindings(ns.Name).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bot"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "numascope-node-access"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ci", Name: "bot"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	botCfg, err := clientcmd.BuildConfigFromFlags("", bot)
	require.NoError(t, err)
	asBot, err := kubernetes.NewForConfig(botCfg)
	require.NoError(t, err)

	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	// The policy takes effect a moment after it is created.
	require.Eventually(t, func() bool {
		p := gatherPod("n1", image, ns.Name, nil)
		p.Spec.HostPID = true
		_, err := asNina.CoreV1().Pods(ns.Name).Create(ctx, p, dry)
		return err != nil && strings.Contains(err.Error(), "numascope-gather-pod")
	}, 20*time.Second, 200*time.Millisecond, "the policy refuses a pod with hostPID")

	t.Run("the gather pod the plugin builds is created", func(t *testing.T) {
		for _, skip := range []map[string]string{nil, {"state-dra": "absent", "state-memory": "absent"}, {"pod-resources": "absent"}} {
			p, err := asNina.CoreV1().Pods(ns.Name).Create(ctx, gatherPod("n1", image, ns.Name, skip), metav1.CreateOptions{})
			require.NoError(t, err, "skipping %v", skip)
			assert.Len(t, p.Spec.Volumes, len(nodeFiles)-len(skip))
			require.NoError(t, asNina.CoreV1().Pods(ns.Name).Delete(ctx, p.Name, metav1.DeleteOptions{}))
		}
		_, err := asBot.CoreV1().Pods(ns.Name).Create(ctx, gatherPod("n1", image, ns.Name, nil), dry)
		assert.NoError(t, err, "the service account bound to the role")
	})

	t.Run("anything else is refused", func(t *testing.T) {
		yes, no := true, false
		for _, tc := range []struct {
			name   string
			change func(*corev1.Pod)
			want   string
		}{
			{"a privileged container", func(p *corev1.Pod) {
				p.Spec.Containers[0].SecurityContext.Privileged = &yes
				p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = &yes // the API requires it with privileged
			}, "is not privileged"},
			{"another hostPath", func(p *corev1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
				p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "root", MountPath: "/host", ReadOnly: true})
			}, "mounts only these host files"},
			{"the kubelet's directory", func(p *corev1.Pod) {
				d := corev1.HostPathDirectory
				p.Spec.Volumes[0].HostPath = &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet", Type: &d}
			}, "mounts only these host files"},
			{"a checkpoint with the hostPath type unset (the runtime would create a directory)", func(p *corev1.Pod) {
				p.Spec.Volumes[0].HostPath.Type = nil
			}, "mounts only these host files"},
			{"a checkpoint as FileOrCreate (the kubelet would create it)", func(p *corev1.Pod) {
				t := corev1.HostPathFileOrCreate
				p.Spec.Volumes[0].HostPath.Type = &t
			}, "mounts only these host files"},
			{"a Secret volume", func(p *corev1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}})
			}, "mounts only these host files"},
			{"another image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "registry.example/numascope-agent:evil" }, "runs the image of DaemonSet numascope/numascope-agent"},
			{"a writable mount", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].ReadOnly = false }, "read-only"},
			{"a mount elsewhere", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].MountPath = "/etc/passwd" }, "read-only at /host"},
			{"hostPID", func(p *corev1.Pod) { p.Spec.HostPID = true }, "shares no host namespace"},
			{"hostNetwork", func(p *corev1.Pod) { p.Spec.HostNetwork = true }, "shares no host namespace"},
			{"hostIPC", func(p *corev1.Pod) { p.Spec.HostIPC = true }, "shares no host namespace"},
			{"a capability", func(p *corev1.Pod) {
				p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"DAC_READ_SEARCH"}
			}, "drops ALL capabilities and adds none"},
			{"privilege escalation", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = &yes }, "allowPrivilegeEscalation: false"},
			{"a writable root file system", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem = &no }, "readOnlyRootFilesystem: true"},
			{"seccomp unconfined in the container", func(p *corev1.Pod) {
				p.Spec.Containers[0].SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
			}, "keeps the default seccomp"},
			{"seccomp unconfined in the pod", func(p *corev1.Pod) {
				p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
			}, "sets seccompProfile RuntimeDefault"},
			{"an unmasked /proc", func(p *corev1.Pod) {
				u := corev1.UnmaskedProcMount
				p.Spec.HostUsers = &no // the API requires it for Unmasked
				p.Spec.Containers[0].SecurityContext.ProcMount = &u
			}, "default seccomp, AppArmor, SELinux and /proc"},
			{"the service account token", func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = &yes }, "automountServiceAccountToken: false"},
			{"an init container", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: image}}
			}, "no init or ephemeral container"},
			{"a second container", func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "b", Image: image})
			}, "one container"},
			{"a command", func(p *corev1.Pod) { p.Spec.Containers[0].Command = []string{"/bin/sh"} }, "no command"},
			{"a Secret in the environment", func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}}}
			}, "reads no Secret"},
			{"a host port", func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
			}, "opens no port"},
			{"an HTTP probe the kubelet would send from the node", func(p *corev1.Pod) {
				p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "169.254.169.254", Port: intstr.FromInt32(80)}}}
			}, "no probe"},
			{"a device", func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
			}, "asks for no device"},
			{"a critical priority class", func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-node-critical" }, "no system-* priority class"},
		} {
			p := gatherPod("n1", image, ns.Name, nil)
			tc.change(p)
			for who, client := range map[string]kubernetes.Interface{"nina": asNina, "bot": asBot} {
				_, err := client.CoreV1().Pods(ns.Name).Create(ctx, p, dry)
				if assert.Error(t, err, "%s: %s", who, tc.name) {
					assert.Contains(t, err.Error(), "ValidatingAdmissionPolicy 'numascope-gather-pod'", "%s: %s", who, tc.name)
					assert.Contains(t, err.Error(), tc.want, "%s: %s", who, tc.name)
				}
			}
		}
	})

	t.Run("others are not bound by it", func(t *testing.T) {
		p := gatherPod("n1", image, ns.Name, nil)
		p.Spec.HostPID = true
		_, err := cs.CoreV1().Pods(ns.Name).Create(ctx, p, dry)
		assert.NoError(t, err, "a cluster administrator, who could delete the binding")
		// nina, who may create pods in a namespace of her own, creates
		// there what she likes.
		_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = cs.RbacV1().Roles("team").Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "pods"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create"}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = cs.RbacV1().RoleBindings("team").Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "nina"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pods"},
			Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "nina"}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		var last error
		ok := assert.Eventually(t, func() bool {
			_, last = asNina.CoreV1().Pods("team").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}}, dry)
			return last == nil
		}, 10*time.Second, 200*time.Millisecond, "nina's own pod in her namespace")
		if !ok {
			t.Logf("last error: %v", last)
		}
	})

	t.Run("privileged is the lowest Pod Security level the gather pod passes", func(t *testing.T) {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "baseline",
			Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = cs.CoreV1().Pods("baseline").Create(ctx, gatherPod("n1", image, "baseline", nil), dry)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `violates PodSecurity "baseline:latest": hostPath volumes`)
		assert.Equal(t, "privileged", ns.Labels["pod-security.kubernetes.io/enforce"], "daemonset.yaml's namespace")
	})

	t.Run("without the agent DaemonSet no gather pod runs", func(t *testing.T) {
		require.NoError(t, cs.AppsV1().DaemonSets(ds.Namespace).Delete(ctx, ds.Name, metav1.DeleteOptions{}))
		var err error
		require.Eventually(t, func() bool {
			_, err = asNina.CoreV1().Pods(ns.Name).Create(ctx, gatherPod("n1", image, ns.Name, nil), dry)
			return err != nil
		}, 20*time.Second, 200*time.Millisecond)
		assert.Contains(t, err.Error(), "no params found")
	})
}

// TestAgentRunsAsTheGatherPod: the agent DaemonSet (which cannot mount
// single files: it must see the kubelet's renames) runs with the security
// context of the short-lived pod, field for field.
func TestAgentRunsAsTheGatherPod(t *testing.T) {
	_, ds := agentManifest(t)
	a, g := ds.Spec.Template.Spec, gatherPod("n1", "img", "numascope", nil).Spec
	require.Len(t, a.Containers, 1)
	assert.Empty(t, cmp.Diff(g.SecurityContext, a.SecurityContext), "pod securityContext (- gather pod, + agent)")
	assert.Empty(t, cmp.Diff(g.Containers[0].SecurityContext, a.Containers[0].SecurityContext), "container securityContext (- gather pod, + agent)")
	for _, f := range []struct {
		name      string
		gather, a any
	}{
		{"hostUsers", g.HostUsers, a.HostUsers},
		{"automountServiceAccountToken", g.AutomountServiceAccountToken, a.AutomountServiceAccountToken},
		{"enableServiceLinks", g.EnableServiceLinks, a.EnableServiceLinks},
		{"hostNetwork", g.HostNetwork, a.HostNetwork},
		{"hostPID", g.HostPID, a.HostPID},
		{"hostIPC", g.HostIPC, a.HostIPC},
	} {
		assert.Empty(t, cmp.Diff(f.gather, f.a), f.name)
	}
}
