package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// npdManifest decodes npd-daemonset.yaml strictly into the API types.
func npdManifest(t *testing.T) (*corev1.ConfigMap, *corev1.ServiceAccount, *rbacv1.ClusterRoleBinding, *appsv1.DaemonSet) {
	t.Helper()
	data, err := os.ReadFile("npd-daemonset.yaml")
	require.NoError(t, err)
	var cm *corev1.ConfigMap
	var sa *corev1.ServiceAccount
	var crb *rbacv1.ClusterRoleBinding
	var ds *appsv1.DaemonSet
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		doc = append(doc, '\n') // the line break the split took, which ends a block scalar
		var head struct{ APIVersion, Kind string }
		require.NoError(t, yaml.Unmarshal(doc, &head), "document %d", i)
		var into any
		switch head.APIVersion + " " + head.Kind {
		case "v1 ConfigMap":
			cm = &corev1.ConfigMap{}
			into = cm
		case "v1 ServiceAccount":
			sa = &corev1.ServiceAccount{}
			into = sa
		case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
			crb = &rbacv1.ClusterRoleBinding{}
			into = crb
		case "apps/v1 DaemonSet":
			ds = &appsv1.DaemonSet{}
			into = ds
		default:
			require.Failf(t, "unexpected document", "document %d: %s %s", i, head.APIVersion, head.Kind)
		}
		require.NoError(t, yaml.UnmarshalStrict(doc, into), "document %d (%s)", i, head.Kind)
	}
	require.NotNil(t, cm, "no ConfigMap")
	require.NotNil(t, sa, "no ServiceAccount")
	require.NotNil(t, crb, "no ClusterRoleBinding")
	require.NotNil(t, ds, "no DaemonSet")
	return cm, sa, crb, ds
}

func mountOf(c corev1.Container, volume string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.Name == volume {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

// TestNPDDaemonSet: npd-daemonset.yaml runs npd-numascope.json as it is,
// its init container puts the agent of daemonset.yaml's image where the
// rule runs it (checked by running the init container's arguments), the
// node-problem-detector container sees the kubelet's files where the
// rule's arguments look, as the agent DaemonSet does, and with the same
// privileges; it goes where the agent goes, with its priority.
func TestNPDDaemonSet(t *testing.T) {
	cm, sa, crb, ds := npdManifest(t)
	agentDS, ns, _ := manifest(t)
	spec := ds.Spec.Template.Spec
	agentSpec := agentDS.Spec.Template.Spec

	for _, o := range []string{cm.Namespace, sa.Namespace, ds.Namespace} {
		assert.Equal(t, ns.Name, o, "every object in daemonset.yaml's namespace")
	}
	assert.Equal(t, sa.Name, spec.ServiceAccountName)
	assert.Equal(t, "system:node-problem-detector", crb.RoleRef.Name, "the bootstrap role for node-problem-detector, and nothing more")
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}}, crb.Subjects)
	assert.Empty(t, cmp.Diff(agentSpec.NodeSelector, spec.NodeSelector), "nodeSelector: the agent's")
	assert.Equal(t, agentSpec.PriorityClassName, spec.PriorityClassName, "priorityClassName: the agent's")
	assert.Empty(t, cmp.Diff(agentSpec.Tolerations, spec.Tolerations), "tolerations: the agent's")
	for k, v := range ds.Spec.Selector.MatchLabels {
		assert.Equal(t, v, ds.Spec.Template.Labels[k], "selector %s=%s", k, v)
	}

	// The ConfigMap holds npd-numascope.json byte for byte.
	file, err := os.ReadFile("npd-numascope.json")
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(string(file), cm.Data["npd-numascope.json"]), "the ConfigMap's npd-numascope.json (- the file, + the ConfigMap)")
	var cfg struct {
		Rules []struct {
			Path string
			Args []string
		}
	}
	require.NoError(t, json.Unmarshal(file, &cfg))
	require.Len(t, cfg.Rules, 1)
	rule := cfg.Rules[0]

	require.Len(t, spec.Containers, 1)
	npd := spec.Containers[0]
	cfgMount, ok := mountOf(npd, "config")
	require.True(t, ok, "no config mount")
	assert.True(t, cfgMount.ReadOnly)
	assert.Contains(t, npd.Command, "--config.custom-plugin-monitor="+path.Join(cfgMount.MountPath, "npd-numascope.json"))
	var cfgVolume, binVolume *corev1.Volume
	for i, v := range spec.Volumes {
		switch v.Name {
		case "config":
			cfgVolume = &spec.Volumes[i]
		case "numascope-bin":
			binVolume = &spec.Volumes[i]
		}
	}
	require.NotNil(t, cfgVolume)
	require.NotNil(t, cfgVolume.ConfigMap, "the config volume is the ConfigMap")
	assert.Equal(t, cm.Name, cfgVolume.ConfigMap.Name)
	require.NotNil(t, binVolume)
	require.NotNil(t, binVolume.EmptyDir, "the agent's volume is an emptyDir")

	// The init container installs daemonset.yaml's agent where the rule runs it.
	require.Len(t, spec.InitContainers, 1)
	init := spec.InitContainers[0]
	assert.Equal(t, agentSpec.Containers[0].Image, init.Image, "the init container runs the agent DaemonSet's image")
	initMount, ok := mountOf(init, "numascope-bin")
	require.True(t, ok)
	binMount, ok := mountOf(npd, "numascope-bin")
	require.True(t, ok)
	assert.True(t, binMount.ReadOnly, "node-problem-detector only runs the agent")
	assert.Equal(t, path.Join(binMount.MountPath, installName), rule.Path, "the rule runs the installed agent")
	require.Equal(t, []string{"--install", initMount.MountPath}, init.Args)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--install", dir}, &out, &errb), errb.String())
	_, err = os.Stat(filepath.Join(dir, path.Base(rule.Path)))
	assert.NoError(t, err, "the init container's arguments write the file the rule runs")
	isc := init.SecurityContext
	require.NotNil(t, isc)
	if assert.NotNil(t, isc.RunAsNonRoot) {
		assert.True(t, *isc.RunAsNonRoot, "the init container only copies a file: not root")
	}
	assert.Empty(t, cmp.Diff(agentSpec.Containers[0].SecurityContext.Capabilities, isc.Capabilities))
	if assert.NotNil(t, isc.ReadOnlyRootFilesystem) {
		assert.True(t, *isc.ReadOnlyRootFilesystem)
	}

	// node-problem-detector runs the agent with the agent DaemonSet's
	// privileges: user 0 without capabilities, the same seccomp profile.
	want := agentSpec.Containers[0].SecurityContext.DeepCopy()
	want.RunAsUser, want.RunAsGroup, want.RunAsNonRoot = agentSpec.SecurityContext.RunAsUser, agentSpec.SecurityContext.RunAsGroup, agentSpec.SecurityContext.RunAsNonRoot
	want.SeccompProfile = agentSpec.SecurityContext.SeccompProfile
	assert.Empty(t, cmp.Diff(want, npd.SecurityContext), "the node-problem-detector container's securityContext (- the agent's, + this one)")
	for _, f := range []struct {
		name       string
		agent, npd any
	}{
		{"hostUsers", agentSpec.HostUsers, spec.HostUsers},
		{"hostNetwork", agentSpec.HostNetwork, spec.HostNetwork},
		{"hostPID", agentSpec.HostPID, spec.HostPID},
		{"hostIPC", agentSpec.HostIPC, spec.HostIPC},
	} {
		assert.Empty(t, cmp.Diff(f.agent, f.npd), f.name)
	}

	// The kubelet's files where the rule's --state-dir looks, as the agent
	// DaemonSet mounts them: the root read-only, pods/, plugins/ and
	// plugins_registry/ hidden.
	stateDir := ""
	for i, a := range rule.Args {
		if a == "--state-dir" && i+1 < len(rule.Args) {
			stateDir = rule.Args[i+1]
		}
	}
	require.NotEmpty(t, stateDir, "the rule gives --state-dir")
	root, ok := mountOf(npd, "kubelet-root")
	require.True(t, ok)
	agentRoot, ok := mountOf(agentDS.Spec.Template.Spec.Containers[0], "kubelet-root")
	require.True(t, ok)
	assert.Equal(t, stateDir, root.MountPath, "--state-dir of the rule is the kubelet root's mount")
	assert.Empty(t, cmp.Diff(agentRoot.ReadOnly, root.ReadOnly), "readOnly as the agent's")
	assert.Empty(t, cmp.Diff(agentRoot.MountPropagation, root.MountPropagation), "mountPropagation as the agent's")
	var hidden []string
	for _, m := range npd.VolumeMounts {
		if m.Name == "hidden" {
			assert.True(t, m.ReadOnly)
			hidden = append(hidden, strings.TrimPrefix(m.MountPath, root.MountPath+"/"))
		}
	}
	assert.Equal(t, []string{"pods", "plugins", "plugins_registry"}, hidden)
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			assert.Equal(t, "/var/lib/kubelet", v.HostPath.Path, "the only host path is the kubelet's root")
			if assert.NotNil(t, v.HostPath.Type) {
				assert.Equal(t, corev1.HostPathDirectory, *v.HostPath.Type)
			}
		}
	}
	assert.Regexp(t, `^registry\.k8s\.io/node-problem-detector/node-problem-detector:v[0-9.]+@sha256:[0-9a-f]{64}$`, npd.Image, "node-problem-detector's image is pinned by digest")
}
