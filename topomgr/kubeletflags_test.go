package topomgr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// read is what a test checks of a reading: the fields and the evidence.
type read struct {
	Format                       string
	Topology, Scope, CPU, Memory string
	ReservedCPUs                 string
	KubeReserved, SystemReserved map[string]string
	EvictionHard, CPUOptions     map[string]string
	TopologyOptions              map[string]string
	Gates                        map[string]bool
	ReservedMemory               []MemoryReservation
	ConfigFile, Refuses          string
	Set                          []string
	Lines                        map[string]int
}

func readOf(c *KubeletConfig) read {
	return read{Format: c.Format, Topology: c.TopologyManagerPolicy, Scope: c.TopologyManagerScope, CPU: c.CPUManagerPolicy,
		Memory: c.MemoryManagerPolicy, ReservedCPUs: c.ReservedSystemCPUs, KubeReserved: c.KubeReserved, SystemReserved: c.SystemReserved,
		EvictionHard: c.EvictionHard, CPUOptions: c.CPUManagerPolicyOptions, TopologyOptions: c.TopologyManagerPolicyOptions,
		Gates: c.FeatureGates, ReservedMemory: c.ReservedMemory, ConfigFile: c.ConfigFile, Refuses: c.KubeletRefuses, Set: c.Set, Lines: c.Lines}
}

// defaults is a reading with the kubelet's default policies.
func defaults(format string) read {
	return read{Format: format, Topology: "none", Scope: "container", CPU: "none", Memory: "None"}
}

func with(r read, f func(*read)) read { f(&r); return r }

func TestParseKubeletConfigForms(t *testing.T) {
	static := func(format string) read {
		return with(defaults(format), func(r *read) {
			r.CPU, r.Topology, r.ReservedCPUs, r.ConfigFile = "static", "single-numa-node", "0,32", "/var/lib/kubelet/config.yaml"
			r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs", "topologyManagerPolicy"}
		})
	}
	for _, tc := range []struct {
		name, text string
		want       read
		warnings   []string // substrings, one per expected warning, in order
	}{
		{name: "one line", text: "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --cpu-manager-policy=static --reserved-cpus=0,32 --topology-manager-policy=single-numa-node\n",
			want: with(static("flags"), func(r *read) {
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "reservedSystemCPUs": 1, "topologyManagerPolicy": 1}
			})},
		{name: "backslash continuations", text: "/usr/bin/kubelet \\\n  --config=/var/lib/kubelet/config.yaml \\\n  --cpu-manager-policy=static --reserved-cpus=0,32 \\\n  --topology-manager-policy=single-numa-node\n",
			want: with(static("flags"), func(r *read) {
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "reservedSystemCPUs": 1, "topologyManagerPolicy": 1}
			})},
		{name: "one flag per line, --k v form, underscores", text: "--config /var/lib/kubelet/config.yaml\n--cpu_manager_policy static\n--reserved-cpus 0,32\n--topology-manager-policy=single-numa-node\n",
			want: with(static("flags"), func(r *read) {
				r.Lines = map[string]int{"cpuManagerPolicy": 2, "reservedSystemCPUs": 3, "topologyManagerPolicy": 4}
			})},
		{name: "ps aux with its grep line", text: "root   2741  4.1  0.3 3012456 201344 ?  Ssl  Mar04  88:12 /usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --memory-manager-policy=Static --reserved-memory=0:memory=1100Mi;1:memory=1Gi --kube-reserved=cpu=500m,memory=1Gi\nroot  30811  0.0  0.0   6432    724 pts/0 S+  10:02   0:00 grep --color=auto kubelet\n",
			want: with(defaults("ps"), func(r *read) {
				r.Memory, r.ConfigFile = "Static", "/var/lib/kubelet/config.yaml"
				r.ReservedMemory = []MemoryReservation{{0, map[string]string{"memory": "1100Mi"}}, {1, map[string]string{"memory": "1Gi"}}}
				r.KubeReserved = map[string]string{"cpu": "500m", "memory": "1Gi"}
				r.Set = []string{"kubeReserved", "memoryManagerPolicy", "reservedMemory"}
				r.Lines = map[string]int{"kubeReserved": 1, "memoryManagerPolicy": 1, "reservedMemory": 1}
			})},
		{name: "ps -ef cut at 150 columns", text: "root        2741       1  4 Mar04 ?        01:28:12 /usr/bin/kubelet --cpu-manager-policy=static --reserved-cpus=0 --topology-manager-policy=single-nu\n",
			want: with(defaults("ps"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "reservedSystemCPUs": 1}
			}), warnings: []string{"line 1: the ps line looks cut off at column 150: --topology-manager-policy=single-nu at its end may be incomplete and is not read (use ps auxww)"}},
		{name: "/proc/PID/cmdline without NULs", text: "/usr/bin/kubelet--config=/var/lib/kubelet/config.yaml--cpu-manager-policy=static--topology-manager-scope=pod\n",
			want: with(defaults("cmdline"), func(r *read) {
				r.CPU, r.Scope, r.ConfigFile = "static", "pod", "/var/lib/kubelet/config.yaml"
				r.Set = []string{"cpuManagerPolicy", "topologyManagerScope"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "topologyManagerScope": 1}
			}), warnings: []string{"line 1: flags run together (a /proc/PID/cmdline printed without its NUL separators): split before each --"}},
		{name: "systemctl cat kubelet with the env file", text: "# /usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf\n[Service]\nEnvironment=\"KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\"\nEnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\nExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS\n# /var/lib/kubelet/kubeadm-flags.env\nKUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint=unix:///run/containerd/containerd.sock --topology-manager-policy=restricted\"\n",
			want: with(defaults("systemd"), func(r *read) {
				r.Topology, r.ConfigFile = "restricted", "/var/lib/kubelet/config.yaml"
				r.Set = []string{"topologyManagerPolicy"}
				r.Lines = map[string]int{"topologyManagerPolicy": 6}
			})},
		{name: "systemd without the env files", text: "[Service]\nExecStart=/usr/bin/kubelet --cpu-manager-policy=static --reserved-cpus=0 $KUBELET_EXTRA_ARGS\n",
			want: with(defaults("systemd"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 2, "reservedSystemCPUs": 2}
			}), warnings: []string{"line 2: ExecStart= uses $KUBELET_EXTRA_ARGS, set in an environment file not in this paste: flags may be missing"}},
		{name: "kubeadm-flags.env quoted with %q", text: `KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10 --cpu-manager-policy=static --kube-reserved=cpu=1"` + "\n",
			want: with(defaults("env-file"), func(r *read) {
				r.CPU, r.KubeReserved = "static", map[string]string{"cpu": "1"}
				r.Set = []string{"cpuManagerPolicy", "kubeReserved"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "kubeReserved": 1}
			})},
		{name: "/etc/default/kubelet unquoted", text: "KUBELET_EXTRA_ARGS=--topology-manager-policy=best-effort --topology-manager-scope=pod\n",
			want: with(defaults("env-file"), func(r *read) {
				r.Topology, r.Scope = "best-effort", "pod"
				r.Set = []string{"topologyManagerPolicy", "topologyManagerScope"}
				r.Lines = map[string]int{"topologyManagerPolicy": 1, "topologyManagerScope": 1}
			})},
		{name: "minikube --extra-config", text: "minikube start --extra-config=kubelet.cpu-manager-policy=static --extra-config=kubelet.reserved-cpus=0 --extra-config=apiserver.v=4\n",
			want: with(defaults("flags"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "reservedSystemCPUs": 1}
			})},
		{name: "the kubelet's FLAG: dump", text: "I0305 09:14:02.118201    2741 flags.go:64] FLAG: --reserved-memory=\"0:memory=1100Mi,1:memory=1Gi\"\nI0305 09:14:02.118230    2741 flags.go:64] FLAG: --cpu-manager-policy=\"none\"\nI0305 09:14:02.118231    2741 flags.go:64] FLAG: --topology-manager-policy=\"single-numa-node\"\nI0305 09:14:02.118232    2741 flags.go:64] FLAG: --kube-reserved=\"\"\n",
			want: with(defaults("flag-dump"), func(r *read) {
				r.Topology = "single-numa-node"
				r.ReservedMemory = []MemoryReservation{{0, map[string]string{"memory": "1100Mi"}}, {1, map[string]string{"memory": "1Gi"}}}
				r.Set = []string{"reservedMemory", "topologyManagerPolicy"}
				r.Lines = map[string]int{"reservedMemory": 1, "topologyManagerPolicy": 3}
			}), warnings: []string{"read from the kubelet's FLAG: start-up lines: they show command-line values and built-in defaults, not the --config file's values"}},
		{name: "flags quoted in prose", text: "We start the kubelet with `--cpu-manager-policy=static` and \"--topology-manager-policy=restricted\", and it's still failing.\n",
			want: with(defaults("flags"), func(r *read) {
				r.CPU, r.Topology = "static", "restricted"
				r.Set = []string{"cpuManagerPolicy", "topologyManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "topologyManagerPolicy": 1}
			})},
		{name: "repeats: scalars take the last, maps accumulate, reserved-memory appends", text: "--cpu-manager-policy=none --cpu-manager-policy=static --kube-reserved=cpu=1 --kube-reserved=memory=2Gi --reserved-memory 0:memory=1Gi --reserved-memory 1:memory=1Gi,hugepages-1Gi=2Gi --feature-gates=A=true,B=false --feature-gates=C=1\n",
			want: with(defaults("flags"), func(r *read) {
				r.CPU = "static"
				r.KubeReserved = map[string]string{"cpu": "1", "memory": "2Gi"}
				r.ReservedMemory = []MemoryReservation{{0, map[string]string{"memory": "1Gi"}}, {1, map[string]string{"memory": "1Gi", "hugepages-1Gi": "2Gi"}}}
				r.Gates = map[string]bool{"A": true, "B": false, "C": true}
				r.Set = []string{"cpuManagerPolicy", "featureGates", "kubeReserved", "reservedMemory"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "featureGates": 1, "kubeReserved": 1, "reservedMemory": 1}
			}), warnings: []string{`line 1: --cpu-manager-policy is given again: the last value wins ("static" replaces "none")`}},
		{name: "eviction-hard and policy options", text: "--eviction-hard=memory.available<100Mi,nodefs.available<10% --topology-manager-policy-options=prefer-closest-numa-nodes=true --cpu-manager-policy-options=full-pcpus-only=true\n",
			want: with(defaults("flags"), func(r *read) {
				r.EvictionHard = map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"}
				r.TopologyOptions = map[string]string{"prefer-closest-numa-nodes": "true"}
				r.CPUOptions = map[string]string{"full-pcpus-only": "true"}
				r.Set = []string{"cpuManagerPolicyOptions", "evictionHard", "topologyManagerPolicyOptions"}
				r.Lines = map[string]int{"cpuManagerPolicyOptions": 1, "evictionHard": 1, "topologyManagerPolicyOptions": 1}
			})},
		{name: "comma-joined cpu-manager-policy-options", text: "--cpu-manager-policy=static --reserved-cpus=0 --cpu-manager-policy-options=full-pcpus-only=true,distribute-cpus-across-numa=true\n",
			want: with(defaults("flags"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.CPUOptions = map[string]string{"full-pcpus-only": "true,distribute-cpus-across-numa=true"}
				r.Refuses = `bad value for option "full-pcpus-only": strconv.ParseBool: parsing "true,distribute-cpus-across-numa=true": invalid syntax`
				r.Set = []string{"cpuManagerPolicy", "cpuManagerPolicyOptions", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "cpuManagerPolicyOptions": 1, "reservedSystemCPUs": 1}
			}), warnings: []string{`line 1: --cpu-manager-policy-options takes one option per flag`}},
		{name: "a single-dash long flag", text: "kubelet -cpu-manager-policy=static --topology-manager-policy=restricted\n",
			want: with(defaults("flags"), func(r *read) {
				r.Topology = "restricted"
				r.Refuses = `failed to parse kubelet flag: unknown shorthand flag: 'c' in -cpu-manager-policy=static`
				r.Set = []string{"topologyManagerPolicy"}
				r.Lines = map[string]int{"topologyManagerPolicy": 1}
			}), warnings: []string{"line 1: -cpu-manager-policy has one dash: the kubelet rejects it"}},
		{name: "a feature gate that is not a bool", text: "--feature-gates=A=maybe\n",
			want: with(defaults("flags"), func(r *read) {
				r.Gates = map[string]bool{}
				r.Refuses = `failed to parse kubelet flag: invalid argument "A=maybe" for "--feature-gates" flag: invalid value of A: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`
				r.Set = []string{"featureGates"}
				r.Lines = map[string]int{"featureGates": 1}
			}), warnings: []string{`line 1: --feature-gates=A=maybe: the kubelet refuses this value and does not start`}},
		{name: "a bad reserved-memory", text: "--reserved-memory=0=memory:1Gi\n",
			want: with(defaults("flags"), func(r *read) {
				r.ReservedMemory = []MemoryReservation{}
				r.Refuses = `failed to parse kubelet flag: invalid argument "0=memory:1Gi" for "--reserved-memory" flag: failed to convert the NUMA node ID, expected integer, got 0=memory`
				r.Set = []string{"reservedMemory"}
				r.Lines = map[string]int{"reservedMemory": 1}
			}), warnings: []string{"line 1: --reserved-memory=0=memory:1Gi: the kubelet refuses this value"}},

		{name: "a kubelet log: deprecation notices and the FLAG: dump", text: "Flag --cpu-manager-policy has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag.\nI0305 09:14:02.118230    2741 flags.go:64] FLAG: --cpu-manager-policy=\"static\"\nI0305 09:14:02.118231    2741 flags.go:64] FLAG: --config=\"/var/lib/kubelet/config.yaml\"\n",
			want: with(defaults("flag-dump"), func(r *read) {
				r.CPU, r.ConfigFile = "static", "/var/lib/kubelet/config.yaml"
				r.Set = []string{"cpuManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 2}
			}), warnings: []string{"read from the kubelet's FLAG: start-up lines"}},
		{name: "prose: a flag named, not given a value", text: "I set --topology-manager-policy to single-numa-node and --cpu-manager-policy=static.\n",
			want: with(defaults("flags"), func(r *read) {
				r.CPU = "static"
				r.Set = []string{"cpuManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1}
			}), warnings: []string{"line 1: --topology-manager-policy has no value: not read"}},
		{name: "a config file in a Markdown fence after its prompt", text: "```yaml\n$ cat /var/lib/kubelet/config.yaml\n" + configHead + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n```\n",
			want: with(defaults("file"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"apiVersion", "cpuManagerPolicy", "kind", "reservedSystemCPUs"}
				r.Lines = map[string]int{"apiVersion": 3, "kind": 4, "cpuManagerPolicy": 5, "reservedSystemCPUs": 6}
			}), warnings: []string{"line 1, 2, 7: a Markdown fence or shell prompt around the document: skipped"}},
		{name: "/configz after its command", text: "$ kubectl get --raw /api/v1/nodes/wrk-1/proxy/configz | jq .\n{\n  \"kubeletconfig\": {\n    \"topologyManagerPolicy\": \"restricted\"\n  }\n}\n",
			want: with(defaults("configz"), func(r *read) {
				r.Topology = "restricted"
				r.Set = []string{"topologyManagerPolicy"}
				r.Lines = map[string]int{"topologyManagerPolicy": 4}
			}), warnings: []string{"line 1: a Markdown fence or shell prompt around the document: skipped"}},

		{name: "YAML and a command line in one paste", text: "our config.yaml has\ncpuManagerPolicy: static\nand the kubelet runs as\n/usr/bin/kubelet --topology-manager-policy=restricted\n",
			want: with(defaults("flags"), func(r *read) {
				r.Topology = "restricted"
				r.Set = []string{"topologyManagerPolicy"}
				r.Lines = map[string]int{"topologyManagerPolicy": 4}
			}), warnings: []string{"the text also holds KubeletConfiguration fields that could not be read as YAML"}},

		// Wrappers.
		{name: "/configz", text: `{"kubeletconfig":{"cpuManagerPolicy":"static","reservedSystemCPUs":"0"}}`,
			want: with(defaults("configz"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
			})},
		{name: "old /configz", text: `{"componentconfig":{"cpuManagerPolicy":"static"}}`,
			want: with(defaults("configz"), func(r *read) {
				r.CPU = "static"
				r.Set = []string{"cpuManagerPolicy"}
			})},
		{name: "OpenShift KubeletConfig", text: "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: numa-workers}\nspec:\n  machineConfigPoolSelector: {matchLabels: {pools.operator.machineconfiguration.openshift.io/numa: \"\"}}\n  kubeletConfig:\n    cpuManagerPolicy: static\n    reservedSystemCPUs: \"0,48\"\n    memoryManagerPolicy: Static\n    reservedMemory: [{numaNode: 0, limits: {memory: 1100Mi}}]\n    topologyManagerPolicy: single-numa-node\n",
			want: with(defaults("openshift-kubeletconfig"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.Memory, r.Topology = "static", "0,48", "Static", "single-numa-node"
				r.ReservedMemory = []MemoryReservation{{0, map[string]string{"memory": "1100Mi"}}}
				r.Set = []string{"cpuManagerPolicy", "memoryManagerPolicy", "reservedMemory", "reservedSystemCPUs", "topologyManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 7, "memoryManagerPolicy": 9, "reservedMemory": 10, "reservedSystemCPUs": 8, "topologyManagerPolicy": 11}
			})},
		{name: "Talos machine config, flags win", text: "version: v1alpha1\nmachine:\n  type: worker\n  kubelet:\n    extraArgs:\n      cpu-manager-policy: static\n      reserved-cpus: \"0\"\n    extraConfig:\n      cpuManagerPolicy: none\n      topologyManagerPolicy: best-effort\n",
			want: with(defaults("talos"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.Topology = "static", "0", "best-effort"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs", "topologyManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 6, "reservedSystemCPUs": 7, "topologyManagerPolicy": 10}
			}), warnings: []string{`cpuManagerPolicy: "static" from the command line line 6 overrides "none" from the configuration line 9`}},
		{name: "k3s kubelet-arg", text: "write-kubeconfig-mode: \"0644\"\nkubelet-arg:\n  - \"cpu-manager-policy=static\"\n  - \"reserved-cpus=0-1\"\n  - \"topology-manager-policy=single-numa-node\"\n",
			want: with(defaults("k3s"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.Topology = "static", "0-1", "single-numa-node"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs", "topologyManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 3, "reservedSystemCPUs": 4, "topologyManagerPolicy": 5}
			})},
		{name: "kubeadm documents, v1beta4 extra args over the KubeletConfiguration", text: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n  - name: topology-manager-policy\n    value: restricted\n---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: best-effort\n",
			want: with(defaults("kubeadm"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.Topology = "static", "0", "restricted"
				r.Set = []string{"apiVersion", "cpuManagerPolicy", "kind", "reservedSystemCPUs", "topologyManagerPolicy"}
				r.Lines = map[string]int{"apiVersion": 8, "kind": 9, "cpuManagerPolicy": 10, "reservedSystemCPUs": 11, "topologyManagerPolicy": 5}
			}), warnings: []string{`topologyManagerPolicy: "restricted" from the command line line 5 overrides "best-effort" from the configuration line 12`}},
		{name: "kubeadm v1beta3 extra args map", text: "apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n    cpu-manager-policy: static\n    reserved-cpus: \"0\"\n",
			want: with(defaults("kubeadm"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 5, "reservedSystemCPUs": 6}
			})},
		{name: "kind cluster kubeadmConfigPatches", text: "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n- role: worker\n  kubeadmConfigPatches:\n  - |\n    kind: JoinConfiguration\n    nodeRegistration:\n      kubeletExtraArgs:\n        cpu-manager-policy: \"static\"\n        reserved-cpus: \"0\"\n",
			want: with(defaults("kind"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 11, "reservedSystemCPUs": 12}
			})},
		{name: "EKS nodeadm NodeConfig", text: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      cpuManagerPolicy: static\n      reservedSystemCPUs: \"0\"\n    flags:\n      - --topology-manager-policy=single-numa-node\n",
			want: with(defaults("nodeadm"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.Topology = "static", "0", "single-numa-node"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs", "topologyManagerPolicy"}
				r.Lines = map[string]int{"cpuManagerPolicy": 6, "reservedSystemCPUs": 7, "topologyManagerPolicy": 9}
			})},

		{name: "kubeadm's kubelet-config ConfigMap", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubelet-config\n  namespace: kube-system\ndata:\n  kubelet: |\n    apiVersion: kubelet.config.k8s.io/v1beta1\n    kind: KubeletConfiguration\n    cpuManagerPolicy: static\n    reservedSystemCPUs: \"0\"\n",
			want: with(defaults("configmap"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"apiVersion", "cpuManagerPolicy", "kind", "reservedSystemCPUs"}
				r.Lines = map[string]int{"apiVersion": 8, "kind": 9, "cpuManagerPolicy": 10, "reservedSystemCPUs": 11}
			})},
		{name: "oc get kubeletconfig -o yaml: a List", text: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: machineconfiguration.openshift.io/v1\n  kind: KubeletConfig\n  metadata: {name: numa}\n  spec:\n    kubeletConfig:\n      topologyManagerPolicy: restricted\n",
			want: with(defaults("openshift-kubeletconfig"), func(r *read) {
				r.Topology = "restricted"
				r.Set = []string{"topologyManagerPolicy"}
				r.Lines = map[string]int{"topologyManagerPolicy": 9}
			})},

		// Fragments and YAML details.
		{name: "a fragment without kind", text: "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n",
			want: with(defaults("file"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Refuses = "failed to decode: Object 'Kind' is missing in 'cpuManagerPolicy: static...'"
				r.Set = []string{"cpuManagerPolicy", "reservedSystemCPUs"}
				r.Lines = map[string]int{"cpuManagerPolicy": 1, "reservedSystemCPUs": 2}
			})},
		{name: "no apiVersion", text: "kind: KubeletConfiguration\ntopologyManagerPolicy: restricted\n",
			want: with(defaults("file"), func(r *read) {
				r.Topology = "restricted"
				r.Refuses = "failed to decode: Object 'apiVersion' is missing in 'kind: KubeletConfiguration...'"
				r.Set = []string{"kind", "topologyManagerPolicy"}
				r.Lines = map[string]int{"kind": 1, "topologyManagerPolicy": 2}
			})},
		{name: "apiVersion v1", text: "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n",
			want: with(defaults("file"), func(r *read) {
				r.Refuses = `failed to decode: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`
				r.Set = []string{"apiVersion", "kind"}
				r.Lines = map[string]int{"apiVersion": 1, "kind": 2}
			})},
		{name: "a document end with more after it", text: configHead + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n...\ntopologyManagerPolicy: restricted\n",
			want: with(defaults("file"), func(r *read) {
				r.CPU, r.ReservedCPUs = "static", "0"
				r.Set = []string{"apiVersion", "cpuManagerPolicy", "kind", "reservedSystemCPUs"}
				r.Lines = map[string]int{"apiVersion": 1, "kind": 2, "cpuManagerPolicy": 3, "reservedSystemCPUs": 4}
			}), warnings: []string{`line 6: more YAML after the first document's end (a "---" or "..." line): the kubelet reads only the first document of its file and ignores the rest`}},
		{name: "an indented elision", text: configHead + "cpuManagerPolicy: static\nkubeReserved:\n  cpu: 500m\n  ...\nreservedSystemCPUs: \"0\"\n",
			want: with(defaults("file"), func(r *read) {
				r.CPU, r.ReservedCPUs, r.KubeReserved = "static", "0", map[string]string{"cpu": "500m"}
				r.Set = []string{"apiVersion", "cpuManagerPolicy", "kind", "kubeReserved", "reservedSystemCPUs"}
				r.Lines = map[string]int{"apiVersion": 1, "kind": 2, "cpuManagerPolicy": 3, "kubeReserved": 4, "reservedSystemCPUs": 7}
			}), warnings: []string{`line 6: an elision ("...") inside the YAML: skipped`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseKubeletConfig([]byte(tc.text))
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(tc.want, readOf(c), cmpopts.EquateEmpty()))
			require.Len(t, c.Warnings, len(tc.warnings), "warnings: %q", c.Warnings)
			for i, w := range tc.warnings {
				assert.Contains(t, c.Warnings[i], w)
			}
		})
	}
}

func TestParseKubeletConfigRefusesWhatIsNoConfiguration(t *testing.T) {
	const notConfig = "not a KubeletConfiguration: no recognised kubelet fields at any known wrapper path"
	const noFlags = "no kubelet flags found: expected --name=value tokens"
	for _, tc := range []struct{ name, text, want string }{
		{"prose", "The pod fails with TopologyAffinityError on the new nodes since Monday.\n", noFlags},
		{"prose with a colon", "Kubelet config: the usual one, nothing special\n", notConfig},
		{"unknown flags only", "/usr/bin/kubelet --v=2 --node-ip=10.0.0.5 --hostname-override=node-1\n", noFlags},
		{"a Talos config without kubelet settings", "version: v1alpha1\nmachine:\n  type: worker\n  install: {disk: /dev/sda}\ncluster:\n  clusterName: prod\n", notConfig},
		{"random YAML", "server:\n  port: 8080\n  address: 0.0.0.0\nlogging: {level: info}\n", notConfig},
		{"a Pod", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: []}\n", notConfig + " (a KubeletConfiguration file"},
		{"an OpenShift KubeletConfig without kubeletConfig", "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nspec:\n  autoSizingReserved: true\n", notConfig},
		{"empty", "", noFlags},
		{"broken YAML that names a field", "cpuManagerPolicy: static\n  topologyManagerPolicy: [\n", "not YAML or JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseKubeletConfig([]byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLayerAsTheKubelet(t *testing.T) {
	parse := func(text, source string) *KubeletConfig {
		c, err := ParseKubeletConfig([]byte(text))
		require.NoError(t, err)
		c.Source = source
		return c
	}
	file := parse(configHead+"cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: best-effort\nkubeReserved: {cpu: \"1\", memory: 2Gi}\nfeatureGates: {A: true, B: true}\nreservedMemory: [{numaNode: 0, limits: {memory: 1Gi}}]\n", "config.yaml")
	flags := parse("--topology-manager-policy=single-numa-node --kube-reserved=cpu=2 --feature-gates=B=false --reserved-memory=1:memory=2Gi\n", "flags.txt")
	got := file.Layer(flags)
	want := with(defaults("file+flags"), func(r *read) {
		r.CPU, r.ReservedCPUs, r.Topology = "static", "0", "single-numa-node"
		r.KubeReserved = map[string]string{"cpu": "2"}
		r.Gates = map[string]bool{"A": true, "B": false}
		r.ReservedMemory = []MemoryReservation{{1, map[string]string{"memory": "2Gi"}}}
		r.Set = []string{"apiVersion", "cpuManagerPolicy", "featureGates", "kind", "kubeReserved", "reservedMemory", "reservedSystemCPUs", "topologyManagerPolicy"}
		r.Lines = map[string]int{"apiVersion": 1, "kind": 2, "cpuManagerPolicy": 3, "reservedSystemCPUs": 4, "topologyManagerPolicy": 1, "kubeReserved": 1, "featureGates": 1, "reservedMemory": 1}
	})
	assert.Empty(t, cmp.Diff(want, readOf(got), cmpopts.EquateEmpty()))
	assert.Equal(t, []string{
		`featureGates/B: false from flags.txt line 1 overrides true from config.yaml line 7`,
		`kubeReserved: --kube-reserved from flags.txt line 1 replaces the whole map from config.yaml line 6: {cpu=1,memory=2Gi} becomes {cpu=2} (a map flag does not merge with the file)`,
		`reservedMemory: 1:memory=2Gi from flags.txt line 1 replaces 0:memory=1Gi from config.yaml line 8`,
		`topologyManagerPolicy: "single-numa-node" from flags.txt line 1 overrides "best-effort" from config.yaml line 5`,
	}, got.Warnings)
	assert.Equal(t, "config.yaml, flags.txt", got.Source)
	assert.Equal(t, "flags.txt", got.SourceOf("topologyManagerPolicy"))
	assert.Equal(t, "config.yaml", got.SourceOf("cpuManagerPolicy"))
	assert.Equal(t, "best-effort", file.TopologyManagerPolicy, "Layer changed its receiver")

	dropin := parse(configHead+"kubeReserved: {memory: 3Gi}\nfeatureGates: {C: true}\ntopologyManagerPolicy: restricted\n", "10-numa.conf")
	merged := file.Layer(dropin)
	assert.Equal(t, map[string]string{"cpu": "1", "memory": "3Gi"}, merged.KubeReserved, "a drop-in merges maps per key")
	assert.Equal(t, map[string]bool{"A": true, "B": true, "C": true}, merged.FeatureGates)
	assert.Equal(t, "restricted", merged.TopologyManagerPolicy)
	assert.Equal(t, "static", merged.CPUManagerPolicy)

	var none *KubeletConfig
	assert.Equal(t, "single-numa-node", none.Layer(flags).TopologyManagerPolicy)
	assert.Same(t, file, file.Layer(nil))
}

func ExampleParseKubeletConfig() {
	c, err := ParseKubeletConfig([]byte("root 2741 4.1 0.3 3012456 201344 ? Ssl Mar04 88:12 /usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --cpu-manager-policy=static --reserved-cpus=0,32 --topology-manager-policy=single-numa-node\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Format, c.TopologyManagerPolicy, c.TopologyManagerScope, c.CPUManagerPolicy, c.ReservedSystemCPUs, c.ConfigFile)
	// Output: ps single-numa-node container static 0,32 /var/lib/kubelet/config.yaml
}

// FuzzParseKubeletConfigForms: whatever form the text has, the reader
// never panics, fills the defaults, and layering it over itself keeps its
// fields.
func FuzzParseKubeletConfigForms(f *testing.F) {
	// The seed corpus is testdata/fuzz/FuzzParseKubeletConfigForms: one
	// text per form.
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			c, err := ParseKubeletConfig(data)
			if err != nil {
				if strings.TrimSpace(err.Error()) == "" {
					t.Fatal("an empty error")
				}
				return
			}
			if c.TopologyManagerPolicy == "" || c.TopologyManagerScope == "" || c.CPUManagerPolicy == "" || c.MemoryManagerPolicy == "" || c.Format == "" {
				t.Fatalf("defaults or format not filled in: %+v", c)
			}
			l := c.Layer(c)
			if l.TopologyManagerPolicy != c.TopologyManagerPolicy || l.CPUManagerPolicy != c.CPUManagerPolicy || len(l.ReservedMemory) != len(c.ReservedMemory) {
				t.Fatalf("layering a configuration over itself changed it: %+v -> %+v", c, l)
			}
		})
	})
}

// BenchmarkParseKubeletConfigLarge reads inputs near the document limit
// (16 MiB) in the forms whose readers do the most work per byte.
func BenchmarkParseKubeletConfigLarge(b *testing.B) {
	const size = 16 << 20
	fill := func(unit string) []byte { return []byte(strings.Repeat(unit, size/len(unit))) }
	for name, data := range map[string][]byte{
		"one line of flags":     fill("--cpu-manager-policy=static --kube-reserved=cpu=1,memory=1Gi "),
		"unmatched quotes":      fill("it's "),
		"continuations":         fill("--topology-manager-policy=restricted \\\n"),
		"glued cmdline":         fill("/usr/bin/kubelet--cpu-manager-policy=static"),
		"k3s kubelet-arg list":  append([]byte("kubelet-arg:\n"), fill("- \"cpu-manager-policy=static\"\n")...),
		"many YAML documents":   fill("---\nkind: KubeletConfiguration\n"),
		"systemd unit":          append([]byte("[Service]\n"), fill("Environment=\"A=--cpu-manager-policy=static\"\n")...),
		"unknown keys fragment": fill("cpuManagerPolicy: static\n"),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseKubeletConfig(data); err != nil && strings.TrimSpace(err.Error()) == "" {
					b.Fatal("an empty error")
				}
			}
		})
	}
}
