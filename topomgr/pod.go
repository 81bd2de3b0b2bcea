package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/poddoc"
	"github.com/numascope/numascope/internal/yamljson"
	"github.com/numascope/numascope/podresources"
)

// maxPodFileSize bounds the size of a pod manifest ParsePod accepts.
const maxPodFileSize = 16 << 20

// ParsePod reads one pod as `kubectl get pod -o yaml` (or -o json) prints
// it, or the pod template of one workload. See ParsePods.
func ParsePod(data []byte) (*Pod, error) {
	docs, err := decodePods(data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 || docs[0].doc.IsList() || (docs[0].doc.Kind != "" && docs[0].doc.Kind != "Pod" && !poddoc.IsWorkload(docs[0].doc.Kind)) {
		kind := "a multi-document stream"
		if len(docs) == 1 {
			kind = fmt.Sprintf("%q", docs[0].doc.Kind)
		}
		return nil, fmt.Errorf("/kind: %s is not a Pod (pass `kubectl get pod NAME -o yaml`)", kind)
	}
	pods := docs[0].doc.Pods()
	if len(pods) == 0 {
		return nil, fmt.Errorf("/spec/template: the %s has no pod template", docs[0].doc.Kind)
	}
	return podFromItem(pods[0])
}

// ParsePods reads `kubectl get pod -o yaml|json` output: one Pod, or a List
// or PodList of pods (items of another kind are skipped), and the pod
// templates of workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet,
// Job: spec.template; CronJob: spec.jobTemplate.spec.template), alone, in
// a List, or in a multi-document YAML stream (documents of other kinds are
// skipped). A template pod is named after its workload, its Path points at
// the template and its QoS class is left to QOS (Warnings says so).
// In a stream of several documents, Paths start with the document's
// 0-based index ("/1/spec/template").
//
// Quantities are checked; where a container sets a limit without a
// request, the request defaults to the limit, and pod-level requests
// default as the API server defaults them. Errors name the field with a
// JSON pointer. Text that is not an object (a `kubectl get pods` table,
// `kubectl describe` output) gets an error wrapping
// poddoc.ErrNotPodObject, so a caller can read it as events instead.
func ParsePods(data []byte) ([]*Pod, error) {
	docs, err := decodePods(data)
	if err != nil {
		return nil, err
	}
	var out []*Pod
	kinds := []string{}
	for _, d := range docs {
		if !d.doc.IsList() && d.doc.Kind != "" && d.doc.Kind != "Pod" && !poddoc.IsWorkload(d.doc.Kind) {
			kinds = append(kinds, d.doc.Kind)
			continue
		}
		for _, item := range d.doc.Pods() {
			item.Path = d.prefix + item.Path
			p, err := podFromItem(item)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		if len(docs) == 1 && len(kinds) == 1 {
			return nil, fmt.Errorf("/kind: %q is not a Pod (pass `kubectl get pod NAME -o yaml`, or a Deployment, StatefulSet, DaemonSet, Job or CronJob)", kinds[0])
		}
		if len(kinds) > 0 {
			return nil, fmt.Errorf("no Pod or workload with a pod template among the documents (kinds %s)", strings.Join(kinds, ", "))
		}
		return nil, fmt.Errorf("/items: the list holds no Pod")
	}
	return out, nil
}

// Warnings says what the pod's manifest could not tell: a pod read from
// a workload's template has no status, so its QoS class is computed.
func (p *Pod) Warnings() []string {
	if strings.HasSuffix(p.Path, "/spec/template") {
		return []string{fmt.Sprintf("%s: a pod template (%s), not a pod: QoS computed from the template (%s); no node, status or pod name", p.Path, p.OwnerKind+" pods", p.QOS())}
	}
	return nil
}

// maxPodDocuments bounds the documents of a multi-document pod stream.
const maxPodDocuments = 10000

type podDoc struct {
	prefix string
	doc    *poddoc.Doc
}

func decodePods(data []byte) ([]podDoc, error) {
	if len(data) > maxPodFileSize {
		return nil, fmt.Errorf("the pod manifest is larger than %d bytes", maxPodFileSize)
	}
	if what := poddoc.TextKind(data); what != "" {
		return nil, fmt.Errorf("%w: this is %s; give it as events (--events), or give `kubectl get pod NAME -o yaml`", poddoc.ErrNotPodObject, what)
	}
	parts := splitYAMLDocuments(data)
	if len(parts) > maxPodDocuments {
		return nil, fmt.Errorf("more than %d YAML documents", maxPodDocuments)
	}
	var out []podDoc
	for i, part := range parts {
		label, prefix := "pod", ""
		if len(parts) > 1 {
			label, prefix = fmt.Sprintf("pod document %d", i), fmt.Sprintf("/%d", i)
		}
		js, err := yamljson.ToJSON(part, label)
		if err != nil {
			return nil, err
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			continue
		}
		var doc poddoc.Doc
		switch js[0] {
		case '{':
			if err := json.Unmarshal(js, &doc); err != nil {
				return nil, fmt.Errorf("%snot a pod manifest: %w", strings.TrimPrefix(prefix+": ", ": "), err)
			}
		case '[':
			if err := json.Unmarshal(js, &doc.Items); err != nil {
				return nil, fmt.Errorf("%snot a list of pods: %w", strings.TrimPrefix(prefix+": ", ": "), err)
			}
			doc.Kind = "List"
		default:
			return nil, fmt.Errorf("%w: the %s is plain text or a scalar, not a Pod object: a `kubectl get pods` table or a kubelet message goes in as events (--events); a pod as `kubectl get pod NAME -o yaml`", poddoc.ErrNotPodObject, label)
		}
		out = append(out, podDoc{prefix: prefix, doc: &doc})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty pod manifest: give `kubectl get pod NAME -o yaml`")
	}
	return out, nil
}

// splitYAMLDocuments splits a YAML stream at its `---` lines. JSON input
// is one document.
func splitYAMLDocuments(data []byte) [][]byte {
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return [][]byte{data}
	}
	var out [][]byte
	start := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(data)
		}
		line := bytes.TrimRight(data[off:end], "\r \t")
		if bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")) || bytes.HasPrefix(line, []byte("---\t")) {
			if len(bytes.TrimSpace(data[start:off])) > 0 {
				out = append(out, data[start:off])
				if len(out) > maxPodDocuments {
					return out // the caller refuses the stream
				}
			}
			start = next
			if rest := bytes.TrimSpace(line[3:]); len(rest) > 0 && rest[0] != '#' {
				// "--- {kind: Pod ...}": content on the separator line.
				start = off + 3
			}
		}
		off = next
	}
	if len(bytes.TrimSpace(data[start:])) > 0 || len(out) == 0 {
		out = append(out, data[start:])
	}
	return out
}

func podFromItem(item poddoc.Pod) (*Pod, error) {
	return podFromDoc(item.Doc, item.Path)
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

// Requested returns the request for a resource and whether it is set
// to a valid quantity.
func (r Resources) Requested(name string) (Quantity, bool) {
	s, ok := r.Requests[name]
	if !ok {
		return Quantity{}, false
	}
	q, err := ParseQuantity(s)
	return q, err == nil
}

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
