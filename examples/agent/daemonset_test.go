package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// manifest decodes daemonset.yaml strictly (an unknown or misspelt field
// fails) into the API types.
func manifest(t *testing.T) (*appsv1.DaemonSet, *corev1.Namespace, *corev1.ServiceAccount) {
	ds, ns, sa, _ := manifestAll(t)
	return ds, ns, sa
}

// manifestAll is manifest with the NetworkPolicy.
func manifestAll(t *testing.T) (*appsv1.DaemonSet, *corev1.Namespace, *corev1.ServiceAccount, *networkingv1.NetworkPolicy) {
	t.Helper()
	data, err := os.ReadFile("daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds *appsv1.DaemonSet
	var ns *corev1.Namespace
	var sa *corev1.ServiceAccount
	var np *networkingv1.NetworkPolicy
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var into any
		switch head.APIVersion + " " + head.Kind {
		case "apps/v1 DaemonSet":
			ds = &appsv1.DaemonSet{}
			into = ds
		case "v1 Namespace":
			ns = &corev1.Namespace{}
			into = ns
		case "v1 ServiceAccount":
			sa = &corev1.ServiceAccount{}
			into = sa
		case "networking.k8s.io/v1 NetworkPolicy":
			np = &networkingv1.NetworkPolicy{}
			into = np
		default:
			t.Fatalf("document %d: unexpected %s %s", i, head.APIVersion, head.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			t.Fatalf("document %d (%s): %v", i, head.Kind, err)
		}
	}
	if ds == nil || ns == nil || sa == nil || np == nil {
		t.Fatalf("daemonset.yaml must hold a Namespace, a ServiceAccount, a DaemonSet and a NetworkPolicy")
	}
	return ds, ns, sa, np
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestDaemonSetLeastPrivilege(t *testing.T) {
	ds, ns, sa := manifest(t)
	spec := ds.Spec.Template.Spec

	if ds.Namespace != ns.Name || sa.Namespace != ns.Name || spec.ServiceAccountName != sa.Name {
		t.Errorf("namespace/service account mismatch: ds %s, ns %s, sa %s/%s, uses %s", ds.Namespace, ns.Name, sa.Namespace, sa.Name, spec.ServiceAccountName)
	}
	// hostPath volumes need the privileged Pod Security level.
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
		t.Errorf("namespace labels = %v", ns.Labels)
	}
	sel := ds.Spec.Selector.MatchLabels
	if len(sel) == 0 {
		t.Fatal("no selector")
	}
	for k, v := range sel {
		if ds.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the template labels %v", k, v, ds.Spec.Template.Labels)
		}
	}
	if sel["app"] != "numascope-agent" {
		t.Errorf("the guide's `kubectl logs -l app=numascope-agent` needs label app=numascope-agent, have %v", sel)
	}

	// No host namespaces, no API access.
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		t.Errorf("host namespaces: network %v, pid %v, ipc %v", spec.HostNetwork, spec.HostPID, spec.HostIPC)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken ||
		sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Errorf("the service account token must not be mounted: the agent never calls the API server")
	}
	// Every node, whatever its taints.
	everywhere := false
	for _, tol := range spec.Tolerations {
		if tol.Operator == corev1.TolerationOpExists && tol.Key == "" && tol.Effect == "" {
			everywhere = true
		}
	}
	if !everywhere {
		t.Errorf("tolerations %v do not tolerate every taint", spec.Tolerations)
	}
	if len(spec.NodeSelector) != 0 || spec.Affinity != nil {
		t.Errorf("the agent should run on every node: nodeSelector %v, affinity %v", spec.NodeSelector, spec.Affinity)
	}

	// User 0 without any capability: the README explains why not non-root.
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != 0 || psc.RunAsNonRoot == nil || *psc.RunAsNonRoot {
		t.Errorf("pod securityContext = %+v: the kubelet's files are root's, mode 0600", psc)
	}
	if spec.HostUsers != nil && !*spec.HostUsers {
		t.Errorf("hostUsers: false maps user 0 to an unprivileged host user that cannot read the kubelet's files")
	}
	if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("seccomp = %+v", psc.SeccompProfile)
	}
	if len(spec.Containers) != 1 || len(spec.InitContainers) != 0 {
		t.Fatalf("want one container, have %d (+%d init)", len(spec.Containers), len(spec.InitContainers))
	}
	c := spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Privileged == nil || *sc.Privileged || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil ||
		len(sc.Capabilities.Add) != 0 || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container securityContext = %+v", sc)
	}

	// Requests and limits for both CPU and memory.
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
			t.Errorf("%s: request %v, limit %v", r, req.String(), lim.String())
		}
	}

	// Every hostPath is a directory mounted read-only (the socket too:
	// TestSocketConnectThroughReadOnlyBindMount shows it is enough).
	hostPaths := map[string]string{}
	masks := map[string]bool{} // emptyDir volumes that hide parts of a host path
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil {
			if v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Cmp(resource.MustParse("1Mi")) > 0 {
				t.Errorf("volume %s: an emptyDir that only hides host directories needs no space, have sizeLimit %v", v.Name, v.EmptyDir.SizeLimit)
			}
			masks[v.Name] = true
			continue
		}
		if v.HostPath == nil {
			t.Errorf("volume %s is neither a hostPath nor an emptyDir mask", v.Name)
			continue
		}
		if v.HostPath.Type == nil || *v.HostPath.Type != corev1.HostPathDirectory {
			t.Errorf("volume %s: hostPath type %v, want Directory (a file mount goes stale when the kubelet renames a new file over it)", v.Name, v.HostPath.Type)
		}
		hostPaths[v.Name] = v.HostPath.Path
	}
	mounts := map[string]string{} // host path → mount path
	hidden := map[string]bool{}   // mount paths covered by a mask
	for _, m := range c.VolumeMounts {
		if masks[m.Name] {
			hidden[m.MountPath] = true
			if !m.ReadOnly {
				t.Errorf("mask %s at %s is not readOnly", m.Name, m.MountPath)
			}
			continue
		}
		hp, ok := hostPaths[m.Name]
		if !ok {
			t.Errorf("mount %s has no hostPath volume", m.Name)
			continue
		}
		if !m.ReadOnly {
			t.Errorf("mount %s (%s) is not readOnly", m.Name, hp)
		}
		if m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional {
			t.Errorf("mount %s: Bidirectional propagation needs a privileged container", m.Name)
		}
		mounts[hp] = m.MountPath
	}
	if len(mounts) != len(hostPaths) {
		t.Errorf("volumes %v, mounts %v", hostPaths, mounts)
	}
	root, ok := mounts["/var/lib/kubelet"]
	if !ok {
		t.Fatalf("the kubelet root directory is not mounted: %v", mounts)
	}
	if m := c.VolumeMounts[0]; m.MountPropagation == nil || *m.MountPropagation != corev1.MountPropagationHostToContainer {
		t.Errorf("the kubelet root mount should use HostToContainer, so the kubelet's unmounts of pod volumes reach the container")
	}
	prDir, ok := mounts["/var/lib/kubelet/pod-resources"]
	if !ok {
		t.Fatalf("the pod-resources directory is not mounted: %v", mounts)
	}
	// Other pods' volumes (Secrets, tokens) and the plugins' sockets are
	// hidden; the kubelet creates these three directories at start
	// (setupDataDirs), so the mount points exist on every node.
	for _, dir := range []string{"pods", "plugins", "plugins_registry"} {
		if !hidden[path.Join(root, dir)] {
			t.Errorf("%s is not hidden under the kubelet root mount %s (masks: %v)", dir, root, hidden)
		}
	}
	for m := range hidden {
		if !strings.HasPrefix(m, root+"/") {
			t.Errorf("mask %s is not under the kubelet root mount %s", m, root)
		}
		for _, f := range stateFiles {
			if p := path.Join(root, f.path); strings.HasPrefix(p, m+"/") {
				t.Errorf("mask %s hides the checkpoint %s", m, p)
			}
		}
	}
	if len(hidden) != 3 {
		t.Errorf("masks %v: want exactly pods, plugins and plugins_registry", hidden)
	}

	// The flags point into the mounts, and the probes at served paths.
	if v, _ := flagValue(c.Args, "state-dir"); v != root {
		t.Errorf("--state-dir=%q, the kubelet root is mounted at %q", v, root)
	}
	if v, _ := flagValue(c.Args, "socket"); path.Dir(v) != prDir || path.Base(v) != "kubelet.sock" {
		t.Errorf("--socket=%q is not kubelet.sock in %q", v, prDir)
	}
	listen, _ := flagValue(c.Args, "listen")
	if len(c.Ports) != 1 || ":"+strconv.Itoa(int(c.Ports[0].ContainerPort)) != listen || c.Ports[0].Name != "metrics" {
		t.Errorf("ports %+v do not match --listen=%s", c.Ports, listen)
	}
	ann := ds.Spec.Template.Annotations
	if ann["prometheus.io/scrape"] != "true" || ":"+ann["prometheus.io/port"] != listen || ann["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v do not match --listen=%s", ann, listen)
	}
	var nodeEnv bool
	for _, e := range c.Env {
		if e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" {
			nodeEnv = true
		}
	}
	if !nodeEnv {
		t.Errorf("NODE_NAME is not set from spec.nodeName: reports would carry the pod name as node")
	}
	var memEnv bool
	for _, e := range c.Env {
		if e.Name == memoryLimitEnv && e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil {
			r := e.ValueFrom.ResourceFieldRef
			memEnv = r.ContainerName == c.Name && r.Resource == "limits.memory" && (r.Divisor.IsZero() || r.Divisor.Cmp(resource.MustParse("1")) == 0)
		}
	}
	if !memEnv {
		t.Errorf("%s is not set from the container's limits.memory in bytes: the Go memory limit would come from the cgroup only", memoryLimitEnv)
	}
	// The image is pinned by digest, without a tag.
	if !regexp.MustCompile(`^[^:@]+/numascope-agent@sha256:[0-9a-f]{64}$`).MatchString(c.Image) {
		t.Errorf("image %q is not pinned by digest (REGISTRY/numascope-agent@sha256:<64 hex digits>)", c.Image)
	}
	if _, ok := flagValue(c.Args, "once"); ok {
		t.Errorf("--once in a DaemonSet would restart the container forever")
	}

	// Probes answer on the agent's own handler: /readyz only after a round.
	a := newAgent(config{interval: time.Minute, timeout: time.Second, node: "n", stateDir: "testdata/node/kubelet",
		socket: "none", sysfs: "testdata/node/sys", diagnose: true})
	hs := httptest.NewServer(a.handler())
	defer hs.Close()
	probes := map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe}
	for name, p := range probes {
		if p == nil || p.HTTPGet == nil {
			t.Errorf("no %s httpGet probe", name)
			continue
		}
		if p.HTTPGet.Port.String() != "metrics" && p.HTTPGet.Port.IntValue() != int(c.Ports[0].ContainerPort) {
			t.Errorf("%s probe port %s is not the metrics port", name, p.HTTPGet.Port.String())
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probe paths: readiness %s, liveness %s", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	status := func(p string) int {
		resp, err := http.Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(c.ReadinessProbe.HTTPGet.Path); s != http.StatusServiceUnavailable {
		t.Errorf("readiness before the first round = %d", s)
	}
	if s := status(c.LivenessProbe.HTTPGet.Path); s != http.StatusOK {
		t.Errorf("liveness before the first round = %d", s)
	}
	a.round(t.Context())
	for _, p := range []string{c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path, ann["prometheus.io/path"]} {
		if s := status(p); s != http.StatusOK {
			t.Errorf("%s after a round = %d", p, s)
		}
	}
}

// TestNetworkPolicyOnlyMetricsFromMonitoring checks that the policy selects
// the agent's pods, admits only the metrics port from the monitoring
// namespace and denies all egress.
func TestNetworkPolicyOnlyMetricsFromMonitoring(t *testing.T) {
	ds, _, _, np := manifestAll(t)
	assert.Equal(t, ds.Namespace, np.Namespace)
	assert.Empty(t, cmp.Diff(ds.Spec.Selector.MatchLabels, np.Spec.PodSelector.MatchLabels), "the policy selects the agent's pods")
	assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	assert.Empty(t, np.Spec.Egress, "the agent opens no network connection: no egress rule")
	require.Len(t, np.Spec.Ingress, 1)
	rule := np.Spec.Ingress[0]
	require.Len(t, rule.From, 1)
	from := rule.From[0]
	assert.Nil(t, from.PodSelector)
	assert.Nil(t, from.IPBlock)
	require.NotNil(t, from.NamespaceSelector)
	assert.Equal(t, map[string]string{"kubernetes.io/metadata.name": "monitoring"}, from.NamespaceSelector.MatchLabels)
	require.Len(t, rule.Ports, 1)
	port := ds.Spec.Template.Spec.Containers[0].Ports[0]
	p := rule.Ports[0]
	require.NotNil(t, p.Port)
	assert.True(t, p.Port.String() == port.Name || p.Port.IntValue() == int(port.ContainerPort), "port %s is not the metrics port", p.Port.String())
	require.NotNil(t, p.Protocol)
	assert.Equal(t, corev1.ProtocolTCP, *p.Protocol)
}
