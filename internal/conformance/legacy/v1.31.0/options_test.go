package legacy

import (
	"encoding/json"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"

	"github.com/numascope/numascope/internal/conformance/legacy/verdicts"
)

// TestReleaseOptions records (with -update-options) or checks this
// release's own topologymanager.NewPolicyOptions on the shared option sets.
func TestReleaseOptions(t *testing.T) {
	verdicts.CheckOptions(t, release, func(opts map[string]string) ([]byte, error) {
		res, err := topologymanager.NewPolicyOptions(opts)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}, func(alpha, beta bool) error {
		return utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{"TopologyManagerPolicyAlphaOptions": alpha, "TopologyManagerPolicyBetaOptions": beta})
	})
}
