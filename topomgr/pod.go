package topomgr

import (
	"encoding/json"
	"fmt"
	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/podresources"
	"maps"
	"slices"
	"strings"

	"github.com/numascope/numascope/internal/poddoc"
	"github.com/numascope/numascope/internal/yamljson"
)

// maxPodFileSize bounds the size of a pod manifest ParsePod accepts.
const maxPodFileSize = 16 << 20

// ParsePod reads one pod as `kubectl get pod -o yaml` (or -o json) prints
// it. See ParsePods.
func ParsePod(data []byte) (*Pod, error) {
	doc, err := decodePods(data)
	if err != nil {
		return nil, err
	}
	if doc.IsList() || (doc.Kind != "" && doc.Kind != "Pod") {
		return nil, fmt.Errorf("/kind: %q is not a Pod (pass `kubectl get pod NAME -o yaml`)", doc.Kind)
	}
	return podFromDoc(doc, "")
}

// ParsePods reads `kubectl get pod -o yaml|json` output: one Pod, or a List
// or PodList of pods (items of another kind are skipped). Quantities are
// checked; where a container sets a limit without a request, the request
// defaults to the limit, and pod-level requests default as the API server
// defaults them. Errors name the field with a JSON pointer.
func ParsePods(data []byte) ([]*Pod, error) {
	doc, err := decodePods(data)
	if err != nil {
		return nil, err
	}
	if !doc.IsList() && doc.Kind != "" && doc.Kind != "Pod" {
		return nil, fmt.Errorf("/kind: %q is not a Pod (pass `kubectl get pod NAME -o yaml`)", doc.Kind)
	}
	var out []*Pod
	for _, item := range doc.Pods() {
		p, err := podFromDoc(item.Doc, item.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("/items: the list holds no Pod")
	}
	return out, nil
}

func decodePods(data []byte) (*poddoc.Doc, error) {
	if len(data) > maxPodFileSize {
		return nil, fmt.Errorf("the pod manifest is larger than %d bytes", maxPodFileSize)
	}
	js, err := yamljson.ToJSON(data, "pod")
	if err != nil {
		return nil, err
	}
	var doc poddoc.Doc
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("not a pod manifest: %w", err)
	}
	return &doc, nil
}

func podFromDoc(doc *poddoc.Doc, path string) (*Pod, error) {
	if len(doc.Spec.Containers) == 0 {
		return nil, fmt.Errorf("%s/spec/containers: a pod needs at least one container", path)
	}
	p := &Pod{Name: doc.Metadata.Name, Namespace: doc.Metadata.Namespace, UID: doc.Metadata.UID, QOSClass: podresources.QOSClass(doc.Status.QOSClass),
		Path: path, NodeName: doc.Spec.NodeName, OwnerKind: doc.OwnerKind(),
		Phase: doc.Status.Phase, Reason: doc.Status.Reason, Message: doc.Status.Message}
	if p.UID == "" {
		p.UID = "uid-of-" + p.Namespace + "/" + p.Name
	}
	terminated := doc.Terminated()
	seen := map[string]bool{}
	conv := func(list []poddoc.Container, field string) ([]Container, error) {
		var out []Container
		for i, c := range list {
			cpath := fmt.Sprintf("%s/spec/%s/%d", path, field, i)
			if c.Name == "" {
				return nil, fmt.Errorf("%s/name: missing", cpath)
			}
			if seen[c.Name] {
				return nil, fmt.Errorf("%s/name: %q is used twice", cpath, c.Name)
			}
			seen[c.Name] = true
			r, err := convResources(c.Resources, cpath+"/resources", true)
			if err != nil {
				return nil, err
			}
			out = append(out, Container{Name: c.Name, RestartPolicy: c.RestartPolicy, Resources: r, Path: cpath, Terminated: terminated[c.Name]})
		}
		return out, nil
	}
	var err error
	if p.InitContainers, err = conv(doc.Spec.InitContainers, "initContainers"); err != nil {
		return nil, err
	}
	if p.Containers, err = conv(doc.Spec.Containers, "containers"); err != nil {
		return nil, err
	}
	if doc.Spec.Resources != nil {
		r, err := convResources(*doc.Spec.Resources, path+"/spec/resources", false)
		if err != nil {
			return nil, err
		}
		p.Resources = &r
		defaultPodLevelResources(p)
	}
	return p, nil
}

func convResources(d poddoc.Resources, path string, defaultRequests bool) (Resources, error) {
	out := Resources{}
	conv := func(m map[string]json.RawMessage, field string) (map[string]string, error) {
		if len(m) == 0 {
			return nil, nil
		}
		res := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s, ok := poddoc.QuantityText(m[k])
			// resource.Quantity's UnmarshalJSON trims spaces around the text.
			s = strings.TrimSpace(s)
			if !ok {
				return nil, fmt.Errorf("%s/%s/%s: a quantity is a string or a number", path, field, jsonptr.Escape(k))
			}
			if _, err := ParseQuantity(s); err != nil {
				return nil, fmt.Errorf("%s/%s/%s: %w", path, field, jsonptr.Escape(k), err)
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

// isPodLevelResource reports whether pod-level resources may set name
// (cpu, memory and huge pages, as resourcehelper.IsSupportedPodLevelResource).
func isPodLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || isHugePages(name)
}

// podLevelResourcesSet is resourcehelper.IsPodLevelResourcesSet: spec.resources
// names a resource pod-level resources support.
func (p *Pod) podLevelResourcesSet() bool {
	if p.Resources == nil {
		return false
	}
	for _, m := range []map[string]string{p.Resources.Requests, p.Resources.Limits} {
		for k := range m {
			if isPodLevelResource(k) {
				return true
			}
		}
	}
	return false
}

// defaultPodLevelResources fills pod-level resources as the API server does
// when it creates a pod (PrepareForCreate's DefaultPodLevelResources, with
// PodLevelResourcesFixDefaulting on, the 1.37 default), before it computes
// status.qosClass:
//   - a huge pages size the containers limit and the pod neither requests
//     nor limits gets the containers' aggregated limit as pod-level limit;
//   - a pod-level request the pod does not set is the containers' aggregated
//     request (cpu, memory), else the pod-level limit;
//   - a pod-level request without a pod-level limit gets a limit when every
//     container limits that resource: the larger of the aggregated limit and
//     the request.
func defaultPodLevelResources(p *Pod) {
	r := p.Resources
	if r == nil || len(r.Requests) == 0 && len(r.Limits) == 0 {
		return
	}
	if r.Requests == nil {
		r.Requests = map[string]string{}
	}
	if r.Limits == nil {
		r.Limits = map[string]string{}
	}
	limitNames, requestNames := map[string]bool{}, map[string]bool{}
	for _, c := range p.AllContainers() {
		for k := range c.Resources.Limits {
			limitNames[k] = true
		}
		for k := range c.Resources.Requests {
			requestNames[k] = true
		}
	}
	for k := range limitNames {
		if !isHugePages(k) {
			continue
		}
		_, requested := r.Requests[k]
		if _, limited := r.Limits[k]; !requested && !limited {
			r.Limits[k] = p.aggregateContainer(k, limitsOf).String()
		}
	}
	for k := range requestNames {
		if _, ok := r.Requests[k]; !ok && (k == "cpu" || k == "memory") {
			r.Requests[k] = p.aggregateContainer(k, requestsOf).String()
		}
	}
	for k, v := range r.Limits {
		if _, ok := r.Requests[k]; !ok && isPodLevelResource(k) {
			r.Requests[k] = v
		}
	}
	for k, v := range r.Requests {
		if _, ok := r.Limits[k]; ok || !isPodLevelResource(k) || !p.everyContainerLimits(k) {
			continue
		}
		lim := p.aggregateContainer(k, limitsOf)
		if req, _ := ParseQuantity(v); req.Cmp(lim) > 0 {
			lim = req
		}
		r.Limits[k] = lim.String()
	}
	if len(r.Requests) == 0 {
		r.Requests = nil
	}
	if len(r.Limits) == 0 {
		r.Limits = nil
	}
}

func requestsOf(r Resources) map[string]string { return r.Requests }
func limitsOf(r Resources) map[string]string   { return r.Limits }

// everyContainerLimits reports whether every container, init containers
// included, sets a limit for a resource.
func (p *Pod) everyContainerLimits(name string) bool {
	for _, c := range p.AllContainers() {
		if _, ok := c.Resources.Limits[name]; !ok {
			return false
		}
	}
	return true
}

// aggregateContainer is the pod's effective request (or limit) of a
// resource from its containers, as resourcehelper.AggregateContainerRequests
// (Limits) computes it: the larger of the app containers plus sidecars and
// the peak of any init container (plus the sidecars started before it).
func (p *Pod) aggregateContainer(name string, of func(Resources) map[string]string) Quantity {
	amount := func(c Container) Quantity {
		q, _ := ParseQuantity(of(c.Resources)[name])
		return q
	}
	var sum, peak, sidecars Quantity
	for _, c := range p.InitContainers {
		v := amount(c)
		if c.IsRestartable() {
			sidecars = sidecars.Add(v)
			if sidecars.Cmp(peak) > 0 {
				peak = sidecars
			}
			continue
		}
		if t := sidecars.Add(v); t.Cmp(peak) > 0 {
			peak = t
		}
	}
	for _, c := range p.Containers {
		sum = sum.Add(amount(c))
	}
	sum = sum.Add(sidecars)
	if peak.Cmp(sum) > 0 {
		sum = peak
	}
	return sum
}

func (r Resources) quantity(m map[string]string, name string) Quantity {
	q, _ := ParseQuantity(m[name])
	return q
}

// Request returns the request for a resource (zero when unset).
func (r Resources) Request(name string) Quantity { return r.quantity(r.Requests, name) }

// Limit returns the limit for a resource (zero when unset).
func (r Resources) Limit(name string) Quantity { return r.quantity(r.Limits, name) }

func requirementsQOS(r *Resources) podresources.QOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return podresources.BestEffort
	}
	var qos podresources.QOSClass
	for _, res := range []string{"cpu", "memory"} {
		req, lim := r.Request(res), r.Limit(res)
		var q podresources.QOSClass
		switch {
		case req.Cmp(lim) != 0:
			return podresources.Burstable
		case req.IsZero():
			q = podresources.BestEffort
		default:
			q = podresources.Guaranteed
		}
		if qos == "" {
			qos = q
		} else if qos != q {
			return podresources.Burstable
		}
	}
	return qos
}

// QOS returns the pod's QoS class: status.qosClass when the manifest has
// it, else computed as the kubelet's GetPodQOS does (1.37, with
// PodLevelResources and PodLevelResourcesFixKubeletQOSClass on): from
// spec.resources when it names cpu, memory or huge pages, else from every
// container, init containers included.
func (p *Pod) QOS() podresources.QOSClass {
	if p.QOSClass != "" {
		return p.QOSClass
	}
	if p.podLevelResourcesSet() {
		return requirementsQOS(p.Resources)
	}
	var qos podresources.QOSClass
	for _, c := range p.AllContainers() {
		cq := requirementsQOS(&c.Resources)
		if cq == podresources.Burstable {
			return cq
		}
		if qos == "" {
			qos = cq
		} else if qos != cq {
			return podresources.Burstable
		}
	}
	if qos == "" {
		qos = podresources.BestEffort
	}
	return qos
}

// isHugePages reports whether a resource name is a hugepages size.
func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }
