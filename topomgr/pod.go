package topomgr

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/yamljson"
)

// QoS classes.
const (
	QOSGuaranteed = "Guaranteed"
	QOSBurstable  = "Burstable"
	QOSBestEffort = "BestEffort"
)

type podDoc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		UID       string `json:"uid"`
	} `json:"metadata"`
	Spec struct {
		InitContainers []containerDoc `json:"initContainers"`
		Containers     []containerDoc `json:"containers"`
		Resources      *resourcesDoc  `json:"resources"`
	} `json:"spec"`
	Status struct {
		QOSClass string `json:"qosClass"`
	} `json:"status"`
}

type containerDoc struct {
	Name          string       `json:"name"`
	RestartPolicy string       `json:"restartPolicy"`
	Resources     resourcesDoc `json:"resources"`
}

type resourcesDoc struct {
	Requests map[string]json.RawMessage `json:"requests"`
	Limits   map[string]json.RawMessage `json:"limits"`
}

// MaxPodFileSize bounds the size of a pod manifest ParsePod accepts.
const MaxPodFileSize = 16 << 20

// ParsePod reads a pod as `kubectl get pod -o yaml` (or -o json) prints it.
// Quantities are checked; where a container sets a limit without a request,
// the request defaults to the limit, as the API server does. Errors name the
// field.
func ParsePod(data []byte) (*Pod, error) {
	if len(data) > MaxPodFileSize {
		return nil, fmt.Errorf("the pod manifest is larger than %d bytes", MaxPodFileSize)
	}
	js, err := yamljson.ToJSON(data, "pod")
	if err != nil {
		return nil, err
	}
	var doc podDoc
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("not a pod manifest: %w", err)
	}
	if doc.Kind != "" && doc.Kind != "Pod" {
		return nil, fmt.Errorf("kind: %q is not a Pod: give one pod (kubectl get pod NAME -o yaml)", doc.Kind)
	}
	if len(doc.Spec.Containers) == 0 {
		return nil, fmt.Errorf("spec.containers: a pod needs at least one container")
	}
	p := &Pod{Name: doc.Metadata.Name, Namespace: doc.Metadata.Namespace, UID: doc.Metadata.UID, QOSClass: doc.Status.QOSClass}
	if p.UID == "" {
		p.UID = "uid-of-" + p.Namespace + "/" + p.Name
	}
	seen := map[string]bool{}
	conv := func(list []containerDoc, field string) ([]Container, error) {
		var out []Container
		for i, c := range list {
			path := fmt.Sprintf("spec.%s[%d]", field, i)
			if c.Name == "" {
				return nil, fmt.Errorf("%s.name: missing", path)
			}
			if seen[c.Name] {
				return nil, fmt.Errorf("%s.name: %q is used twice", path, c.Name)
			}
			seen[c.Name] = true
			r, err := convResources(c.Resources, path+".resources", true)
			if err != nil {
				return nil, err
			}
			out = append(out, Container{Name: c.Name, RestartPolicy: c.RestartPolicy, Resources: r})
		}
		return out, nil
	}
	if p.InitContainers, err = conv(doc.Spec.InitContainers, "initContainers"); err != nil {
		return nil, err
	}
	if p.Containers, err = conv(doc.Spec.Containers, "containers"); err != nil {
		return nil, err
	}
	if doc.Spec.Resources != nil {
		r, err := convResources(*doc.Spec.Resources, "spec.resources", false)
		if err != nil {
			return nil, err
		}
		p.Resources = &r
	}
	return p, nil
}

func convResources(d resourcesDoc, path string, defaultRequests bool) (Resources, error) {
	out := Resources{}
	conv := func(m map[string]json.RawMessage, field string) (map[string]string, error) {
		if len(m) == 0 {
			return nil, nil
		}
		res := map[string]string{}
		for k, raw := range m {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				var n json.Number
				if err := json.Unmarshal(raw, &n); err != nil {
					return nil, fmt.Errorf("%s.%s.%s: a quantity is a string or a number", path, field, k)
				}
				s = n.String()
			}
			if _, err := ParseQuantity(s); err != nil {
				return nil, fmt.Errorf("%s.%s.%s: %w", path, field, k, err)
			}
			res[k] = s
		}
		return res, nil
	}
	var err error
	if out.Requests, err = conv(d.Requests, "requests"); err != nil {
		return out, err
	}
	if out.Limits, err = conv(d.Limits, "limits"); err != nil {
		return out, err
	}
	if defaultRequests {
		for k, v := range out.Limits {
			if _, ok := out.Requests[k]; !ok {
				if out.Requests == nil {
					out.Requests = map[string]string{}
				}
				out.Requests[k] = v
			}
		}
	}
	return out, nil
}

func (r Resources) quantity(m map[string]string, name string) Quantity {
	q, _ := ParseQuantity(m[name])
	return q
}

// Request returns the request for a resource (zero when unset).
func (r Resources) Request(name string) Quantity { return r.quantity(r.Requests, name) }

// Limit returns the limit for a resource (zero when unset).
func (r Resources) Limit(name string) Quantity { return r.quantity(r.Limits, name) }

func requirementsQOS(r *Resources) string {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return QOSBestEffort
	}
	qos := ""
	for _, res := range []string{"cpu", "memory"} {
		req, lim := r.Request(res), r.Limit(res)
		var q string
		switch {
		case req.Cmp(lim) != 0:
			return QOSBurstable
		case req.IsZero():
			q = QOSBestEffort
		default:
			q = QOSGuaranteed
		}
		if qos == "" {
			qos = q
		} else if qos != q {
			return QOSBurstable
		}
	}
	return qos
}

// QOS returns the pod's QoS class: status.qosClass when the manifest has
// it, else computed as kubelet 1.37 does (pod-level resources first).
func (p *Pod) QOS() string {
	if p.QOSClass != "" {
		return p.QOSClass
	}
	if p.Resources != nil {
		return requirementsQOS(p.Resources)
	}
	qos := ""
	for _, c := range p.AllContainers() {
		cq := requirementsQOS(&c.Resources)
		if cq == QOSBurstable {
			return cq
		}
		if qos == "" {
			qos = cq
		} else if qos != cq {
			return QOSBurstable
		}
	}
	if qos == "" {
		qos = QOSBestEffort
	}
	return qos
}

// isHugePages reports whether a resource name is a hugepages size.
func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
