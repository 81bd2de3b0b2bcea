package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFractionalCPUIsReportedExactly: a request is reported as written, not
// rounded by a conversion between models.
func TestFractionalCPUIsReportedExactly(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join("testdata", "fractional-cpu-guaranteed", "kubelet-config.yaml"))
	require.NoError(t, err)
	pod, err := os.ReadFile(filepath.Join("testdata", "fractional-cpu-guaranteed", "pod.yaml"))
	require.NoError(t, err)
	for cpu, want := range map[string]string{"3.0001": "asks for 3.0001 CPUs", "1500m": "asks for 1.5 CPUs", "1.5m": "asks for 0.0015 CPUs"} {
		t.Run(cpu, func(t *testing.T) {
			ev := &evidence.Set{}
			require.NoError(t, ev.SetKubeletConfig("kubelet-config.yaml", cfg))
			require.NoError(t, ev.AddPods("pod.yaml", []byte(strings.ReplaceAll(string(pod), `"1500m"`, `"`+cpu+`"`))))
			rep, err := Run(context.Background(), ev)
			require.NoError(t, err)
			var titles []string
			for _, f := range rep.Findings {
				titles = append(titles, f.Title)
			}
			assert.Contains(t, strings.Join(titles, "\n"), want)
		})
	}
}

// TestConfigKeyInAnotherCase: the kubelet ignores a key in another case;
// the report says so and the policy stays the default.
func TestConfigKeyInAnotherCase(t *testing.T) {
	ev := &evidence.Set{}
	require.NoError(t, ev.SetKubeletConfig("config.yaml", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nTopologyManagerPolicy: single-numa-node\n")))
	assert.Equal(t, "none", ev.Config.EffectiveTopologyPolicy())
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	assert.Equal(t, CodeInvalidTopologyConfig, rep.Findings[0].Code)
	assert.Equal(t, statefile.SeverityWarning, rep.Findings[0].Severity)
	assert.Contains(t, rep.Findings[0].Title, "/TopologyManagerPolicy")
	assert.Equal(t, []Ref{{File: "config.yaml", Path: "/TopologyManagerPolicy"}}, rep.Findings[0].Evidence)
}
