package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/topomgr"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/kubernetes/cmd/kubelet/app/options"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletcodec "k8s.io/kubernetes/pkg/kubelet/kubeletconfig/util/codec"
)

// flagFields is what numascope reads from the kubelet's flags.
type flagFields struct {
	Config                                                              configFields
	CPUManagerPolicyOptions, KubeReserved, SystemReserved, EvictionHard map[string]string
}

// kubeletParseFlags parses a command line with the kubelet's own flag set
// (the flags of options.NewKubeletFlags and options.AddKubeletConfigFlags
// on a pflag.FlagSet with the kubelet's name normalisation), over the
// kubelet's defaults, as cmd/kubelet/app/server.go does.
func kubeletParseFlags(args []string) (*flagFields, *kubeletconfig.KubeletConfiguration, error) {
	fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
	fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
	fs.SetOutput(nopWriter{})
	kf := options.NewKubeletFlags()
	kc, err := options.NewKubeletConfiguration()
	if err != nil {
		return nil, nil, err
	}
	kf.AddFlags(fs)
	options.AddKubeletConfigFlags(fs, kc)
	if err := fs.Parse(args); err != nil {
		return nil, nil, fmt.Errorf("failed to parse kubelet flag: %w", err)
	}
	return &flagFields{Config: *fieldsOfKubelet(kc), CPUManagerPolicyOptions: kc.CPUManagerPolicyOptions,
		KubeReserved: kc.KubeReserved, SystemReserved: kc.SystemReserved, EvictionHard: kc.EvictionHard}, kc, nil
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

func flagFieldsOfNumascope(c *topomgr.KubeletConfig) *flagFields {
	canon := func(m map[string]string) map[string]string { return m }
	return &flagFields{Config: *fieldsOfNumascope(c), CPUManagerPolicyOptions: canon(c.CPUManagerPolicyOptions),
		KubeReserved: c.KubeReserved, SystemReserved: c.SystemReserved, EvictionHard: c.EvictionHard}
}

// compareFlags returns how numascope's reading of a command line differs
// from the kubelet's flag parsing, or "".
func compareFlags(line string) string {
	want, _, wantErr := kubeletParseFlags(strings.Fields(line))
	got, gotErr := topomgr.ParseKubeletConfig([]byte(line))
	if gotErr != nil {
		return fmt.Sprintf("numascope refuses a command line (%v):\n%s", gotErr, line)
	}
	refuses := got.KubeletRefuses
	if strings.HasPrefix(refuses, "bad value for option") {
		refuses = "" // the CPU manager refuses it at start, after flag parsing
	}
	switch {
	case wantErr != nil && refuses == "":
		return fmt.Sprintf("the kubelet refuses a command line numascope reads (%v):\n%s", wantErr, line)
	case wantErr == nil && refuses != "":
		return fmt.Sprintf("numascope says the kubelet refuses (%s) a command line it parses:\n%s", refuses, line)
	case wantErr != nil:
		if wantErr.Error() != refuses {
			return fmt.Sprintf("the refusal differs:\nkubelet:   %v\nnumascope: %s\nin: %s", wantErr, refuses, line)
		}
		return ""
	}
	g := flagFieldsOfNumascope(got)
	if d := cmp.Diff(want, g, cmpopts.EquateEmpty()); d != "" {
		return fmt.Sprintf("fields differ (-kubelet +numascope):\n%s\nin: %s", d, line)
	}
	return ""
}

func TestKubeletFlagsAgainstKubelet(t *testing.T) {
	for _, line := range []string{
		"--cpu-manager-policy=static --reserved-cpus=0,32 --topology-manager-policy=single-numa-node",
		"--cpu-manager-policy static --topology-manager-scope pod --memory-manager-policy Static --reserved-memory 0:memory=1Gi",
		"--cpu_manager_policy=static --topology_manager_policy=restricted",
		"--config=/var/lib/kubelet/config.yaml --kubeconfig=/etc/kubernetes/kubelet.conf --container-runtime-endpoint=unix:///run/containerd/containerd.sock --cpu-manager-policy=static",
		"--cpu-manager-policy=none --cpu-manager-policy=static",
		"--kube-reserved=cpu=1 --kube-reserved=memory=2Gi --system-reserved=cpu=500m,memory=1Gi,ephemeral-storage=1Gi",
		"--kube-reserved= cpu = 1 ,memory=2Gi",
		"--kube-reserved=",
		"--kube-reserved=cpu",
		"--eviction-hard=memory.available<100Mi,nodefs.available<10%",
		"--eviction-hard=memory.available=100Mi",
		"--reserved-memory=0:memory=1100Mi;1:memory=1Gi",
		"--reserved-memory=0:memory=1Gi,hugepages-1Gi=2Gi --reserved-memory=1:memory=1Gi",
		"--reserved-memory=0:memory=1Gi;",
		"--reserved-memory=x:memory=1Gi",
		"--reserved-memory=0:cpu=1",
		"--reserved-memory=0:memory=lots",
		"--reserved-memory=0=memory:1Gi",
		"--reserved-memory= --memory-manager-policy=Static",
		"--reserved-memory= --reserved-memory=0:memory=1Gi",
		"--feature-gates=TopologyManagerPolicyAlphaOptions=true,TopologyManagerPolicyBetaOptions=false",
		"--feature-gates=A=true --feature-gates=B=0",
		"--feature-gates=A=maybe",
		"--feature-gates=A",
		"--feature-gates=",
		"--topology-manager-policy-options=prefer-closest-numa-nodes=true,max-allowable-numa-nodes=16",
		"--cpu-manager-policy-options=full-pcpus-only=true --cpu-manager-policy-options=distribute-cpus-across-numa=true",
		"--cpu-manager-policy-options=full-pcpus-only=true,distribute-cpus-across-numa=true",
		"--cpu-manager-policy-options=full-pcpus-only",
		"-cpu-manager-policy=static",
		"--topology-manager-policy=Restricted --memory-manager-policy=static",
	} {
		t.Run(line, func(t *testing.T) {
			assert.Empty(t, compareFlags(line))
		})
	}
}

// TestKubeletFlagsOverFileAgainstKubelet layers a command line over a
// config file as kubeletConfigFlagPrecedence does (the file decoded by the
// kubelet, then its flag set parsed again over it) and demands the same
// fields from topomgr's Layer.
func TestKubeletFlagsOverFileAgainstKubelet(t *testing.T) {
	file := configHead + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: best-effort\nkubeReserved: {cpu: \"1\", memory: 2Gi}\n" +
		"featureGates: {TopologyManagerPolicyAlphaOptions: true, TopologyManagerPolicyBetaOptions: true}\nmemoryManagerPolicy: Static\nreservedMemory: [{numaNode: 0, limits: {memory: 1Gi}}]\n" +
		"topologyManagerPolicyOptions: {prefer-closest-numa-nodes: \"true\"}\n"
	for _, line := range []string{
		"--topology-manager-policy=single-numa-node",
		"--kube-reserved=cpu=2",
		"--feature-gates=TopologyManagerPolicyBetaOptions=false,PodLevelResourceManagers=true",
		"--reserved-memory=1:memory=2Gi",
		"--reserved-memory=",
		"--topology-manager-policy-options=max-allowable-numa-nodes=16",
		"--kube-reserved=",
		"--cpu-manager-policy=none --reserved-cpus=",
	} {
		t.Run(line, func(t *testing.T) {
			_, codecs, err := kubeletscheme.NewSchemeAndCodecs(serializer.EnableStrict)
			require.NoError(t, err)
			kc, err := kubeletcodec.DecodeKubeletConfiguration(context.Background(), codecs, []byte(file))
			require.NoError(t, err)
			original := kc.FeatureGates
			fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
			fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
			fs.SetOutput(nopWriter{})
			options.NewKubeletFlags().AddFlags(fs)
			options.AddKubeletConfigFlags(fs, kc)
			require.NoError(t, fs.Parse(strings.Fields(line)))
			for k, v := range original { // as kubeletConfigFlagPrecedence
				if _, ok := kc.FeatureGates[k]; !ok {
					kc.FeatureGates[k] = v
				}
			}
			want := &flagFields{Config: *fieldsOfKubelet(kc), CPUManagerPolicyOptions: kc.CPUManagerPolicyOptions, KubeReserved: canonQuantities(kc.KubeReserved), SystemReserved: canonQuantities(kc.SystemReserved)}

			base, err := topomgr.ParseKubeletConfig([]byte(file))
			require.NoError(t, err)
			over, err := topomgr.ParseKubeletConfig([]byte(line))
			require.NoError(t, err)
			got := base.Layer(over)
			g := flagFieldsOfNumascope(got)
			g.KubeReserved, g.SystemReserved, g.EvictionHard = canonQuantities(g.KubeReserved), canonQuantities(g.SystemReserved), nil
			assert.Empty(t, cmp.Diff(want, g, cmpopts.EquateEmpty()))
		})
	}
}

// canonQuantities writes each quantity as the kubelet's decoder keeps it
// (a map of strings in the versioned file; the internal config keeps them
// as written).
func canonQuantities(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		if q, err := resource.ParseQuantity(v); err == nil {
			v = q.String()
		}
		out[k] = v
	}
	return out
}

// FuzzKubeletFlagsAgainstKubelet builds command lines from three flag
// occurrences with fuzzed values and demands numascope read them as the
// kubelet's flag parsing does.
func FuzzKubeletFlagsAgainstKubelet(f *testing.F) {
	names := []string{"cpu-manager-policy", "cpu-manager-policy-options", "memory-manager-policy", "reserved-memory",
		"topology-manager-policy", "topology-manager-scope", "topology-manager-policy-options", "kube-reserved",
		"system-reserved", "eviction-hard", "feature-gates", "reserved-cpus", "config", "cpu_manager_policy"}
	// The seed corpus is testdata/fuzz/FuzzKubeletFlagsAgainstKubelet.
	f.Fuzz(func(t *testing.T, n1 uint8, v1 string, n2 uint8, v2 string, n3 uint8, v3 string) {
		var args []string
		for _, p := range []struct {
			n uint8
			v string
		}{{n1, v1}, {n2, v2}, {n3, v3}} {
			name := names[int(p.n)%len(names)]
			if strings.ContainsAny(p.v, " \t\n\r\v\f\u0085\u00a0'\"`$\\") || strings.Contains(p.v, "--") || strings.HasSuffix(p.v, ".") ||
				strings.HasSuffix(p.v, ",") || strings.HasSuffix(p.v, ")") || !validUTF8(p.v) || len(p.v) > 200 {
				return // a value that does not survive a pasted line as one word
			}
			if name == "reserved-cpus" {
				p.v = []string{"0", "0-3,8", "", "1,5"}[len(p.v)%4]
			}
			args = append(args, "--"+name+"="+p.v)
		}
		line := strings.Join(args, " ")
		fuzzbudget.Run(t, func() {
			if d := compareFlags(line); d != "" {
				t.Fatal(d)
			}
		})
	})
}

func validUTF8(s string) bool {
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, '\uFFFD')
}

// TestKubeletConfigWrappersAgainstKubelet unwraps each wrapper the way its
// tool hands the fields to the kubelet (a KubeletConfiguration file with
// the wrapped fields) and demands numascope read the wrapper as the
// kubelet reads that file.
func TestKubeletConfigWrappersAgainstKubelet(t *testing.T) {
	fields := "cpuManagerPolicy: static\nreservedSystemCPUs: \"0,48\"\nmemoryManagerPolicy: Static\nreservedMemory: [{numaNode: 0, limits: {memory: 1100Mi}}]\ntopologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\nfeatureGates: {TopologyManagerPolicyAlphaOptions: true}\n"
	indent := func(s, by string) string {
		return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
	}
	want, err := kubeletDecodeConfig([]byte(configHead + fields))
	require.NoError(t, err)
	for name, doc := range map[string]string{
		"openshift": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: numa}\nspec:\n  kubeletConfig:\n" + indent(fields, "    "),
		"talos":     "version: v1alpha1\nmachine:\n  kubelet:\n    extraConfig:\n" + indent(fields, "      "),
		"nodeadm":   "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n" + indent(fields, "      "),
		"kubeadm":   "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n---\n" + configHead + fields,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := topomgr.ParseKubeletConfig([]byte(doc))
			require.NoError(t, err)
			assert.Empty(t, got.KubeletRefuses)
			assert.Empty(t, cmp.Diff(want, fieldsOfNumascope(got), cmpopts.EquateEmpty()))
		})
	}
}
