// Package poddoc decodes Pod objects as `kubectl get pod -o json|yaml`
// prints them (one Pod, or a List or PodList of pods) into typed structs:
// the one decoding of pods behind topomgr.ParsePods and
// podresources.QOSClassesFromPods.
package poddoc

import (
	"encoding/json"
	"fmt"
)

// Doc is one Pod, or a list whose Items are pods.
type Doc struct {
	Kind     string   `json:"kind"`
	Items    []Doc    `json:"items"`
	Metadata Metadata `json:"metadata"`
	Spec     Spec     `json:"spec"`
	Status   Status   `json:"status"`
}

// Metadata is the part of metadata numascope reads.
type Metadata struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace"`
	UID             string `json:"uid"`
	OwnerReferences []struct {
		Kind       string `json:"kind"`
		Controller *bool  `json:"controller"`
	} `json:"ownerReferences"`
}

// Spec is the part of spec numascope reads.
type Spec struct {
	NodeName       string      `json:"nodeName"`
	InitContainers []Container `json:"initContainers"`
	Containers     []Container `json:"containers"`
	Resources      *Resources  `json:"resources"`
}

// Container is one container of the spec.
type Container struct {
	Name          string    `json:"name"`
	RestartPolicy string    `json:"restartPolicy"`
	Resources     Resources `json:"resources"`
}

// Resources are requests and limits, each quantity as written (a JSON
// string or number).
type Resources struct {
	Requests map[string]json.RawMessage `json:"requests"`
	Limits   map[string]json.RawMessage `json:"limits"`
}

// Status is the part of status numascope reads.
type Status struct {
	Phase                 string            `json:"phase"`
	Reason                string            `json:"reason"`
	Message               string            `json:"message"`
	QOSClass              string            `json:"qosClass"`
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses"`
}

// ContainerStatus is one container's status.
type ContainerStatus struct {
	Name  string `json:"name"`
	State struct {
		Terminated *struct {
			ExitCode int `json:"exitCode"`
		} `json:"terminated"`
	} `json:"state"`
}

// IsList reports whether the document is a List or PodList (or has items
// and no kind).
func (d *Doc) IsList() bool {
	return d.Kind == "List" || d.Kind == "PodList" || (d.Kind == "" && len(d.Items) > 0)
}

// Pod is one pod of a document and its JSON pointer ("" for a lone pod).
type Pod struct {
	Path string
	Doc  *Doc
}

// Pods returns the pods of a document: itself, or its items that are pods
// (items of another kind are skipped).
func (d *Doc) Pods() []Pod {
	if !d.IsList() {
		return []Pod{{Doc: d}}
	}
	var out []Pod
	for i := range d.Items {
		if k := d.Items[i].Kind; k != "" && k != "Pod" {
			continue
		}
		out = append(out, Pod{Path: fmt.Sprintf("/items/%d", i), Doc: &d.Items[i]})
	}
	return out
}

// OwnerKind is the kind of the controller owner (Job, ReplicaSet, ...).
func (d *Doc) OwnerKind() string {
	kind := ""
	for _, o := range d.Metadata.OwnerReferences {
		if o.Controller == nil || *o.Controller {
			kind = o.Kind
		}
	}
	return kind
}

// Terminated reports which containers' status shows them finished.
func (d *Doc) Terminated() map[string]bool {
	out := map[string]bool{}
	for _, list := range [][]ContainerStatus{d.Status.InitContainerStatuses, d.Status.ContainerStatuses} {
		for _, s := range list {
			if s.State.Terminated != nil {
				out[s.Name] = true
			}
		}
	}
	return out
}

// QuantityText returns a quantity as written: the string, or the text of
// a bare number (`cpu: 2`). ok is false for anything else.
func QuantityText(raw json.RawMessage) (s string, ok bool) {
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}
