// Package poddoc decodes Pod objects as `kubectl get pod -o json|yaml`
// prints them (one Pod, or a List or PodList of pods) into typed structs:
// the one decoding of pods behind topomgr.ParsePods and
// podresources.QOSClassesFromPods. It also finds the pod template of a
// workload (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob).
package poddoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNotPodObject is wrapped by the errors of readers given text that is
// not a Kubernetes object at all (a `kubectl get pods` table, `kubectl
// describe` output, a kubelet message): the caller can read it as events.
var ErrNotPodObject = errors.New("not a Pod object")

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
	// Template is the pod template of a Deployment, ReplicaSet,
	// StatefulSet, DaemonSet or Job; JobTemplate holds a CronJob's.
	Template    *Template `json:"template"`
	JobTemplate *struct {
		Spec struct {
			Template *Template `json:"template"`
		} `json:"spec"`
	} `json:"jobTemplate"`
}

// Template is a pod template: metadata and spec, no status.
type Template struct {
	Metadata Metadata `json:"metadata"`
	Spec     Spec     `json:"spec"`
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
	// Workload is the kind of the object whose pod template this is
	// ("Deployment", "CronJob", ...); "" for a Pod. A template has no
	// status: its QoS class must be computed.
	Workload string
}

// workloadOwner maps a workload kind to the kind that owns its pods.
var workloadOwner = map[string]string{
	"Deployment": "ReplicaSet", "ReplicaSet": "ReplicaSet", "StatefulSet": "StatefulSet",
	"DaemonSet": "DaemonSet", "Job": "Job", "CronJob": "Job",
	"ReplicationController": "ReplicationController",
}

// IsWorkload reports whether kind is a workload with a pod template.
func IsWorkload(kind string) bool { return workloadOwner[kind] != "" }

// Pods returns the pods of a document: itself, its items that are pods,
// or the pod template of a workload (items of another kind are skipped).
// A template pod takes the workload's name and namespace where its own
// metadata has none, and its Path points at the template.
func (d *Doc) Pods() []Pod {
	if !d.IsList() {
		if p, ok := d.pod(""); ok {
			return []Pod{p}
		}
		return nil
	}
	var out []Pod
	for i := range d.Items {
		it := &d.Items[i]
		if k := it.Kind; k != "" && k != "Pod" && !IsWorkload(k) {
			continue
		}
		if p, ok := it.pod(fmt.Sprintf("/items/%d", i)); ok {
			out = append(out, p)
		}
	}
	return out
}

func (d *Doc) pod(path string) (Pod, bool) {
	if !IsWorkload(d.Kind) {
		return Pod{Path: path, Doc: d}, true
	}
	t, tpath := d.Spec.Template, "/spec/template"
	if d.Kind == "CronJob" {
		t, tpath = nil, "/spec/jobTemplate/spec/template"
		if d.Spec.JobTemplate != nil {
			t = d.Spec.JobTemplate.Spec.Template
		}
	}
	if t == nil {
		return Pod{}, false
	}
	md := t.Metadata
	if md.Name == "" {
		md.Name = d.Metadata.Name
	}
	if md.Namespace == "" {
		md.Namespace = d.Metadata.Namespace
	}
	ctrl := true
	md.OwnerReferences = append(md.OwnerReferences[:0:0], struct {
		Kind       string `json:"kind"`
		Controller *bool  `json:"controller"`
	}{Kind: workloadOwner[d.Kind], Controller: &ctrl})
	return Pod{Path: path + tpath, Doc: &Doc{Kind: "Pod", Metadata: md, Spec: t.Spec}, Workload: d.Kind}, true
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

// TextKind names what a text that is not a Kubernetes object looks like
// ("a `kubectl get pods` table", "`kubectl describe` output", ...), or
// returns "" when it may be an object. It reads at most the first 200
// lines and stops at the first line that starts a JSON or YAML object.
func TextKind(data []byte) string {
	markers := map[string]bool{}
	lines := 0
	for len(data) > 0 && lines < 200 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		t := strings.TrimRight(string(line), "\r \t")
		t = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(t, ">"), " "), " \t")
		if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "$ ") {
			continue
		}
		lines++
		switch {
		case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "apiVersion:") ||
			strings.HasPrefix(t, "kind:") || strings.HasPrefix(t, "items:") || strings.HasPrefix(t, "metadata:") || t == "---":
			return ""
		case reGetPodsHeader.MatchString(t):
			return "a `kubectl get pods` table"
		case reEventsHeader.MatchString(t):
			return "a `kubectl get events` table"
		}
		if k, _, ok := strings.Cut(t, ":"); ok && describeMarkers[k] && len(line) > 0 && line[0] != ' ' {
			markers[k] = true
		}
	}
	if markers["Name"] && len(markers) >= 2 || markers["Events"] && len(markers) >= 2 {
		return "`kubectl describe` output"
	}
	return ""
}

var (
	reGetPodsHeader = regexp.MustCompile(`^(NAMESPACE\s+)?NAME\s+READY\s+STATUS(\s|$)`)
	reEventsHeader  = regexp.MustCompile(`^(NAMESPACE\s+)?LAST SEEN\s+(TYPE|FIRST SEEN)\s`)
	describeMarkers = map[string]bool{"Name": true, "Namespace": true, "Priority": true, "Node": true, "Start Time": true,
		"Status": true, "Controlled By": true, "Containers": true, "Conditions": true, "QoS Class": true, "Events": true,
		"Service Account": true, "Node-Selectors": true, "Tolerations": true, "IP": true, "IPs": true}
)
