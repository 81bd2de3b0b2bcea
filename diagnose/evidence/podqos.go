package evidence

import (
	"errors"
	"fmt"

	"github.com/numascope/numascope/internal/yamljson"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/topomgr"
)

// PodQOSClasses reads pods as `kubectl get pods -A -o json|yaml` prints
// them, with topomgr.ParsePods (the one pod reader: JSON or YAML, a Pod, a
// PodList or a List, whose items of another kind are skipped), and returns
// each pod's QoS class keyed by "namespace/name", ready for
// podresources.Snapshot.SetQOSClasses: status.qosClass, or for a pod
// without one the class the kubelet computes from its spec (qos.GetPodQOS).
// The pod templates of workloads are left out: they name no pod. It is the
// reader podresources.WithPods takes for a snapshot's pods.json.
func PodQOSClasses(data []byte) (map[string]podresources.QOSClass, error) {
	pods, err := topomgr.ParsePods(data)
	if err != nil {
		return nil, notPods(data, err)
	}
	out := make(map[string]podresources.QOSClass, len(pods))
	for _, p := range pods {
		if len(p.Warnings()) > 0 {
			continue // a workload's template: no pod name, no status
		}
		if p.Name == "" || p.Namespace == "" {
			return nil, fmt.Errorf("%s/metadata: the pod has no name or namespace: give `kubectl get pods -A -o json` output, which names both", p.Path)
		}
		out[p.Namespace+"/"+p.Name] = p.QOS()
	}
	if len(out) == 0 {
		return nil, notPods(data, errors.New("only the pod templates of workloads, which name no pod"))
	}
	return out, nil
}

// notPods names the kind of object data is, when it is not pods.
func notPods(data []byte, err error) error {
	switch kind, _ := yamljson.ObjectKind(data[:min(len(data), sniffHead)]); kind {
	case "", "Pod", "PodList", "List":
		return err
	default:
		return fmt.Errorf("kind %q: expected a Pod, PodList or List as `kubectl get pods -A -o json` prints it: %w", kind, err)
	}
}
