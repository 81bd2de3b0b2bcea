package topomgr

import "github.com/numascope/numascope/internal/kubeversion"

// The Topology Manager of kubelet 1.28 to 1.37 (read in each release's
// pkg/kubelet/cm/topologymanager/policy_options.go, topology_manager.go and
// pkg/features/kube_features.go, and proven with each release's own code by
// the tests in internal/conformance/legacy): the feature gate defaults are
// the same in all of them (TopologyManagerPolicyOptions on,
// TopologyManagerPolicyBetaOptions on, TopologyManagerPolicyAlphaOptions
// off; PodLevelResourceManagers exists from 1.36, off); what changed is the
// option table and the error texts:
//
//   - 1.28-1.30: prefer-closest-numa-nodes is beta; max-allowable-numa-nodes
//     is an unknown option and the NUMA node limit is always 8.
//   - 1.31: max-allowable-numa-nodes arrives, beta.
//   - 1.32: prefer-closest-numa-nodes is GA.
//   - 1.33: the gate errors are lower case ("topology manager policy
//     beta-level options not enabled"; before: "Topology Manager Policy
//     Beta-level Options not enabled").
//   - 1.35-1.37: max-allowable-numa-nodes is GA.
const (
	oldestTopologyRelease = kubeversion.Oldest
	newestTopologyRelease = kubeversion.Newest
)

// topologyRelease is what one kubelet release's Topology Manager knows.
type topologyRelease struct {
	minor    int
	options  map[string]maturity
	oldTexts bool // the capitalised gate error texts (up to 1.32)
}

func releaseTable(minor int) topologyRelease {
	r := topologyRelease{minor: minor, oldTexts: minor <= 32}
	switch {
	case minor <= 30:
		r.options = map[string]maturity{PreferClosestNUMANodes: beta}
	case minor == 31:
		r.options = map[string]maturity{PreferClosestNUMANodes: beta, MaxAllowableNUMANodes: beta}
	case minor <= 34:
		r.options = map[string]maturity{PreferClosestNUMANodes: stable, MaxAllowableNUMANodes: beta}
	default:
		r.options = optionMaturity
	}
	return r
}

// topologyReleaseOf reads FeatureGates.KubeletVersion as statefile does
// ("1.30", "v1.30.4", "Kubernetes v1.30.4"; "" is the newest).
func topologyReleaseOf(version string) (topologyRelease, error) {
	minor, err := kubeversion.Minor(version, oldestTopologyRelease, newestTopologyRelease, "the Topology Manager")
	if err != nil {
		return topologyRelease{}, err
	}
	return releaseTable(minor), nil
}
