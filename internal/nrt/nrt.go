// Package nrt holds the NodeResourceTopology object (topology.node.k8s.io
// v1alpha1/v1alpha2, as resource-topology-exporter and NFD's
// topology-updater write it) in one place: topomgr reads it as a machine
// topology, diagnose compares its per-zone accounting with the kubelet's.
package nrt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/topotext"
	"github.com/numascope/numascope/internal/yamljson"
)

// Quantity is a resource.Quantity as a string or a bare number.
type Quantity string

// UnmarshalJSON reads a quoted or a bare quantity.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*q = Quantity(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("not a quantity: %s", b)
	}
	*q = Quantity(n.String())
	return nil
}

// Resource is one resource of a zone.
type Resource struct {
	Name        string   `json:"name"`
	Capacity    Quantity `json:"capacity"`
	Allocatable Quantity `json:"allocatable"`
	Available   Quantity `json:"available"`
}

// Zone is one zone; NUMA nodes are zones of type Node named "node-<id>".
type Zone struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Costs []struct {
		Name  string `json:"name"`
		Value int64  `json:"value"`
	} `json:"costs"`
	Resources []Resource `json:"resources"`
}

// Attribute is one name/value attribute of the object.
type Attribute struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Object is a NodeResourceTopology (noderesourcetopology-api
// v1alpha1/v1alpha2 types.go): the data is at the top level, not under
// spec. Items holds the objects of a NodeResourceTopologyList.
type Object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	TopologyPolicies []string    `json:"topologyPolicies"`
	Attributes       []Attribute `json:"attributes"`
	Zones            []Zone      `json:"zones"`
	Items            []Object    `json:"items"`
}

// Attribute returns the value of the named attribute.
func (o *Object) Attribute(name string) (string, bool) {
	for _, a := range o.Attributes {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Looks reports whether a document looks like a NodeResourceTopology.
func Looks(t []byte) bool {
	return bytes.Contains(t, []byte("NodeResourceTopology")) ||
		(bytes.Contains(t, []byte("zones")) && (bytes.Contains(t, []byte("type: Node")) || bytes.Contains(t, []byte(`"type":"Node"`)) || bytes.Contains(t, []byte(`"type": "Node"`))))
}

// NodeID reads a zone name "node-<id>".
func NodeID(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "node-")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 || id > topotext.MaxNodeID || strconv.Itoa(id) != s {
		return 0, false
	}
	return id, true
}

// LegacyPolicy maps a v1alpha1 topologyPolicies value
// ("SingleNUMANodeContainerLevel", ...) to the kubelet's policy and scope
// names; ok is false for a value it does not know.
func LegacyPolicy(v string) (policy, scope string, ok bool) {
	switch v {
	case "None":
		return "none", "", true
	case "BestEffort":
		return "best-effort", "", true
	case "Restricted":
		return "restricted", "", true
	case "SingleNUMANodeContainerLevel":
		return "single-numa-node", "container", true
	case "SingleNUMANodePodLevel":
		return "single-numa-node", "pod", true
	}
	return "", "", false
}

// Parse reads a NodeResourceTopology or a NodeResourceTopologyList (YAML
// or JSON, within input.CheckValues's budget); for a list it returns the
// first object and the number of objects.
func Parse(data []byte) (*Object, int, error) {
	js, err := yamljson.ToJSON(data, "NodeResourceTopology")
	if err != nil {
		return nil, 0, err
	}
	var obj Object
	if err := json.Unmarshal(js, &obj); err != nil {
		return nil, 0, fmt.Errorf("not a NodeResourceTopology: %w", err)
	}
	if len(obj.Items) > 0 {
		n := len(obj.Items)
		first := obj.Items[0]
		first.Items = nil
		return &first, n, nil
	}
	return &obj, 1, nil
}
