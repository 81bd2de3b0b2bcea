package topomgr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyOptionsPerRelease(t *testing.T) {
	noBeta := DefaultFeatureGates()
	noBeta.TopologyManagerPolicyBetaOptions = false
	cases := []struct {
		name    string
		version string
		gates   FeatureGates
		options map[string]string
		want    PolicyOptions
		err     string
	}{
		{"1.28 knows no max-allowable-numa-nodes", "1.28", DefaultFeatureGates(), map[string]string{MaxAllowableNUMANodes: "16"}, PolicyOptions{}, `unknown Topology Manager Policy option: "max-allowable-numa-nodes"`},
		{"1.30 prefer-closest beta", "v1.30.4", DefaultFeatureGates(), map[string]string{PreferClosestNUMANodes: "true"}, PolicyOptions{PreferClosestNUMA: true, MaxAllowableNUMANodes: 8}, ""},
		{"1.30 prefer-closest without beta gate", "1.30", noBeta, map[string]string{PreferClosestNUMANodes: "true"}, PolicyOptions{}, `Topology Manager Policy Beta-level Options not enabled, but option "prefer-closest-numa-nodes" provided`},
		{"1.31 max-allowable beta", "1.31", DefaultFeatureGates(), map[string]string{MaxAllowableNUMANodes: "16"}, PolicyOptions{MaxAllowableNUMANodes: 16}, ""},
		{"1.32 prefer-closest GA", "1.32", noBeta, map[string]string{PreferClosestNUMANodes: "true"}, PolicyOptions{PreferClosestNUMA: true, MaxAllowableNUMANodes: 8}, ""},
		{"1.32 max-allowable beta", "1.32", noBeta, map[string]string{MaxAllowableNUMANodes: "16"}, PolicyOptions{}, `Topology Manager Policy Beta-level Options not enabled, but option "max-allowable-numa-nodes" provided`},
		{"1.34 lower-case text", "1.34", noBeta, map[string]string{MaxAllowableNUMANodes: "16"}, PolicyOptions{}, `topology manager policy beta-level options not enabled, but option "max-allowable-numa-nodes" provided`},
		{"1.35 max-allowable GA", "1.35", noBeta, map[string]string{MaxAllowableNUMANodes: "16"}, PolicyOptions{MaxAllowableNUMANodes: 16}, ""},
		{"newest", "", noBeta, map[string]string{MaxAllowableNUMANodes: "9"}, PolicyOptions{MaxAllowableNUMANodes: 9}, ""},
		{"too old", "1.27", DefaultFeatureGates(), nil, PolicyOptions{}, "outside the supported range"},
		{"not a version", "latest", DefaultFeatureGates(), nil, PolicyOptions{}, "is not a version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.gates
			g.KubeletVersion = tc.version
			got, err := NewPolicyOptions(tc.options, g)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
