package topomgr

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/poddoc"
)

const guaranteedSpec = `
      containers:
      - name: fwd
        resources:
          limits: {cpu: "4", memory: 8Gi, hugepages-1Gi: 2Gi}
`

func TestParsePodsWorkloads(t *testing.T) {
	type want struct {
		Ref, Path, Owner, QOS string
		Containers            []string
	}
	for _, tc := range []struct {
		name, in string
		want     []want
	}{
		{"Deployment", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dpdk-fwd
  namespace: telco
  managedFields:
  - manager: kubectl
    fieldsV1: {f:spec: {}}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: dpdk-fwd}}
    spec:` + guaranteedSpec, []want{{"telco/dpdk-fwd", "/spec/template", "ReplicaSet", "Guaranteed", []string{"fwd"}}}},
		{"ReplicaSet", "kind: ReplicaSet\nmetadata: {name: rs, namespace: ns}\nspec:\n  template:\n    spec:" + guaranteedSpec,
			[]want{{"ns/rs", "/spec/template", "ReplicaSet", "Guaranteed", []string{"fwd"}}}},
		{"StatefulSet burstable", `kind: StatefulSet
metadata: {name: vrouter, namespace: telco}
spec:
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: "2"}}
`, []want{{"telco/vrouter", "/spec/template", "StatefulSet", "Burstable", []string{"c"}}}},
		{"DaemonSet with init container", `kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  template:
    spec:
      initContainers:
      - name: init
        resources: {limits: {cpu: "1", memory: 1Gi}}
      containers:
      - name: c
        resources: {limits: {cpu: "1", memory: 1Gi}}
`, []want{{"kube-system/agent", "/spec/template", "DaemonSet", "Guaranteed", []string{"init", "c"}}}},
		{"Job", "kind: Job\nmetadata: {name: etl, namespace: batch}\nspec:\n  template:\n    spec:" + guaranteedSpec,
			[]want{{"batch/etl", "/spec/template", "Job", "Guaranteed", []string{"fwd"}}}},
		{"CronJob", `kind: CronJob
metadata: {name: nightly, namespace: batch}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:` + `
          containers:
          - name: run
            resources: {limits: {cpu: 500m, memory: 1Gi}}
`, []want{{"batch/nightly", "/spec/jobTemplate/spec/template", "Job", "Guaranteed", []string{"run"}}}},
		{"List of a Deployment and a Pod", `{"kind":"List","items":[
 {"kind":"Deployment","metadata":{"name":"d","namespace":"n"},"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}},
 {"kind":"Service","metadata":{"name":"s"}},
 {"kind":"Pod","metadata":{"name":"p","namespace":"n"},"spec":{"containers":[{"name":"b"}]},"status":{"qosClass":"Burstable"}}]}`,
			[]want{{"n/d", "/items/0/spec/template", "ReplicaSet", "BestEffort", []string{"a"}}, {"n/p", "/items/2", "", "Burstable", []string{"b"}}}},
		{"multi-document stream", "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  template:\n    spec:" + guaranteedSpec + "--- # a pod\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers: [{name: x}]\n",
			[]want{{"ns/d", "/1/spec/template", "ReplicaSet", "Guaranteed", []string{"fwd"}}, {"ns/p", "/2", "", "BestEffort", []string{"x"}}}},
		{"JSON array of pods", `[{"kind":"Pod","metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c"}]}}]`,
			[]want{{"n/a", "/items/0", "", "BestEffort", []string{"c"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := ParsePods([]byte(tc.in))
			require.NoError(t, err)
			var got []want
			for _, p := range pods {
				w := want{Ref: p.Ref(), Path: p.Path, Owner: p.OwnerKind, QOS: string(p.QOS())}
				for _, c := range p.AllContainers() {
					w.Containers = append(w.Containers, c.Name)
				}
				got = append(got, w)
				if p.Path != "" && len(p.Path) >= len("/spec/template") && p.Path[len(p.Path)-len("/spec/template"):] == "/spec/template" {
					if assert.Len(t, p.Warnings(), 1, "template warning") {
						assert.Contains(t, p.Warnings()[0], "QoS computed from the template")
					}
				} else {
					assert.Empty(t, p.Warnings(), "a pod has no template warning")
				}
			}
			assert.Empty(t, cmp.Diff(tc.want, got), "pods (-want +got)")
		})
	}
}

func TestParsePodsTemplateErrorsNameTheTemplate(t *testing.T) {
	_, err := ParsePods([]byte("kind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        resources: {limits: {cpu: lots}}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/spec/template/spec/containers/0/resources/limits/cpu")
	_, err = ParsePods([]byte("kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 1}\n"))
	require.Error(t, err, "a Deployment without a template")
	_, err = ParsePods([]byte("kind: Service\nmetadata: {name: s}\n---\nkind: ConfigMap\n"))
	if assert.Error(t, err, "no pods among the documents") {
		assert.Contains(t, err.Error(), "Service, ConfigMap")
	}
	p, err := ParsePod([]byte("kind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n"))
	require.NoError(t, err, "ParsePod reads one workload's template")
	assert.Equal(t, "/spec/template", p.Path)
}

func TestParsePodsTextIsNotAPodObject(t *testing.T) {
	for name, in := range map[string]string{
		"get pods table":     "NAME                       READY   STATUS                  RESTARTS   AGE\ndpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError   0          41s\n",
		"get pods -A fenced": "```\nNAMESPACE   NAME   READY   STATUS   RESTARTS   AGE\ntelco   x   0/1   SMTAlignmentError   0   3s\n```\n",
		"headerless row":     "dpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError   0          41s\n",
		"events table":       "LAST SEEN   TYPE      REASON                  OBJECT         MESSAGE\n41s         Warning   TopologyAffinityError   pod/x          Resources cannot be allocated with Topology locality\n",
		"describe":           "Name:         x\nNamespace:    telco\nStatus:       Failed\nReason:       TopologyAffinityError\n",
		"kubelet message":    "Resources cannot be allocated with Topology locality\n",
	} {
		_, err := ParsePods([]byte(in))
		if assert.Error(t, err, name) {
			assert.True(t, errors.Is(err, poddoc.ErrNotPodObject), "%s: %v wraps ErrNotPodObject", name, err)
			assert.Contains(t, err.Error(), "--events", "%s: the error says where it goes", name)
			assert.NotContains(t, err.Error(), "cannot unmarshal", name)
		}
	}
}

func TestParsePodsBoundsTheDocuments(t *testing.T) {
	_, err := ParsePods([]byte(strings.Repeat("a: 1\n---\n", maxPodDocuments+5)))
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "more than 10000 YAML documents")
	}
}
