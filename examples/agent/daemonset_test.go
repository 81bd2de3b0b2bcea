package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
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
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/statefile"
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
	require.NoError(t, err)
	var ds *appsv1.DaemonSet
	var ns *corev1.Namespace
	var sa *corev1.ServiceAccount
	var np *networkingv1.NetworkPolicy
	var pc *schedulingv1.PriorityClass
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		var head struct{ APIVersion, Kind string }
		require.NoError(t, yaml.Unmarshal(doc, &head), "document %d", i)
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
		case "scheduling.k8s.io/v1 PriorityClass":
			pc = &schedulingv1.PriorityClass{}
			into = pc
		default:
			require.Failf(t, "unexpected document", "document %d: unexpected %s %s", i, head.APIVersion, head.Kind)
		}
		require.NoError(t, yaml.UnmarshalStrict(doc, into), "document %d (%s)", i, head.Kind)
	}
	const want = "daemonset.yaml must hold a Namespace, a PriorityClass, a ServiceAccount, a DaemonSet and a NetworkPolicy"
	require.NotNil(t, ds, "%s: no DaemonSet", want)
	require.NotNil(t, ns, "%s: no Namespace", want)
	require.NotNil(t, sa, "%s: no ServiceAccount", want)
	require.NotNil(t, np, "%s: no NetworkPolicy", want)
	require.NotNil(t, pc, "%s: no PriorityClass", want)
	return ds, ns, sa, np
}

// TestDaemonSetPriority: the agent has a priority class of its own, above
// workloads without one, below the system-* classes, never preempting a
// running pod (README: Why these privileges).
func TestDaemonSetPriority(t *testing.T) {
	ds, _, _ := manifest(t)
	pc := priorityClass(t)
	assert.Equal(t, pc.Name, ds.Spec.Template.Spec.PriorityClassName, "priorityClassName")
	assert.Greater(t, pc.Value, int32(0), "priority above workloads without a class")
	assert.Less(t, pc.Value, int32(1000000000), "priority below the system-* classes (2000000000 and up) and any user class above a billion")
	if assert.NotNil(t, pc.PreemptionPolicy, "preemptionPolicy") {
		assert.Equal(t, corev1.PreemptNever, *pc.PreemptionPolicy, "preemptionPolicy: the agent never evicts a pinned workload to fit")
	}
	assert.False(t, pc.GlobalDefault, "globalDefault")
}

// priorityClass is daemonset.yaml's PriorityClass.
func priorityClass(t *testing.T) *schedulingv1.PriorityClass {
	t.Helper()
	data, err := os.ReadFile("daemonset.yaml")
	require.NoError(t, err)
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var pc schedulingv1.PriorityClass
		require.NoError(t, yaml.Unmarshal(doc, &pc))
		if pc.Kind == "PriorityClass" {
			require.NoError(t, yaml.UnmarshalStrict(doc, &pc))
			return &pc
		}
	}
	require.FailNow(t, "daemonset.yaml has no PriorityClass")
	return nil
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

	assert.Equal(t, ns.Name, ds.Namespace, "the DaemonSet's namespace")
	assert.Equal(t, ns.Name, sa.Namespace, "the ServiceAccount's namespace")
	assert.Equal(t, sa.Name, spec.ServiceAccountName, "the pod's service account")
	// hostPath volumes need the privileged Pod Security level.
	assert.Equal(t, "privileged", ns.Labels["pod-security.kubernetes.io/enforce"], "namespace labels %v", ns.Labels)
	sel := ds.Spec.Selector.MatchLabels
	require.NotEmpty(t, sel, "no selector")
	for k, v := range sel {
		assert.Equal(t, v, ds.Spec.Template.Labels[k], "selector %s=%s does not match the template labels %v", k, v, ds.Spec.Template.Labels)
	}
	assert.Equal(t, "numascope-agent", sel["app"], "the guide's `kubectl logs -l app=numascope-agent` needs label app=numascope-agent, have %v", sel)

	// No host namespaces, no API access.
	assert.False(t, spec.HostNetwork, "hostNetwork")
	assert.False(t, spec.HostPID, "hostPID")
	assert.False(t, spec.HostIPC, "hostIPC")
	const noToken = "the service account token must not be mounted: the agent never calls the API server"
	if assert.NotNil(t, spec.AutomountServiceAccountToken, "pod automountServiceAccountToken unset: %s", noToken) {
		assert.False(t, *spec.AutomountServiceAccountToken, "pod automountServiceAccountToken: %s", noToken)
	}
	if assert.NotNil(t, sa.AutomountServiceAccountToken, "ServiceAccount automountServiceAccountToken unset: %s", noToken) {
		assert.False(t, *sa.AutomountServiceAccountToken, "ServiceAccount automountServiceAccountToken: %s", noToken)
	}
	// Every node, whatever its taints.
	everywhere := false
	for _, tol := range spec.Tolerations {
		if tol.Operator == corev1.TolerationOpExists && tol.Key == "" && tol.Effect == "" {
			everywhere = true
		}
	}
	assert.True(t, everywhere, "tolerations %v do not tolerate every taint", spec.Tolerations)
	assert.Empty(t, cmp.Diff(map[string]string{"kubernetes.io/os": "linux"}, spec.NodeSelector), "nodeSelector: every Linux node, and no Windows node")
	assert.Nil(t, spec.Affinity, "the agent should run on every Linux node: affinity")

	// User 0 without any capability: the README explains why not non-root.
	psc := spec.SecurityContext
	const rootFiles = "the kubelet's files are root's, mode 0600"
	require.NotNil(t, psc, "pod securityContext: %s", rootFiles)
	if assert.NotNil(t, psc.RunAsUser, "pod securityContext.runAsUser: %s", rootFiles) {
		assert.Equal(t, int64(0), *psc.RunAsUser, "pod securityContext.runAsUser: %s", rootFiles)
	}
	if assert.NotNil(t, psc.RunAsNonRoot, "pod securityContext.runAsNonRoot: %s", rootFiles) {
		assert.False(t, *psc.RunAsNonRoot, "pod securityContext.runAsNonRoot: %s", rootFiles)
	}
	if spec.HostUsers != nil {
		assert.True(t, *spec.HostUsers, "hostUsers: false maps user 0 to an unprivileged host user that cannot read the kubelet's files")
	}
	if assert.NotNil(t, psc.SeccompProfile, "seccomp") {
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type, "seccomp")
	}
	require.Len(t, spec.Containers, 1, "want one container")
	require.Empty(t, spec.InitContainers, "want no init container")
	c := spec.Containers[0]
	sc := c.SecurityContext
	require.NotNil(t, sc, "container securityContext")
	if assert.NotNil(t, sc.Privileged, "container securityContext.privileged") {
		assert.False(t, *sc.Privileged, "container securityContext.privileged")
	}
	if assert.NotNil(t, sc.AllowPrivilegeEscalation, "container securityContext.allowPrivilegeEscalation") {
		assert.False(t, *sc.AllowPrivilegeEscalation, "container securityContext.allowPrivilegeEscalation")
	}
	if assert.NotNil(t, sc.ReadOnlyRootFilesystem, "container securityContext.readOnlyRootFilesystem") {
		assert.True(t, *sc.ReadOnlyRootFilesystem, "container securityContext.readOnlyRootFilesystem")
	}
	if assert.NotNil(t, sc.Capabilities, "container securityContext.capabilities") {
		assert.Empty(t, sc.Capabilities.Add, "container securityContext.capabilities.add")
		assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop, "container securityContext.capabilities.drop")
	}

	// Requests and limits for both CPU and memory.
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		assert.False(t, req.IsZero(), "%s: no request", r)
		assert.False(t, lim.IsZero(), "%s: no limit", r)
		assert.LessOrEqual(t, req.Cmp(lim), 0, "%s: request %v above limit %v", r, req.String(), lim.String())
	}

	// Every hostPath is a directory mounted read-only (the socket too:
	// TestSocketConnectThroughReadOnlyBindMount shows it is enough).
	hostPaths := map[string]string{}
	masks := map[string]bool{} // emptyDir volumes that hide parts of a host path
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil {
			const noSpace = "an emptyDir that only hides host directories needs no space"
			if assert.NotNil(t, v.EmptyDir.SizeLimit, "volume %s: %s, have no sizeLimit", v.Name, noSpace) {
				assert.LessOrEqual(t, v.EmptyDir.SizeLimit.Cmp(resource.MustParse("1Mi")), 0, "volume %s: %s, have sizeLimit %v", v.Name, noSpace, v.EmptyDir.SizeLimit)
			}
			masks[v.Name] = true
			continue
		}
		if !assert.NotNil(t, v.HostPath, "volume %s is neither a hostPath nor an emptyDir mask", v.Name) {
			continue
		}
		const stale = "want Directory (a file mount goes stale when the kubelet renames a new file over it)"
		if assert.NotNil(t, v.HostPath.Type, "volume %s: hostPath type unset, %s", v.Name, stale) {
			assert.Equal(t, corev1.HostPathDirectory, *v.HostPath.Type, "volume %s: hostPath type, %s", v.Name, stale)
		}
		hostPaths[v.Name] = v.HostPath.Path
	}
	mounts := map[string]string{} // host path → mount path
	hidden := map[string]bool{}   // mount paths covered by a mask
	for _, m := range c.VolumeMounts {
		if masks[m.Name] {
			hidden[m.MountPath] = true
			assert.True(t, m.ReadOnly, "mask %s at %s is not readOnly", m.Name, m.MountPath)
			continue
		}
		hp, ok := hostPaths[m.Name]
		if !assert.True(t, ok, "mount %s has no hostPath volume", m.Name) {
			continue
		}
		assert.True(t, m.ReadOnly, "mount %s (%s) is not readOnly", m.Name, hp)
		if m.MountPropagation != nil {
			assert.NotEqual(t, corev1.MountPropagationBidirectional, *m.MountPropagation, "mount %s: Bidirectional propagation needs a privileged container", m.Name)
		}
		mounts[hp] = m.MountPath
	}
	assert.Len(t, mounts, len(hostPaths), "volumes %v, mounts %v", hostPaths, mounts)
	root, ok := mounts["/var/lib/kubelet"]
	require.True(t, ok, "the kubelet root directory is not mounted: %v", mounts)
	const hostToContainer = "the kubelet root mount should use HostToContainer, so the kubelet's unmounts of pod volumes reach the container"
	if m := c.VolumeMounts[0]; assert.NotNil(t, m.MountPropagation, hostToContainer) {
		assert.Equal(t, corev1.MountPropagationHostToContainer, *m.MountPropagation, hostToContainer)
	}
	prDir, ok := mounts["/var/lib/kubelet/pod-resources"]
	require.True(t, ok, "the pod-resources directory is not mounted: %v", mounts)
	// Other pods' volumes (Secrets, tokens) and the plugins' sockets are
	// hidden; the kubelet creates these three directories at start
	// (setupDataDirs), so the mount points exist on every node.
	for _, dir := range []string{"pods", "plugins", "plugins_registry"} {
		assert.True(t, hidden[path.Join(root, dir)], "%s is not hidden under the kubelet root mount %s (masks: %v)", dir, root, hidden)
	}
	for m := range hidden {
		assert.True(t, strings.HasPrefix(m, root+"/"), "mask %s is not under the kubelet root mount %s", m, root)
		for _, kind := range statefile.Kinds() {
			p := path.Join(root, filepath.ToSlash(kind.PathIn("")))
			assert.False(t, strings.HasPrefix(p, m+"/"), "mask %s hides the checkpoint %s", m, p)
		}
	}
	assert.Len(t, hidden, 3, "masks %v: want exactly pods, plugins and plugins_registry", hidden)

	// The flags point into the mounts, and the probes at served paths.
	stateDir, ok := flagValue(c.Args, "state-dir")
	assert.True(t, ok, "no --state-dir")
	assert.Equal(t, root, stateDir, "--state-dir, the kubelet root is mounted at %q", root)
	socket, ok := flagValue(c.Args, "socket")
	assert.True(t, ok, "no --socket")
	assert.Equal(t, prDir, path.Dir(socket), "--socket=%q is not in %q", socket, prDir)
	assert.Equal(t, "kubelet.sock", path.Base(socket), "--socket=%q is not kubelet.sock", socket)
	listen, ok := flagValue(c.Args, "listen")
	assert.True(t, ok, "no --listen")
	require.Len(t, c.Ports, 1, "ports %+v", c.Ports)
	assert.Equal(t, listen, ":"+strconv.Itoa(int(c.Ports[0].ContainerPort)), "port %+v does not match --listen", c.Ports[0])
	assert.Equal(t, "metrics", c.Ports[0].Name, "port name")
	ann := ds.Spec.Template.Annotations
	assert.Equal(t, "true", ann["prometheus.io/scrape"], "scrape annotations %v", ann)
	assert.Equal(t, listen, ":"+ann["prometheus.io/port"], "scrape annotations %v do not match --listen", ann)
	assert.Equal(t, "/metrics", ann["prometheus.io/path"], "scrape annotations %v", ann)
	var nodeEnv bool
	for _, e := range c.Env {
		if e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" {
			nodeEnv = true
		}
	}
	assert.True(t, nodeEnv, "NODE_NAME is not set from spec.nodeName: reports would carry the pod name as node")
	var memEnv bool
	for _, e := range c.Env {
		if e.Name == memoryLimitEnv && e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil {
			r := e.ValueFrom.ResourceFieldRef
			memEnv = r.ContainerName == c.Name && r.Resource == "limits.memory" && (r.Divisor.IsZero() || r.Divisor.Cmp(resource.MustParse("1")) == 0)
		}
	}
	assert.True(t, memEnv, "%s is not set from the container's limits.memory in bytes: the Go memory limit would come from the cgroup only", memoryLimitEnv)
	// The image is pinned by digest, without a tag.
	assert.Regexp(t, regexp.MustCompile(`^[^:@]+/numascope-agent@sha256:[0-9a-f]{64}$`), c.Image, "image is not pinned by digest (REGISTRY/numascope-agent@sha256:<64 hex digits>)")
	_, once := flagValue(c.Args, "once")
	assert.False(t, once, "--once in a DaemonSet would restart the container forever")

	// Probes answer on the agent's own handler: /readyz only after a round.
	a := newAgent(config{interval: time.Minute, timeout: time.Second, node: "n", stateDir: "testdata/node/kubelet",
		socket: "none", sysfs: "testdata/node/sys", diagnose: true})
	hs := httptest.NewServer(a.handler())
	defer hs.Close()
	probes := map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe}
	for name, p := range probes {
		require.NotNil(t, p, "no %s probe", name)
		require.NotNil(t, p.HTTPGet, "no %s httpGet probe", name)
		assert.True(t, p.HTTPGet.Port.String() == "metrics" || p.HTTPGet.Port.IntValue() == int(c.Ports[0].ContainerPort),
			"%s probe port %s is not the metrics port (by name or number)", name, p.HTTPGet.Port.String())
	}
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path, "readiness probe path")
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path, "liveness probe path")
	status := func(p string) int {
		resp, err := http.Get(hs.URL + p)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusServiceUnavailable, status(c.ReadinessProbe.HTTPGet.Path), "readiness before the first round")
	assert.Equal(t, http.StatusOK, status(c.LivenessProbe.HTTPGet.Path), "liveness before the first round")
	a.round(t.Context())
	for _, p := range []string{c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path, ann["prometheus.io/path"]} {
		assert.Equal(t, http.StatusOK, status(p), "%s after a round", p)
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
