package podresources

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/poddoc"
)

// PodsFile is the optional file in a snapshot directory with the node's pods
// as `kubectl get pods -o json` prints them; LoadDir takes QoS classes from it.
const PodsFile = "pods.json"

// QOSClassesFromPods reads pods as `kubectl get pods -A -o json` prints them
// (a PodList, a List, or one Pod) and returns each pod's status.qosClass keyed
// by "namespace/name", ready for Snapshot.SetQOSClasses. Pods without a class
// yet are left out.
func QOSClassesFromPods(data []byte) (map[string]QOSClass, error) {
	if err := input.CheckValues(data, "pods", input.ValueBudget{}); err != nil {
		return nil, err
	}
	var doc poddoc.Doc
	if err := json.Unmarshal(data, &doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset-1)
			return nil, fmt.Errorf("pods: not valid JSON at line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("pods: expected `kubectl get pods -o json` output: %w", err)
	}
	pods := doc.Items
	switch {
	case doc.Kind == "Pod":
		pods = []poddoc.Doc{doc}
	case doc.Kind != "PodList" && doc.Kind != "List":
		return nil, fmt.Errorf("pods: kind %q: expected a Pod, PodList or List as `kubectl get pods -A -o json` prints it", doc.Kind)
	}
	out := make(map[string]QOSClass, len(pods))
	for i, p := range pods {
		if p.Kind != "" && p.Kind != "Pod" {
			return nil, fmt.Errorf("pods: /items/%d is a %s, not a Pod", i, p.Kind)
		}
		if p.Metadata.Name == "" || p.Metadata.Namespace == "" {
			return nil, fmt.Errorf("pods: /items/%d has no metadata.name or metadata.namespace", i)
		}
		class := QOSClass(p.Status.QOSClass)
		if !class.Valid() {
			return nil, fmt.Errorf("pods: /items/%d/status/qosClass %q is not Guaranteed, Burstable or BestEffort", i, p.Status.QOSClass)
		}
		if class != "" {
			out[p.Metadata.Namespace+"/"+p.Metadata.Name] = class
		}
	}
	return out, nil
}
