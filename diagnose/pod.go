package diagnose

import (
	"encoding/json"
	"fmt"
	"github.com/numascope/numascope/topomgr"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/yamljson"
)

// Pod is the part of a Pod object (`kubectl get pod -o yaml|json`) that
// matters for resource alignment.
type Pod struct {
	// Source is the file the pod came from; Path is its JSON pointer in that
	// file ("" for a single pod, "/items/2" inside a List).
	Source    string `json:"source"`
	Path      string `json:"path,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	NodeName  string `json:"nodeName,omitempty"`
	// OwnerKind is the kind of the controller owner (Job, ReplicaSet, ...).
	OwnerKind string `json:"ownerKind,omitempty"`
	// QOSClass is status.qosClass, or computed from the requests and limits when the status has none.
	QOSClass       string      `json:"qosClass"`
	Phase          string      `json:"phase,omitempty"`
	Reason         string      `json:"reason,omitempty"`
	Message        string      `json:"message,omitempty"`
	InitContainers []Container `json:"initContainers,omitempty"`
	Containers     []Container `json:"containers"`
}

// Ref returns "namespace/name".
func (p *Pod) Ref() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// Container is one container's resources and state.
type Container struct {
	Name string `json:"name"`
	// Init is set for init containers; Restartable for init containers with
	// restartPolicy Always (sidecars).
	Init        bool                        `json:"init,omitempty"`
	Restartable bool                        `json:"restartable,omitempty"`
	Requests    map[string]topomgr.Quantity `json:"-"`
	Limits      map[string]topomgr.Quantity `json:"-"`
	// Terminated is set when the container status shows it has finished.
	Terminated bool `json:"terminated,omitempty"`
	// Path is the JSON pointer of the container in the pod source.
	Path string `json:"path"`
}

// Request returns the effective request of resource r: the request, or the
// limit when no request is set (the API server defaults it that way).
func (c Container) Request(r string) (topomgr.Quantity, bool) {
	if q, ok := c.Requests[r]; ok {
		return q, true
	}
	q, ok := c.Limits[r]
	return q, ok
}

type podJSON struct {
	Kind     string            `json:"kind"`
	Items    []json.RawMessage `json:"items"`
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		UID             string `json:"uid"`
		OwnerReferences []struct {
			Kind       string `json:"kind"`
			Controller *bool  `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		NodeName       string          `json:"nodeName"`
		InitContainers []containerJSON `json:"initContainers"`
		Containers     []containerJSON `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase                 string       `json:"phase"`
		Reason                string       `json:"reason"`
		Message               string       `json:"message"`
		QOSClass              string       `json:"qosClass"`
		InitContainerStatuses []statusJSON `json:"initContainerStatuses"`
		ContainerStatuses     []statusJSON `json:"containerStatuses"`
	} `json:"status"`
}

type containerJSON struct {
	Name          string `json:"name"`
	RestartPolicy string `json:"restartPolicy"`
	Resources     struct {
		Requests map[string]json.RawMessage `json:"requests"`
		Limits   map[string]json.RawMessage `json:"limits"`
	} `json:"resources"`
}

type statusJSON struct {
	Name  string `json:"name"`
	State struct {
		Terminated *struct {
			ExitCode int `json:"exitCode"`
		} `json:"terminated"`
	} `json:"state"`
}

// maxEvidenceSize bounds one evidence document.
const maxEvidenceSize = 64 << 20

// ParsePods reads `kubectl get pod -o yaml|json` output: one Pod, or a List
// of pods. name is used in errors and evidence references.
func ParsePods(name string, data []byte) ([]*Pod, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for a pod document", name, len(data), maxEvidenceSize)
	}
	js, err := yamljson.ToJSON(data, name)
	if err != nil {
		return nil, fmt.Errorf("%w (pass the output of `kubectl get pod NAME -o yaml`)", err)
	}
	var top podJSON
	if err := json.Unmarshal(js, &top); err != nil {
		return nil, fmt.Errorf("%s: not a Pod object: %w (pass the output of `kubectl get pod NAME -o yaml`)", name, err)
	}
	if top.Kind == "List" || top.Kind == "PodList" || (top.Kind == "" && len(top.Items) > 0) {
		var out []*Pod
		for i, item := range top.Items {
			var pj podJSON
			path := fmt.Sprintf("/items/%d", i)
			if err := json.Unmarshal(item, &pj); err != nil {
				return nil, fmt.Errorf("%s: %s: not a Pod object: %w", name, path, err)
			}
			if pj.Kind != "" && pj.Kind != "Pod" {
				continue
			}
			p, err := buildPod(name, path, &pj)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: the list holds no Pod", name)
		}
		return out, nil
	}
	if top.Kind != "" && top.Kind != "Pod" {
		return nil, fmt.Errorf("%s: /kind: %q is not a Pod (pass `kubectl get pod NAME -o yaml`)", name, top.Kind)
	}
	p, err := buildPod(name, "", &top)
	if err != nil {
		return nil, err
	}
	return []*Pod{p}, nil
}

func buildPod(name, path string, pj *podJSON) (*Pod, error) {
	if pj.Metadata.Name == "" && len(pj.Spec.Containers) == 0 {
		return nil, fmt.Errorf("%s: %s/metadata/name: the document has no pod name and no containers (pass `kubectl get pod NAME -o yaml`)", name, path)
	}
	p := &Pod{
		Source: name, Path: path,
		Namespace: pj.Metadata.Namespace, Name: pj.Metadata.Name, UID: pj.Metadata.UID,
		NodeName: pj.Spec.NodeName, Phase: pj.Status.Phase, Reason: pj.Status.Reason, Message: pj.Status.Message,
		QOSClass: pj.Status.QOSClass,
	}
	for _, o := range pj.Metadata.OwnerReferences {
		if o.Controller == nil || *o.Controller {
			p.OwnerKind = o.Kind
		}
	}
	terminated := map[string]bool{}
	for _, s := range append(append([]statusJSON{}, pj.Status.InitContainerStatuses...), pj.Status.ContainerStatuses...) {
		if s.State.Terminated != nil {
			terminated[s.Name] = true
		}
	}
	conv := func(list []containerJSON, init bool, field string) ([]Container, error) {
		var out []Container
		for i, c := range list {
			cp := fmt.Sprintf("%s/spec/%s/%d", path, field, i)
			ct := Container{Name: c.Name, Init: init, Restartable: init && c.RestartPolicy == "Always", Path: cp, Terminated: terminated[c.Name]}
			var err error
			if ct.Requests, err = quantities(name, cp+"/resources/requests", c.Resources.Requests); err != nil {
				return nil, err
			}
			if ct.Limits, err = quantities(name, cp+"/resources/limits", c.Resources.Limits); err != nil {
				return nil, err
			}
			out = append(out, ct)
		}
		return out, nil
	}
	var err error
	if p.InitContainers, err = conv(pj.Spec.InitContainers, true, "initContainers"); err != nil {
		return nil, err
	}
	if p.Containers, err = conv(pj.Spec.Containers, false, "containers"); err != nil {
		return nil, err
	}
	if p.QOSClass == "" {
		p.QOSClass = computeQOS(p)
	}
	return p, nil
}

func quantities(file, path string, m map[string]json.RawMessage) (map[string]topomgr.Quantity, error) {
	out := map[string]topomgr.Quantity{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := strings.TrimSpace(string(m[k]))
		var s string
		if json.Unmarshal(m[k], &s) != nil {
			s = raw // a bare YAML number such as `cpu: 2`
		}
		q, err := topomgr.ParseQuantity(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s/%s: %w", file, path, jsonPointerEscape(k), err)
		}
		out[k] = q
	}
	return out, nil
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// computeQOS follows the kubelet's QoS rules over cpu and memory of every
// container (init containers included).
func computeQOS(p *Pod) string {
	all := append(append([]Container{}, p.InitContainers...), p.Containers...)
	any, guaranteed := false, true
	for _, c := range all {
		for _, r := range []string{"cpu", "memory"} {
			req, hasReq := c.Requests[r]
			lim, hasLim := c.Limits[r]
			if (hasReq && !req.IsZero()) || (hasLim && !lim.IsZero()) {
				any = true
			}
			if !hasLim || lim.IsZero() {
				guaranteed = false
			} else if hasReq && req.Cmp(lim) != 0 {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}
