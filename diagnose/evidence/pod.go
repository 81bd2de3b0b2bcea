package evidence

import (
	"fmt"

	"github.com/numascope/numascope/diagnose/evidence/internal/paste"
	"github.com/numascope/numascope/topomgr"
)

// ParsePods reads `kubectl get pod -o yaml|json` output: one Pod, a List
// of pods, or the pod templates of workloads (Deployment, StatefulSet,
// DaemonSet, Job, CronJob, ...), as topomgr.ParsePods reads them. name is
// used in errors and as each pod's Source; a pod without status.qosClass
// gets the class the kubelet computes (Pod.Warnings says so for a
// template). Text that is not an object (a `kubectl get pods` table,
// describe output) gets an error wrapping poddoc.ErrNotPodObject: read it
// with ParseEvents instead. Pasted text is normalised first, as Set.Add
// does (fences, prompts, quotes, smart quotes, CRLF).
func ParsePods(name string, data []byte) ([]*topomgr.Pod, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for a pod document", name, len(data), maxEvidenceSize)
	}
	return readPods(name, paste.Normalize(data).Text)
}

// readPods reads normalised text.
func readPods(name string, data []byte) ([]*topomgr.Pod, error) {
	pods, err := topomgr.ParsePods(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, p := range pods {
		p.Source = name
		if p.QOSClass == "" {
			p.QOSClass = p.QOS()
		}
	}
	return pods, nil
}

// maxEvidenceSize bounds one evidence document.
const maxEvidenceSize = 64 << 20
