package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
)

// TestFeatureGatesChangeVerdicts pins down the kubelet behaviour numascope's
// verdicts leave out: they are those of kubelet v1.37.2 with default feature
// gates, and two gates (both off by default) change what the CPU manager
// accepts. With PodLevelResourceManagers on, a v2 checksum over the type name
// CPUManagerCheckpointV2 is no longer tried; with
// InPlacePodVerticalScalingExclusiveCPUs on, v4 baselines are parsed, so an
// unparsable baseline refuses the start.
func TestFeatureGatesChangeVerdicts(t *testing.T) {
	m, err := ReadManifest(GoldenDir)
	require.NoError(t, err)
	byFile := map[string]ManifestCase{}
	for _, c := range m.Cases {
		byFile[c.File] = c
	}
	restore := func(t *testing.T, file string) Outcome {
		c := byFile[file]
		data, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(file)))
		require.NoError(t, err)
		out, err := NewRestorer(t.TempDir()).Restore(c.Kind, data, c.Policy)
		require.NoError(t, err)
		return out
	}
	cases := []struct {
		gate            string
		set             func(t *testing.T)
		file            string
		defaultAccepts  bool
		withGateAccepts bool
	}{
		{"PodLevelResourceManagers", func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{features.PodLevelResources: true, features.PodLevelResourceManagers: true})
		}, "cpu/v2-checksum-typename-v2.json", true, false},
		{"InPlacePodVerticalScalingExclusiveCPUs", func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{features.InPlacePodVerticalScaling: true, features.InPlacePodVerticalScalingExclusiveCPUs: true})
		}, "cpu/v4-bad-baseline-cpuset.json", true, false},
	}
	for _, c := range cases {
		t.Run(c.gate, func(t *testing.T) {
			require.Equal(t, c.defaultAccepts, byFile[c.file].KubeletAccepts, "%s: the manifest's kubeletAccepts with default gates", c.file)
			c.set(t)
			out := restore(t, c.file)
			assert.Equal(t, c.withGateAccepts, out.Accepts, "%s with %s on: kubelet accepts (%s)", c.file, c.gate, out.Error)
			t.Logf("%s with %s on: accepts %v %s", c.file, c.gate, out.Accepts, out.Error)
		})
	}
}
