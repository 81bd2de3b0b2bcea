package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/internal/cluster"
)

// manifestObjects are the documents of a manifest file, in order.
func manifestObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		doc = append(doc, '\n') // the line break the split took, which ends a block scalar
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal(doc, &obj), "%s, document %d", file, i)
		require.NotEmpty(t, obj, "%s, document %d is empty", file, i)
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out
}

// podOf is a pod of the DaemonSet's template, as its controller would make
// it on node.
func podOf(t *testing.T, obj *unstructured.Unstructured, node string) *corev1.Pod {
	t.Helper()
	var ds appsv1.DaemonSet
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &ds))
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels,
		Annotations: ds.Spec.Template.Annotations}, Spec: *ds.Spec.Template.Spec.DeepCopy()}
	p.Spec.NodeName = node
	return p
}

// TestAgentManifestsAgainstAPIServer creates examples/agent/daemonset.yaml
// and npd-daemonset.yaml in a real kube-apiserver, as kubectl apply would,
// and the pods their DaemonSets would make (server-side dry run: Pod
// Security, the priority admission, validation), and checks what
// node-problem-detector's service account may do.
func TestAgentManifestsAgainstAPIServer(t *testing.T) {
	if !cluster.InNetns(t) {
		return
	}
	ctx := context.Background()
	c := cluster.Start(t, cluster.Options{})
	cs := c.Client
	dc, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	daemonSets := map[string]*unstructured.Unstructured{}
	for _, file := range []string{"../agent/daemonset.yaml", "../agent/npd-daemonset.yaml"} {
		for _, obj := range manifestObjects(t, file) {
			gvk := obj.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			require.NoError(t, err, "%s: %s", file, gvk)
			ri := dynamic.ResourceInterface(dc.Resource(m.Resource))
			if ns := obj.GetNamespace(); ns != "" {
				ri = dc.Resource(m.Resource).Namespace(ns)
			}
			_, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
			require.NoError(t, err, "%s: creating %s %s", file, gvk.Kind, obj.GetName())
			if gvk.Kind == "DaemonSet" {
				daemonSets[obj.GetName()] = obj
			}
		}
	}
	require.Contains(t, daemonSets, "numascope-agent")
	require.Contains(t, daemonSets, "numascope-npd")
	_, err = c.AddNode(ctx, cluster.Node{Name: "n1", Labels: map[string]string{"kubernetes.io/os": "linux"}, Capacity: map[string]string{"cpu": "4"}})
	require.NoError(t, err)

	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	t.Run("the pods of both DaemonSets are admitted, with the agent's priority", func(t *testing.T) {
		for _, name := range []string{"numascope-agent", "numascope-npd"} {
			p, err := cs.CoreV1().Pods("numascope").Create(ctx, podOf(t, daemonSets[name], "n1"), dry)
			require.NoError(t, err, name)
			assert.Equal(t, "numascope-node-agent", p.Spec.PriorityClassName, name)
			if assert.NotNil(t, p.Spec.Priority, name) {
				assert.Equal(t, int32(1000000), *p.Spec.Priority, name)
			}
			if assert.NotNil(t, p.Spec.PreemptionPolicy, name) {
				assert.Equal(t, corev1.PreemptNever, *p.Spec.PreemptionPolicy, "%s: the priority class's", name)
			}
		}
	})

	t.Run("system-node-critical would preempt the pinned workloads", func(t *testing.T) {
		// Why the agent has a class of its own: this API server (no
		// ResourceQuota limitedResources configured, Kubernetes' default)
		// admits system-node-critical in any namespace, and the pod would
		// preempt lower-priority pods to fit.
		p := podOf(t, daemonSets["numascope-agent"], "n1")
		p.Spec.PriorityClassName = "system-node-critical"
		got, err := cs.CoreV1().Pods("numascope").Create(ctx, p, dry)
		require.NoError(t, err)
		if assert.NotNil(t, got.Spec.PreemptionPolicy) {
			assert.Equal(t, corev1.PreemptLowerPriority, *got.Spec.PreemptionPolicy)
		}
		if assert.NotNil(t, got.Spec.Priority) {
			assert.Greater(t, *got.Spec.Priority, int32(1000000000))
		}
	})

	t.Run("a pod security level below privileged refuses them", func(t *testing.T) {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "base",
			Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		for _, name := range []string{"numascope-agent", "numascope-npd"} {
			p := podOf(t, daemonSets[name], "n1")
			p.Namespace = "base"
			_, err := cs.CoreV1().Pods("base").Create(ctx, p, dry)
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), "hostPath volumes", name)
		}
	})

	t.Run("node-problem-detector's account reports node conditions and events, and reads no secret", func(t *testing.T) {
		cfg, err := clientcmd.BuildConfigFromFlags("", c.TokenKubeconfig(t, "numascope", "numascope-npd"))
		require.NoError(t, err)
		asNPD, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		for _, tc := range []struct {
			attr    authorizationv1.ResourceAttributes
			allowed bool
		}{
			{authorizationv1.ResourceAttributes{Verb: "patch", Resource: "nodes", Subresource: "status"}, true},
			{authorizationv1.ResourceAttributes{Verb: "get", Resource: "nodes"}, true},
			{authorizationv1.ResourceAttributes{Verb: "create", Resource: "events", Namespace: "default"}, true},
			{authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: "numascope"}, false},
			{authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Namespace: "numascope"}, false},
			{authorizationv1.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "proxy"}, false},
		} {
			r, err := asNPD.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tc.attr}}, metav1.CreateOptions{})
			require.NoError(t, err)
			what := strings.TrimSuffix(tc.attr.Verb+" "+tc.attr.Resource+"/"+tc.attr.Subresource, "/")
			assert.Equal(t, tc.allowed, r.Status.Allowed, "%s (%s)", what, r.Status.Reason)
		}
	})
}
