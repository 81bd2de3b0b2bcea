package diagnose

import (
	"context"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const kubeletHead = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"

// configFindings runs the diagnosis on configuration sources only, layered
// in order, and returns the findings of code InvalidTopologyManagerConfig.
func configFindings(t *testing.T, sources ...[2]string) (*evidence.Set, []Finding) {
	t.Helper()
	ev := &evidence.Set{}
	for _, s := range sources {
		require.NoError(t, ev.SetKubeletConfig(s[0], []byte(s[1])))
	}
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	var out []Finding
	for _, f := range rep.Findings {
		if f.Code == CodeInvalidTopologyConfig {
			out = append(out, f)
		}
	}
	return ev, out
}

func TestKubeletConfigSourcesAreLayeredAsTheKubeletDoes(t *testing.T) {
	ev, findings := configFindings(t,
		[2]string{"config.yaml", kubeletHead + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: best-effort\nkubeReserved: {cpu: \"1\", memory: 2Gi}\n"},
		[2]string{"kubelet-flags.txt", "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --topology-manager-policy=single-numa-node --kube-reserved=memory=1Gi\n"})
	c := ev.Config
	require.NotNil(t, c)
	assert.Equal(t, "single-numa-node", c.TopologyManagerPolicy, "a flag wins over the file")
	assert.Equal(t, "static", c.CPUManagerPolicy, "the file's field no flag sets stays")
	assert.Equal(t, map[string]string{"memory": "1Gi"}, c.KubeReserved, "a map flag replaces the file's map")
	assert.Equal(t, "file+flags", c.Format)
	assert.Equal(t, "kubelet-flags.txt", c.SourceOf("topologyManagerPolicy"))
	require.Len(t, findings, 2, "one note per override: %+v", findings)
	for _, f := range findings {
		assert.Equal(t, statefile.SeverityInfo, f.Severity, f.Title)
		require.Len(t, f.Evidence, 1, f.Title)
		assert.Equal(t, "kubelet-flags.txt", f.Evidence[0].File, f.Title)
		assert.Equal(t, 1, f.Evidence[0].Line, f.Title)
	}
	assert.Contains(t, findings[0].Title, "kubeReserved: --kube-reserved from kubelet-flags.txt line 1 replaces the whole map from config.yaml")
	assert.Contains(t, findings[1].Title, `topologyManagerPolicy: "single-numa-node" from kubelet-flags.txt line 1 overrides "best-effort" from config.yaml`)
}

func TestKubeletConfigFindings(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		severity         statefile.Severity
		title, explains  string
	}{
		{name: "a fragment without kind", file: "ticket.yaml", text: "topologyManagerPolicy: single-numa-node\n",
			severity: statefile.SeverityWarning, title: "The kubelet would not start with this file as its --config: failed to decode: Object 'Kind' is missing in 'topologyManagerPolicy: single-numa-node...'",
			explains: "does not prove the node's file lacks it"},
		{name: "a file of another apiVersion", file: "config.yaml", text: "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\n",
			severity: statefile.SeverityWarning, title: `registered for version "kubelet.config.k8s.io/v1"`, explains: "requires kind: KubeletConfiguration and apiVersion: kubelet.config.k8s.io/v1beta1"},
		{name: "a single-dash flag", file: "flags.txt", text: "kubelet -topology-manager-policy=restricted\n",
			severity: statefile.SeverityWarning, title: "The kubelet would not start with this command line: failed to parse kubelet flag: unknown shorthand flag: 't' in -topology-manager-policy=restricted",
			explains: "exits on the first one it refuses"},
		{name: "flags that name a --config not given", file: "flags.txt", text: "--config=/var/lib/kubelet/config.yaml --cpu-manager-policy=static --reserved-cpus=0\n",
			severity: statefile.SeverityInfo, title: "The command line names --config /var/lib/kubelet/config.yaml, which was not given", explains: "every field no flag sets was taken as the kubelet's default"},
		{name: "a key in another case", file: "config.yaml", text: kubeletHead + "TopologyManagerPolicy: single-numa-node\n",
			severity: statefile.SeverityWarning, title: "The kubelet ignores a key of the configuration: /TopologyManagerPolicy", explains: "case-sensitively"},
		{name: "a systemd unit with its flags in an env file not given", file: "unit.txt", text: "[Service]\nExecStart=/usr/bin/kubelet --cpu-manager-policy=static --reserved-cpus=0 $KUBELET_EXTRA_ARGS\n",
			severity: statefile.SeverityInfo, title: "Kubelet configuration: line 2: ExecStart= uses $KUBELET_EXTRA_ARGS", explains: "layers its configuration sources"},
		{name: "text after a document end", file: "config.yaml", text: kubeletHead + "cpuManagerPolicy: none\n...\ncpuManagerPolicy: static\n",
			severity: statefile.SeverityInfo, title: "the kubelet reads only the first document of its file", explains: "layers its configuration sources"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, findings := configFindings(t, [2]string{tc.file, tc.text})
			require.NotEmpty(t, findings)
			var found *Finding
			for i := range findings {
				if strings.Contains(findings[i].Title, tc.title) {
					found = &findings[i]
				}
			}
			require.NotNil(t, found, "no finding titled %q in %+v", tc.title, findings)
			assert.Equal(t, tc.severity, found.Severity)
			assert.Contains(t, found.Explanation, tc.explains)
			assert.NotEmpty(t, found.Remedy)
			require.NotEmpty(t, found.Evidence)
			assert.Equal(t, tc.file, found.Evidence[0].File)
		})
	}
}

func TestParseKubeletConfigNamesTheFileAndTheForms(t *testing.T) {
	_, err := evidence.ParseKubeletConfig("notes.txt", []byte("the kubelet is configured as usual\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "notes.txt: no kubelet flags found: expected --name=value tokens")
	assert.Contains(t, err.Error(), "ps auxww")
	c, err := evidence.ParseKubeletConfig("ps.txt", []byte("root 1 0.0 0.1 100 100 ? Ssl Nov28 1:00 /usr/bin/kubelet --topology-manager-policy=restricted\n"))
	require.NoError(t, err)
	assert.Equal(t, "ps", c.Format)
	assert.Equal(t, "ps.txt", c.Source)
}
