package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
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
	// ReservedMemory: NUMA node -> resource -> canonical quantity.
	ReservedMemory []reservation
}

type reservation struct {
	NUMANode int
	Limits   map[string]string
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
		ReservedMemory:               kubeletReservations(kc),
	}
}

func kubeletReservations(kc *kubeletconfig.KubeletConfiguration) []reservation {
	var out []reservation
	for _, r := range kc.ReservedMemory {
		l := map[string]string{}
		for k, q := range r.Limits {
			l[string(k)] = q.String()
		}
		out = append(out, reservation{int(r.NumaNode), l})
	}
	return out
}

// numascopeReservations canonicalises numascope's limits with the
// kubelet's quantity type (numascope keeps the text as written).
func numascopeReservations(c *topomgr.KubeletConfig) []reservation {
	var out []reservation
	for _, r := range c.ReservedMemory {
		l := map[string]string{}
		for k, s := range r.Limits {
			q, err := resource.ParseQuantity(s)
			if err != nil {
				l[k] = "unparsable: " + s
				continue
			}
			l[k] = q.String()
		}
		out = append(out, reservation{r.NumaNode, l})
	}
	return out
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
		ReservedMemory:               numascopeReservations(c),
	}
}

// compareConfig returns how numascope's reading of a config file differs
// from the kubelet's, or "".
func compareConfig(data string) string {
	want, wantErr := kubeletDecodeConfig([]byte(data))
	got, gotErr := topomgr.ParseKubeletConfig([]byte(data))
	// numascope reads a file the kubelet refuses for its kind or
	// apiVersion (a pasted fragment), and says so in KubeletRefuses.
	refuses := gotErr != nil || got.KubeletRefuses != ""
	switch {
	case wantErr != nil && gotErr != nil:
		return ""
	case wantErr != nil && refuses:
		// the kubelet's error begins as numascope's (which cuts the quoted file short)
		ours := strings.TrimSuffix(strings.TrimSuffix(got.KubeletRefuses, "'"), "...")
		if !strings.HasPrefix(wantErr.Error(), ours) {
			return fmt.Sprintf("the refusal differs:\nkubelet:   %v\nnumascope: %s\nin:\n%s", wantErr, got.KubeletRefuses, data)
		}
		return ""
	case wantErr != nil:
		return fmt.Sprintf("numascope accepts a config the kubelet refuses to start with (%v):\n%s", wantErr, data)
	case gotErr != nil:
		return fmt.Sprintf("numascope refuses a config the kubelet starts with (%v):\n%s", gotErr, data)
	case refuses:
		return fmt.Sprintf("numascope says the kubelet refuses (%s) a config it starts with:\n%s", got.KubeletRefuses, data)
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
		{"a reservedMemory entry without numaNode", configHead + "reservedMemory: [{limits: {memory: 1Gi}}]\n"},
		{"a null reservedMemory entry", configHead + "reservedMemory: [null]\n"},
		{"a word for an int", configHead + "maxPods: many\n"},
		{"a bad duration", configHead + "streamingConnectionIdleTimeout: soon\n"},
		{"null for a duration", configHead + "streamingConnectionIdleTimeout: null\n"},
		{"null for a duration pointer", configHead + "cpuCFSQuotaPeriod: null\n"},
		{"a number in a map of strings", configHead + "evictionHard: {memory.available: 5}\n"},
		{"YAML float for an int", configHead + "maxPods: 250.0\n"},
		{"JSON float for an int", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":250.0}`},
		{"JSON exponent for an int", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":1e3}`},
		{"JSON -0 for an int", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":-0}`},
		{"JSON float out of range", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","memoryThrottlingFactor":1e400}`},
		{"JSON duplicate key, the first wrong", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":"x","maxPods":5}`},
		{"JSON duplicate key, the last wrong", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":5,"maxPods":"x"}`},
		{"YAML duplicate key, the first wrong", configHead + "maxPods: x\nmaxPods: 5\n"},
		{"uint out of range", configHead + "maxPods: -1\nimageGCHighThresholdPercent: 101\n"},
		{"gate a string", configHead + "featureGates:\n  TopologyManagerPolicyAlphaOptions: \"true\"\n"},
		{"a key in another case with a wrong type", configHead + "MaxPods: many\n"},
		{"reservedMemory numaNode out of int32", configHead + "reservedMemory: [{numaNode: 4294967296, limits: {memory: 1Gi}}]\n"},
		{"reservedMemory numaNode a fraction", configHead + "reservedMemory: [{numaNode: 0.5, limits: {memory: 1Gi}}]\n"},
		{"reservedMemory keys in another case", configHead + "reservedMemory: [{numaNode: 1, NumaNode: 0, Limits: {memory: x}}]\n"},
		{"reservedMemory null limit", configHead + "reservedMemory: [{numaNode: 0, limits: {memory: null}}]\n"},
		{"reservedMemory escaped limit", `{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","reservedMemory":[{"numaNode":0,"limits":{"memory":"\u0031Gi"}}]}`},
		{"reservedMemory limit a bool", configHead + "reservedMemory: [{numaNode: 0, limits: {memory: true}}]\n"},
		{"reservedMemory limits a list", configHead + "reservedMemory: [{numaNode: 0, limits: [1Gi]}]\n"},
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
		// Values of the wrong JSON type, in fields numascope reads and in
		// fields it does not: the kubelet refuses to start with each.
		"topologyManagerScope: 5", "cpuManagerPolicy: true", "memoryManagerPolicy: [Static]", "address: 0",
		"failSwapOn: \"false\"", "failSwapOn: yes", "serializeImagePulls: 1", "cgroupsPerQOS: null",
		"maxPods: 2.5", "maxPods: 250.0", "maxPods: 1e3", "maxPods: 4294967296", "maxPods: -2147483649", "maxPods: 2147483647", "maxPods: null",
		"maxOpenFiles: 9223372036854775808", "maxOpenFiles: 9223372036854775807", "podPidsLimit: -1", "podPidsLimit: 0.5",
		"clusterDNS: {a: b}", "clusterDNS: 10.0.0.10", "clusterDNS: [5]", "clusterDNS: [null]", "tlsCurvePreferences: [1.5]", "tlsCurvePreferences: [23]",
		"streamingConnectionIdleTimeout: soon", "streamingConnectionIdleTimeout: 4h", "streamingConnectionIdleTimeout: null", "streamingConnectionIdleTimeout: 5",
		"syncFrequency: \"\"", "syncFrequency: 1m30s", "cpuCFSQuotaPeriod: null", "cpuCFSQuotaPeriod: 100ms", "cpuCFSQuotaPeriod: 100",
		"evictionHard:\n  memory.available: 5", "evictionHard:\n  memory.available: 100Mi", "evictionHard:\n  memory.available: null", "evictionHard: [a]",
		"systemReserved:\n  cpu: 1", "kubeReserved:\n  cpu: true", "kubeReserved: {memory: 1Gi}",
		"featureGates:\n  TopologyManagerPolicyAlphaOptions: \"true\"", "featureGates:\n  TopologyManagerPolicyBetaOptions: 1", "featureGates: [a]",
		"topologyManagerPolicyOptions:\n  prefer-closest-numa-nodes: true", "cpuManagerPolicyOptions: full-pcpus-only",
		"authentication: 5", "authentication: null", "authentication: {anonymous: {enabled: false}}", "logging: []",
		"memoryThrottlingFactor: \"0.9\"", "memoryThrottlingFactor: 0.9", "memoryThrottlingFactor: 1",
		"staticPodURLHeader:\n  a: [5]", "staticPodURLHeader:\n  a: b", "staticPodURLHeader:\n  a: [b]",
		"registerWithTaints: [{key: a, effect: NoSchedule}]", "registerWithTaints: a", "reservedMemory: [5]", "reservedMemory: {}",
		"enforceNodeAllocatable: [pods, 5]",
		"reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1024Mi", "reservedMemory: [{numaNode: 1, NumaNode: 0, limits: {memory: 1Gi}}]",
		"reservedMemory: [{numaNode: 1, limits: {memory: null, hugepages-1Gi: 2Gi}}]", "reservedMemory: [{numaNode: 2.0, limits: {memory: 5}}]",
	}
	var b strings.Builder
	b.WriteString(heads[r.IntN(len(heads))])
	for range r.IntN(7) {
		b.WriteString(lines[r.IntN(len(lines))])
		b.WriteByte('\n')
	}
	return b.String()
}

// TestKubeletConfigKnownDifferences names the configs the kubelet refuses
// and numascope accepts, with the reason numascope does not model them;
// the test fails when a difference goes away or changes side.
func TestKubeletConfigKnownDifferences(t *testing.T) {
	for _, tt := range []struct{ name, data, why string }{
		{"a wrong type inside a struct field", configHead + "logging: {format: 5}\n",
			"numascope checks the JSON kind of each top-level field (and of map values and list elements), not the fields of struct-valued fields it does not read (logging, authentication, memorySwap, ...)"},
		{"a wrong type two structs down", configHead + "authentication: {x509: {clientCAFile: 5}}\n",
			"as above: struct-valued fields are checked to be mappings, not looked into"},
		{"a wrong type in a list of structs", configHead + "registerWithTaints: [{key: 5}]\n",
			"as above: elements of a list of structs are checked to be mappings, not looked into"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, wantErr := kubeletDecodeConfig([]byte(tt.data))
			got, gotErr := topomgr.ParseKubeletConfig([]byte(tt.data))
			assert.Error(t, wantErr, "the kubelet now starts with this config; the known difference (%s) is gone", tt.why)
			require.NoError(t, gotErr, "numascope now refuses this config; drop the known difference (%s)", tt.why)
			assert.Empty(t, got.KubeletRefuses, "numascope now says the kubelet refuses this config; drop the known difference (%s)", tt.why)
		})
	}
}

func TestKubeletConfigRandomAgainstKubelet(t *testing.T) {
	r := rand.New(rand.NewPCG(11, uint64(randomCount())))
	const n = 2000
	disagree, refused := 0, 0
	for range n {
		data := randomConfig(r)
		if d := compareConfig(data); d != "" {
			disagree++
			if disagree <= 10 {
				t.Error(d)
			}
		}
		if _, err := kubeletDecodeConfig([]byte(data)); err != nil {
			refused++
		}
	}
	t.Logf("%d random configs, %d refused by the kubelet, %d disagreements with the kubelet", n, refused, disagree)
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

// TestKubeletConfigTestdataAgainstKubelet reads every kubelet
// configuration file of numascope's testdata and examples as the kubelet
// does.
func TestKubeletConfigTestdataAgainstKubelet(t *testing.T) {
	var files []string
	require.NoError(t, filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "legacy" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if name := d.Name(); !d.IsDir() && (name == "kubelet-config.yaml" || name == "config.yaml" && strings.Contains(path, "kubelet")) {
			files = append(files, path)
		}
		return nil
	}))
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			if c, err := topomgr.ParseKubeletConfig(data); err == nil && c.Format != "file" {
				// a wrapper (an OpenShift KubeletConfig, ...): not a file the
				// kubelet reads itself (TestKubeletConfigWrappersAgainstKubelet
				// checks how wrappers are read)
				t.Skipf("a %s wrapper, not a kubelet --config file", c.Format)
			}
			assert.Empty(t, compareConfig(string(data)))
		})
	}
}
