package podresources

// PodsFile is the optional file in a snapshot directory with the node's pods
// as `kubectl get pods -A -o json` prints them; LoadDir and LoadFS take the
// pods' QoS classes from it when given WithPods.
const PodsFile = "pods.json"

// LoadOption is an option of LoadDir and LoadFS.
type LoadOption func(*loadOptions)

type loadOptions struct {
	pods func(data []byte) (map[string]QOSClass, error)
}

// WithPods has LoadDir and LoadFS read a snapshot's PodsFile with read,
// which returns each pod's QoS class keyed by "namespace/name" (the
// PodResources API carries none). Pods are read by topomgr.ParsePods, which
// imports this package, so the reader is given from above:
// evidence.PodQOSClasses is that reader. Without WithPods (or when the
// snapshot holds no pod) a PodsFile is still bounded like every file of the
// snapshot, but not parsed, and Snapshot.Notes says so.
func WithPods(read func(data []byte) (map[string]QOSClass, error)) LoadOption {
	return func(o *loadOptions) { o.pods = read }
}
