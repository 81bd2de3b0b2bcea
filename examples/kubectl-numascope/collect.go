package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/internal/units"
)

// Limits on what the cluster sends back.
const (
	maxKubeletLog = 64 << 20 // the node log query's answer
	maxConfigz    = 1 << 20  // /configz
	logTailLines  = 100000   // the most the kubelet's log query accepts
	maxEvents     = 500      // events of one pod
	maxNodePods   = 5000     // pods of one node in a gather
	// pageSize is the most objects asked for in one page of a list: a page
	// of 100 nodes or pods of typical size (10-40 KB) stays far below
	// maxAnswer.
	pageSize = 100
)

// file is one piece of evidence, named as in a gathered directory.
type file struct {
	path string
	// kind is the diagnose reader it goes to ("" for the ones diagnose
	// does not read: node, owner, NodeResourceTopology).
	kind string
	data []byte
}

// collection is what was gathered about one pod or node.
type collection struct {
	node  string
	files []file
	// notes say what could not be gathered, why, and what to do.
	notes []string
	// about are header lines for the text report (owner, node, NRT).
	about []string
}

func (c *collection) add(path, kind string, data []byte) {
	c.files = append(c.files, file{path: path, kind: kind, data: data})
}

func (c *collection) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// toYAML renders an API object as `kubectl get -o yaml` does.
func toYAML(obj any) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// findPod gets the pod, in any namespace with -A (allNamespaces).
func findPod(ctx context.Context, k *kube, allNamespaces bool, name string) (*corev1.Pod, error) {
	if !allNamespaces {
		p, err := k.cs.CoreV1().Pods(k.namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("pod %s not found in namespace %s (give -n NAMESPACE, or -A to look in every namespace)", name, k.namespace)
		}
		return p, checked(err, permission{"get", "", "pods", k.namespace}, "getting pod "+k.namespace+"/"+name)
	}
	list, err := k.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(), Limit: 100})
	if err != nil {
		return nil, checked(err, permission{"list", "", "pods", ""}, "looking for pod "+name+" in every namespace")
	}
	switch len(list.Items) {
	case 0:
		return nil, fmt.Errorf("no pod named %s in any namespace", name)
	case 1:
		return &list.Items[0], nil
	}
	var ns []string
	for _, p := range list.Items {
		ns = append(ns, p.Namespace)
	}
	return nil, fmt.Errorf("pods named %s exist in namespaces %s: pick one with -n", name, strings.Join(ns, ", "))
}

// collectPod gathers a pod's evidence: the pod, its owner, its events, then
// its node's (collectNode).
func collectPod(ctx context.Context, k *kube, o clusterFlags, pod *corev1.Pod) (*collection, error) {
	c := &collection{node: pod.Spec.NodeName}
	pod.APIVersion, pod.Kind = "v1", "Pod"
	pod.ManagedFields = nil
	data, err := toYAML(pod)
	if err != nil {
		return nil, err
	}
	c.add("pod.yaml", "pod", data)
	for _, ref := range pod.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			c.owner(ctx, k, pod.Namespace, ref)
		}
	}
	evs, err := k.cs.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.kind", "Pod"),
			fields.OneTermEqualSelector("involvedObject.name", pod.Name)).String(),
		Limit: maxEvents,
	})
	if err != nil {
		c.note("%v", checked(err, permission{"list", "", "events", pod.Namespace}, "listing the pod's events"))
	} else {
		// Only this pod instance's events: a pod recreated under the same
		// name has another UID.
		kept := evs.Items[:0]
		for _, e := range evs.Items {
			if e.InvolvedObject.UID == "" || e.InvolvedObject.UID == pod.UID {
				e.ManagedFields = nil
				kept = append(kept, e)
			}
		}
		sort.SliceStable(kept, func(i, j int) bool { a, b := eventTime(kept[i]), eventTime(kept[j]); return a.Before(&b) })
		list := corev1.EventList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: kept}
		data, err := toYAML(list)
		if err != nil {
			return nil, err
		}
		if len(kept) > 0 {
			c.add("events.yaml", "events", data)
		} else {
			c.note("pod %s/%s has no events (events expire after an hour by default)", pod.Namespace, pod.Name)
		}
	}
	if pod.Spec.NodeName == "" {
		c.note("pod %s/%s is not bound to a node: the scheduler has not placed it, so no kubelet admitted or rejected it", pod.Namespace, pod.Name)
		return c, nil
	}
	if err := collectNode(ctx, k, o, c, pod.Spec.NodeName); err != nil {
		return nil, err
	}
	return c, nil
}

func eventTime(e corev1.Event) metav1.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp
	case !e.EventTime.IsZero():
		return metav1.Time{Time: e.EventTime.Time}
	}
	return e.CreationTimestamp
}

// owner records the pod's controller (kind and name; the object for a
// gather) without failing the run when it cannot be read.
func (c *collection) owner(ctx context.Context, k *kube, ns string, ref metav1.OwnerReference) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return
	}
	c.about = append(c.about, fmt.Sprintf("Owner: %s/%s", ref.Kind, ref.Name))
	var obj any
	switch gv.Group + "/" + ref.Kind {
	case "apps/ReplicaSet":
		obj, err = k.cs.AppsV1().ReplicaSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	case "apps/StatefulSet":
		obj, err = k.cs.AppsV1().StatefulSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	case "apps/DaemonSet":
		obj, err = k.cs.AppsV1().DaemonSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	case "batch/Job":
		obj, err = k.cs.BatchV1().Jobs(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	default:
		return
	}
	if err != nil {
		c.note("%v", checked(err, permission{"get", gv.Group, strings.ToLower(ref.Kind) + "s", ns}, "getting the pod's owner "+ref.Kind+"/"+ref.Name))
		return
	}
	if data, err := toYAML(obj); err == nil {
		c.add("owner.yaml", "", data)
	}
}

// collectNode gathers the node's evidence: the Node, /configz, the kubelet
// log, NodeResourceTopology, and the on-node bundle.
func collectNode(ctx context.Context, k *kube, o clusterFlags, c *collection, name string) error {
	c.node = name
	node, err := k.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("node %s not found (kubectl get nodes lists them)", name)
		}
		return checked(err, permission{"get", "", "nodes", ""}, "getting node "+name)
	}
	node.APIVersion, node.Kind = "v1", "Node"
	node.ManagedFields = nil
	if data, err := toYAML(node); err == nil {
		c.add("node.yaml", "", data)
	}
	c.about = append(c.about, nodeSummary(node))

	// /configz: the configuration the kubelet runs with, flags included.
	raw, err := nodeProxy(ctx, k, name, "configz", nil, maxConfigz, nil)
	if err != nil {
		c.note("%v (the report goes without the kubelet's configuration)",
			checked(err, permission{"get", "", "nodes/proxy", ""}, "reading /configz of node "+name))
	} else if cfg, err := configzBody(raw); err != nil {
		c.note("node %s: /configz: %v", name, err)
	} else {
		c.add("kubelet-config.json", "kubelet-config", cfg)
	}

	// The kubelet log, through the node log query.
	q := map[string]string{"query": "kubelet", "tailLines": fmt.Sprint(logTailLines)}
	var cut bool
	raw, err = nodeProxy(ctx, k, name, "logs/", q, maxKubeletLog, &cut)
	var ne *nodeError
	switch {
	case err != nil && apierrors.IsForbidden(err):
		c.note("%v", checked(err, permission{"get", "", "nodes/proxy", ""}, "reading the kubelet log of node "+name))
	case errors.As(err, &ne):
		c.note("reading the kubelet log of node %s: %v", name, ne)
	case err != nil:
		c.note("node %s: the node log query (/logs/?query=kubelet) failed: %v. %s", name, err, enableLogQuery)
	case isDirListing(raw):
		c.note("node %s: the kubelet does not answer the node log query: /logs/?query=kubelet lists /var/log instead, so enableSystemLogQuery is off. %s", name, enableLogQuery)
	case len(bytes.TrimSpace(raw)) == 0:
		c.note("node %s: the node log query returned nothing: the kubelet logs elsewhere than the journal or /var/log/kubelet.log", name)
	default:
		if cut {
			c.note("node %s: the kubelet log was cut at %d MiB (the last %d lines were asked for)", name, maxKubeletLog>>20, logTailLines)
		}
		c.add("kubelet.log", "kubelet-log", raw)
	}

	collectNRT(ctx, k, c, name)

	if o.noNodeAccess {
		c.note("--no-node-access: the state files, PodResources and sysfs of node %s were not read", name)
		return nil
	}
	if err := collectOnNode(ctx, k, o, c, name); err != nil {
		c.note("node %s: no on-node evidence: %v", name, err)
	}
	return nil
}

// enableLogQuery says how to turn the node log query on.
const enableLogQuery = "To enable it, set `enableSystemLogQuery: true` (and keep `enableSystemLogHandler: true`) in the kubelet's " +
	"KubeletConfiguration and restart the kubelet; kubelets before v1.36 also need the NodeLogQuery feature gate " +
	"(`featureGates: {NodeLogQuery: true}`). Without it, pass the log by hand: journalctl -u kubelet > kubelet.log; " +
	"examples/diagnose --dir DIR reads it next to a gathered directory."

// isDirListing tells the HTML directory listing a kubelet without the log
// query serves at /logs/ (Go's http.FileServer over /var/log).
func isDirListing(b []byte) bool {
	head := b[:min(len(b), 512)]
	return bytes.HasPrefix(head, []byte("<!doctype html>")) || bytes.HasPrefix(head, []byte("<pre>\n"))
}

// nodeProxy GETs a kubelet path through the API server's node proxy. An
// answer over limit bytes is an error, unless cut: then its first limit
// bytes are returned (the kubelet log), with cut reporting it.
func nodeProxy(ctx context.Context, k *kube, node, path string, params map[string]string, limit int64, cut *bool) ([]byte, error) {
	// One segment keeps the trailing slash of logs/ (Suffix would drop it):
	// the kubelet serves /logs/, and answers /logs with a redirect there.
	req := k.cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/" + node + "/proxy/" + path)
	for key, v := range params {
		req = req.Param(key, v)
	}
	rc, err := req.Stream(withStream(ctx, limit+1))
	if err != nil {
		return nil, kubeletError(node, "/"+path, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, kubeletError(node, "/"+path, err)
	}
	if int64(len(data)) > limit {
		if cut == nil {
			return nil, &nodeError{msg: fmt.Sprintf("the kubelet's answer to /%s is over %s: refused (a kubelet's is far smaller)", path, units.Bytes(limit))}
		}
		*cut = true
		data = data[:limit]
	}
	return data, nil
}

// configzBody takes the configuration out of /configz's {"kubeletconfig":{...}}.
func configzBody(raw []byte) ([]byte, error) {
	var w struct {
		KubeletConfig json.RawMessage `json:"kubeletconfig"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("not the kubelet's JSON: %w", err)
	}
	if len(w.KubeletConfig) == 0 || string(w.KubeletConfig) == "null" {
		return nil, errors.New(`no "kubeletconfig" object in it`)
	}
	return raw, nil
}

// nodeSummary is the node's capacity, allocatable and NUMA-relevant labels
// on one line.
func nodeSummary(n *corev1.Node) string {
	q := func(l corev1.ResourceList, r corev1.ResourceName) string {
		if v, ok := l[r]; ok {
			return v.String()
		}
		return "?"
	}
	s := fmt.Sprintf("Node: %s (kubelet %s): capacity cpu %s memory %s, allocatable cpu %s memory %s",
		n.Name, orDash(n.Status.NodeInfo.KubeletVersion), q(n.Status.Capacity, corev1.ResourceCPU), q(n.Status.Capacity, corev1.ResourceMemory),
		q(n.Status.Allocatable, corev1.ResourceCPU), q(n.Status.Allocatable, corev1.ResourceMemory))
	var hp []string
	for r, v := range n.Status.Allocatable {
		if strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix) && !v.IsZero() {
			hp = append(hp, string(r)+" "+v.String())
		}
	}
	sort.Strings(hp)
	if len(hp) > 0 {
		s += ", " + strings.Join(hp, ", ")
	}
	for _, l := range []string{"node.kubernetes.io/instance-type", "feature.node.kubernetes.io/cpu-model.id"} {
		if v, ok := n.Labels[l]; ok {
			s += ", " + l + "=" + v
		}
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// nrtGVR is the NodeResourceTopology API of the topology-aware scheduler.
var nrtGVR = schema.GroupVersionResource{Group: "topology.node.k8s.io", Version: "v1alpha2", Resource: "noderesourcetopologies"}

// nrtServed says whether the cluster serves NodeResourceTopology.
func nrtServed(k *kube) bool {
	_, err := k.cs.Discovery().ServerResourcesForGroupVersion(nrtGVR.GroupVersion().String())
	return err == nil
}

// collectNRT adds the node's NodeResourceTopology object when the CRD exists.
func collectNRT(ctx context.Context, k *kube, c *collection, node string) {
	if !nrtServed(k) {
		return
	}
	dc, err := k.dynamic()
	if err != nil {
		return
	}
	obj, err := dc.Resource(nrtGVR).Get(ctx, node, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		c.about = append(c.about, "NodeResourceTopology: none for this node (no exporter runs there)")
		return
	case err != nil:
		c.note("%v", checked(err, permission{"get", nrtGVR.Group, nrtGVR.Resource, ""}, "getting the NodeResourceTopology of node "+node))
		return
	}
	obj.SetManagedFields(nil)
	if data, err := toYAML(obj.Object); err == nil {
		c.add("noderesourcetopology.yaml", "", data)
	}
	if z, err := nrtZones(obj.Object); err == nil {
		c.about = append(c.about, "NodeResourceTopology: "+z.summary())
	}
}
