package nrt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rteObject is shaped as resource-topology-exporter writes v1alpha2.
const rteObject = `apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata:
  name: worker-1
attributes:
- {name: topologyManagerPolicy, value: single-numa-node}
- {name: topologyManagerScope, value: pod}
topologyPolicies: [SingleNUMANodePodLevel]
zones:
- name: node-0
  type: Node
  costs: [{name: node-0, value: 10}, {name: node-1, value: 21}]
  resources:
  - {name: cpu, capacity: "8", allocatable: 6, available: "2"}
  - {name: memory, capacity: 32Gi, allocatable: 31Gi, available: 21Gi}
`

func TestParse(t *testing.T) {
	tests := []struct {
		name, doc string
		count     int
		want      []Resource
		wantErr   string
	}{
		{name: "object", doc: rteObject, count: 1, want: []Resource{
			{Name: "cpu", Capacity: "8", Allocatable: "6", Available: "2"},
			{Name: "memory", Capacity: "32Gi", Allocatable: "31Gi", Available: "21Gi"},
		}},
		{name: "list", doc: `{"kind":"NodeResourceTopologyList","items":[{"metadata":{"name":"a"},"zones":[{"name":"node-0","type":"Node","resources":[{"name":"cpu","capacity":"4","allocatable":"4","available":"4"}]}]},{"metadata":{"name":"b"}}]}`,
			count: 2, want: []Resource{{Name: "cpu", Capacity: "4", Allocatable: "4", Available: "4"}}},
		{name: "quantity not a scalar", doc: `{"kind":"NodeResourceTopology","zones":[{"name":"node-0","resources":[{"name":"cpu","available":{}}]}]}`, wantErr: "not a quantity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, n, err := Parse([]byte(tt.doc))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.count, n)
			require.NotEmpty(t, o.Zones)
			assert.Empty(t, o.Items)
			if d := cmp.Diff(tt.want, o.Zones[0].Resources); d != "" {
				t.Errorf("resources (-want +got):\n%s", d)
			}
		})
	}
}

func TestAttributeAndPolicies(t *testing.T) {
	o, _, err := Parse([]byte(rteObject))
	require.NoError(t, err)
	v, ok := o.Attribute("topologyManagerScope")
	assert.True(t, ok)
	assert.Equal(t, "pod", v)
	_, ok = o.Attribute("nope")
	assert.False(t, ok)

	tests := []struct {
		in, policy, scope string
		ok                bool
	}{
		{"SingleNUMANodeContainerLevel", "single-numa-node", "container", true},
		{"SingleNUMANodePodLevel", "single-numa-node", "pod", true},
		{"BestEffort", "best-effort", "", true},
		{"Restricted", "restricted", "", true},
		{"None", "none", "", true},
		{"single-numa-node", "", "", false},
	}
	for _, tt := range tests {
		p, s, ok := LegacyPolicy(tt.in)
		assert.Equal(t, []any{tt.policy, tt.scope, tt.ok}, []any{p, s, ok}, tt.in)
	}
}

func TestNodeID(t *testing.T) {
	tests := []struct {
		in string
		id int
		ok bool
	}{
		{"node-0", 0, true}, {"node-7", 7, true}, {"node-07", 0, false}, {"node--1", 0, false},
		{"socket-0", 0, false}, {"node-", 0, false}, {"node-99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		id, ok := NodeID(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.id, id, tt.in)
	}
}
