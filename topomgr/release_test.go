package topomgr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// TestPolicyOptionsReleases compares NewPolicyOptions under each
// FeatureGates.KubeletVersion with what that release's own
// topologymanager.NewPolicyOptions answered
// (testdata/release/options-<release>.json, written by the modules in
// internal/conformance/legacy).
func TestPolicyOptionsReleases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "release", "options-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no options-<release>.json in testdata/release")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var doc struct {
			Kubelet string `json:"kubelet"`
			Cases   []struct {
				Options map[string]string `json:"options"`
				Alpha   bool              `json:"alpha"`
				Beta    bool              `json:"beta"`
				Result  *struct {
					PreferClosestNUMA     bool
					MaxAllowableNUMANodes *int
				} `json:"result"`
				Errors []string `json:"errors"`
			} `json:"cases"`
		}
		require.NoError(t, json.Unmarshal(data, &doc), file)
		require.NotEmpty(t, doc.Cases, file)
		for i, c := range doc.Cases {
			g := DefaultFeatureGates()
			g.TopologyManagerPolicyAlphaOptions, g.TopologyManagerPolicyBetaOptions = c.Alpha, c.Beta
			g.KubeletVersion = doc.Kubelet
			got, err := NewPolicyOptions(c.Options, g)
			if len(c.Errors) > 0 {
				// The kubelet reports the first bad option in map order
				// (numascope: in name order), so with several bad options
				// any one of their errors is the kubelet's answer.
				possible := slices.Clone(c.Errors)
				for k, v := range c.Options {
					if _, err1 := NewPolicyOptions(map[string]string{k: v}, g); err1 != nil {
						possible = append(possible, err1.Error())
					}
				}
				for _, e := range c.Errors {
					assert.Contains(t, possible[len(c.Errors):], e, "%s case %d %v: the kubelet's error is no single option's", file, i, c.Options)
				}
				if assert.Error(t, err, "%s case %d %v", file, i, c.Options) {
					assert.Contains(t, possible, err.Error(), "%s case %d %v", file, i, c.Options)
				}
				continue
			}
			if !assert.NoError(t, err, "%s case %d %v", file, i, c.Options) || !assert.NotNil(t, c.Result, "%s case %d", file, i) {
				continue
			}
			want := PolicyOptions{PreferClosestNUMA: c.Result.PreferClosestNUMA, MaxAllowableNUMANodes: DefaultMaxAllowableNUMANodes}
			if c.Result.MaxAllowableNUMANodes != nil {
				want.MaxAllowableNUMANodes = *c.Result.MaxAllowableNUMANodes
			}
			assert.Equal(t, want, got, "%s case %d %v", file, i, c.Options)
		}
	}
}
