package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletconfigv1beta1 "k8s.io/kubernetes/pkg/kubelet/apis/config/v1beta1"
	kubeletcodec "k8s.io/kubernetes/pkg/kubelet/kubeletconfig/util/codec"
	"sigs.k8s.io/yaml"
)

// configFields is the part of a KubeletConfiguration numascope uses.
type configFields struct {
	TopologyManagerPolicy        string
	TopologyManagerScope         string
	TopologyManagerPolicyOptions map[string]string
	CPUManagerPolicy             string
	MemoryManagerPolicy          string
	ReservedSystemCPUs           string
	FeatureGates                 map[string]bool
}

// kubeletDecodeConfig decodes a config file the way the kubelet does at
// start (strict first, then lenient with a logged warning), with the
// kubelet's defaults applied.
func kubeletDecodeConfig(data []byte) (*configFields, error) {
	_, codecs, err := kubeletscheme.NewSchemeAndCodecs(serializer.EnableStrict)
	if err != nil {
		return nil, err
	}
	ctx := klog.NewContext(context.Background(), klog.Background().V(10))
	kc, err := kubeletcodec.DecodeKubeletConfiguration(ctx, codecs, data)
	if err != nil {
		return nil, err
	}
	return fieldsOfKubelet(kc), nil
}

func fieldsOfKubelet(kc *kubeletconfig.KubeletConfiguration) *configFields {
	return &configFields{
		TopologyManagerPolicy:        kc.TopologyManagerPolicy,
		TopologyManagerScope:         kc.TopologyManagerScope,
		TopologyManagerPolicyOptions: kc.TopologyManagerPolicyOptions,
		CPUManagerPolicy:             kc.CPUManagerPolicy,
		MemoryManagerPolicy:          kc.MemoryManagerPolicy,
		ReservedSystemCPUs:           kc.ReservedSystemCPUs,
		FeatureGates:                 kc.FeatureGates,
	}
}

func fieldsOfNumascope(c *topomgr.KubeletConfig) *configFields {
	return &configFields{
		TopologyManagerPolicy:        c.TopologyManagerPolicy,
		TopologyManagerScope:         c.TopologyManagerScope,
		TopologyManagerPolicyOptions: c.TopologyManagerPolicyOptions,
		CPUManagerPolicy:             c.CPUManagerPolicy,
		MemoryManagerPolicy:          c.MemoryManagerPolicy,
		ReservedSystemCPUs:           c.ReservedSystemCPUs,
		FeatureGates:                 c.FeatureGates,
	}
}

// compareConfig returns how numascope's reading of a config file differs
// from the kubelet's, or "".
func compareConfig(data string) string {
	want, wantErr := kubeletDecodeConfig([]byte(data))
	got, gotErr := topomgr.ParseKubeletConfig([]byte(data))
	switch {
	case wantErr != nil && gotErr != nil:
		return ""
	case wantErr != nil:
		return fmt.Sprintf("numascope accepts a config the kubelet refuses to start with (%v):\n%s", wantErr, data)
	case gotErr != nil:
		return fmt.Sprintf("numascope refuses a config the kubelet starts with (%v):\n%s", gotErr, data)
	}
	if d := cmp.Diff(want, fieldsOfNumascope(got), cmpopts.EquateEmpty()); d != "" {
		return fmt.Sprintf("fields differ (-kubelet +numascope):\n%s\nin:\n%s", d, data)
	}
	return ""
}

const configHead = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"

func TestKubeletConfigAgainstKubelet(t *testing.T) {
	tests := []struct{ name, data string }{
		{"defaults", configHead},
		{"static and single-numa-node", configHead + "cpuManagerPolicy: static\nmemoryManagerPolicy: Static\ntopologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\nreservedSystemCPUs: 0-1\n"},
		{"policy options and gates", configHead + "topologyManagerPolicy: restricted\ntopologyManagerPolicyOptions:\n  prefer-closest-numa-nodes: \"true\"\nfeatureGates:\n  TopologyManagerPolicyAlphaOptions: true\n"},
		{"key in the wrong case", configHead + "TopologyManagerPolicy: single-numa-node\n"},
		{"unknown key", configHead + "topologyManagerPolicy: best-effort\nnotAField: 1\n"},
		{"duplicate key", configHead + "topologyManagerPolicy: best-effort\ntopologyManagerPolicy: restricted\n"},
		{"no kind", "apiVersion: kubelet.config.k8s.io/v1beta1\ntopologyManagerPolicy: restricted\n"},
		{"no apiVersion", "kind: KubeletConfiguration\ntopologyManagerPolicy: restricted\n"},
		{"v1", "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\n"},
		{"v1alpha1", "apiVersion: kubelet.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n"},
		{"another kind", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: CredentialProviderConfig\n"},
		{"JSON", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","cpuManagerPolicy":"static"}`},
		{"document end", configHead + "cpuManagerPolicy: static\n...\ntopologyManagerPolicy: restricted\n"},
		{"second document", configHead + "cpuManagerPolicy: static\n---\ntopologyManagerPolicy: restricted\n"},
		{"a number for a string", configHead + "topologyManagerPolicy: 5\n"},
		{"a list for a string", configHead + "topologyManagerPolicy: [a]\n"},
		{"empty", ""},
		{"prose", "the kubelet runs with the static policy\n"},
		{"gate not a bool", configHead + "featureGates:\n  TopologyManagerPolicyAlphaOptions: \"yes\"\n"},
		{"null values", configHead + "topologyManagerPolicy: null\nfeatureGates: null\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, compareConfig(tt.data))
		})
	}
}

// randomConfig builds a config file from a mix of valid lines, lines in the
// wrong case, unknown keys, odd values and headers.
func randomConfig(r *rand.Rand) string {
	heads := []string{configHead, configHead, configHead, "apiVersion: kubelet.config.k8s.io/v1beta1\n", "kind: KubeletConfiguration\n", "", "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n", "apiVersion: v1\nkind: KubeletConfiguration\n"}
	lines := []string{
		"topologyManagerPolicy: none", "topologyManagerPolicy: best-effort", "topologyManagerPolicy: restricted", "topologyManagerPolicy: single-numa-node",
		"topologyManagerPolicy: bogus", "TopologyManagerPolicy: restricted", "topologymanagerpolicy: restricted", "topologyManagerScope: pod", "topologyManagerScope: container",
		"cpuManagerPolicy: static", "cpuManagerPolicy: none", "CPUManagerPolicy: static", "memoryManagerPolicy: Static", "memoryManagerPolicy: None",
		"reservedSystemCPUs: 0-1", "reservedSystemCPUs: \"0,2\"", "reservedSystemCPUs: 3",
		"topologyManagerPolicyOptions:\n  prefer-closest-numa-nodes: \"true\"", "topologyManagerPolicyOptions:\n  max-allowable-numa-nodes: \"12\"",
		"featureGates:\n  TopologyManagerPolicyAlphaOptions: true", "featureGates:\n  TopologyManagerPolicyBetaOptions: false",
		"cpuManagerPolicyOptions:\n  full-pcpus-only: \"true\"", "maxPods: 250", "maxPods: many", "unknownField: 1", "clusterDNS:\n- 10.0.0.10",
		"systemReserved:\n  cpu: 500m", "# a comment", "",
	}
	var b strings.Builder
	b.WriteString(heads[r.IntN(len(heads))])
	for range r.IntN(7) {
		b.WriteString(lines[r.IntN(len(lines))])
		b.WriteByte('\n')
	}
	return b.String()
}

func TestKubeletConfigRandomAgainstKubelet(t *testing.T) {
	r := rand.New(rand.NewPCG(11, uint64(randomCount())))
	const n = 2000
	disagree := 0
	for range n {
		if d := compareConfig(randomConfig(r)); d != "" {
			disagree++
			if disagree <= 10 {
				t.Error(d)
			}
		}
	}
	t.Logf("%d random configs, %d disagreements with the kubelet", n, disagree)
}

// TestConfigzAgainstKubelet reads the kubelet's /configz answer for a
// config (the kubelet serves the versioned config under "kubeletconfig")
// and demands the same fields as the config file gives.
func TestConfigzAgainstKubelet(t *testing.T) {
	data := configHead + "cpuManagerPolicy: static\nmemoryManagerPolicy: Static\ntopologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\nreservedSystemCPUs: 0-1\nfeatureGates:\n  TopologyManagerPolicyAlphaOptions: true\n"
	want, err := kubeletDecodeConfig([]byte(data))
	require.NoError(t, err)
	_, codecs, err := kubeletscheme.NewSchemeAndCodecs(serializer.EnableStrict)
	require.NoError(t, err)
	kc, err := kubeletcodec.DecodeKubeletConfiguration(context.Background(), codecs, []byte(data))
	require.NoError(t, err)
	versioned, err := kubeletcodec.EncodeKubeletConfig(kc, kubeletconfigv1beta1.SchemeGroupVersion)
	require.NoError(t, err)
	// /configz wraps the JSON form of the versioned config.
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal(versioned, &obj))
	configz, err := json.Marshal(map[string]any{"kubeletconfig": obj})
	require.NoError(t, err)
	got, err := topomgr.ParseKubeletConfig(configz)
	require.NoError(t, err, "numascope refuses the kubelet's /configz answer:\n%s", configz)
	assert.Empty(t, cmp.Diff(want, fieldsOfNumascope(got), cmpopts.EquateEmpty()))
}
