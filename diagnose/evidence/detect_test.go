package evidence

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence/internal/paste"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fixtures written from the formats' specifications (evidence-formats.md).
const (
	fixKlog       = "I0305 09:20:11.402913    2741 scope_container.go:77] \"TopologyHints\" hints=map[cpu:[{NUMANodeAffinity:01 Preferred:true}]] pod=\"telco/dpdk\" containerName=\"fwd\"\n"
	fixJournal    = "Mar 05 09:20:11 wrk-numa-07 kubelet[2741]: E0305 09:20:11.403010    2741 predicate.go:1] \"Failed to admit pod\"\n"
	fixJSONLog    = `{"ts":1709630411.402913,"caller":"topologymanager/scope.go:1","msg":"Topology Admit Handler","v":0}` + "\n"
	fixPodsTable  = "NAMESPACE   NAME                       READY   STATUS                  RESTARTS   AGE\ntelco       dpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError   0          41s\n"
	fixEvents     = "LAST SEEN   TYPE      REASON                  OBJECT                         MESSAGE\n41s         Warning   TopologyAffinityError   pod/dpdk-fwd-6f9c7d8b4-kx2lq   Resources cannot be allocated with Topology locality\n"
	fixDescribe   = "Name:         dpdk-fwd\nNamespace:    telco\nStatus:       Failed\nReason:       TopologyAffinityError\nEvents:\n  Type     Reason                 Age   From     Message\n  ----     ------                 ----  ----     -------\n  Warning  TopologyAffinityError  41s   kubelet  Resources cannot be allocated with Topology locality\n"
	fixNumactl    = "available: 2 nodes (0-1)\nnode 0 cpus: 0 2 4 6\nnode 0 size: 64121 MB\nnode 1 cpus: 1 3 5 7\nnode 1 size: 64507 MB\nnode distances:\nnode   0   1\n  0:  10  21\n  1:  21  10\n"
	fixLscpu      = "Thread(s) per core:      2\nCore(s) per socket:      24\nSocket(s):               2\nNUMA node(s):            2\nNUMA node0 CPU(s):       0-23,48-71\nNUMA node1 CPU(s):       24-47,72-95\n"
	fixLscpuE     = "CPU NODE SOCKET CORE L1d:L1i:L2:L3 ONLINE    MAXMHZ   MINMHZ\n  0    0      0    0 0:0:0:0          yes 3500.0000 800.0000\n"
	fixSysfsGrep  = "/sys/devices/system/node/node0/cpulist:0-23,48-71\n/sys/devices/system/node/node1/cpulist:24-47,72-95\n"
	fixFlags      = "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --cpu-manager-policy=static --reserved-cpus=0,32 --topology-manager-policy=single-numa-node\n"
	fixKubeadmEnv = "KUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10\"\n"
	fixConfig     = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
	fixConfigz    = `{"kubeletconfig":{"cpuManagerPolicy":"static","topologyManagerPolicy":"restricted"}}`
	fixConfigKeys = "cpuManagerPolicy: static\ntopologyManagerPolicy: single-numa-node\n"
	fixPod        = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
	fixDeploy     = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n"
	fixEventList  = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Event\n  reason: TopologyAffinityError\n"
	fixCPUState   = `{"policyName":"static","defaultCpuSet":"0-3","checksum":1}`
	fixMemState   = `{"policyName":"Static","machineState":{},"checksum":1}`
	fixDevState   = `{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{}},"Checksum":1}`
	fixPodRes     = `{"pod_resources":[{"name":"p","namespace":"n","containers":[{"name":"c","cpu_ids":[2,3]}]}]}`
	fixMachine    = `{"num_cores":4,"topology":[{"node_id":0,"cores":[{"core_id":0,"thread_ids":[0,1]}]}]}`
	fixNRT        = "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: wrk}\nzones: []\n"
	fixBare       = "SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 2, requested CPUs = 4, CPUs per core = 2\n"
	fixReport     = `{"schema": "numascope.diagnose/v1", "evidence": [], "findings": []}`
	fixProse      = "Thanks for looking! The node was rebooted on Monday.\n"
)

func kindsOf(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.kind)
	}
	return out
}

func TestSniff(t *testing.T) {
	for name, tc := range map[string]struct {
		text        string
		want        []string
		notEvidence bool
	}{
		"klog text":                   {text: fixKlog, want: []string{KindLog}},
		"journal":                     {text: fixJournal, want: []string{KindLog}},
		"JSON log":                    {text: fixJSONLog, want: []string{KindLog}},
		"log with FLAG lines":         {text: "I0305 09:14:02.118230    2741 flags.go:64] FLAG: --cpu-manager-policy=\"none\"\n", want: []string{KindLog, KindConfig}},
		"get pods table":              {text: fixPodsTable, want: []string{KindEvents}},
		"get events table":            {text: fixEvents, want: []string{KindEvents}},
		"describe pod":                {text: fixDescribe, want: []string{KindEvents}},
		"numactl -H":                  {text: fixNumactl, want: []string{KindTopology}},
		"lscpu":                       {text: fixLscpu, want: []string{KindTopology}},
		"lscpu -e":                    {text: fixLscpuE, want: []string{KindTopology}},
		"sysfs grep":                  {text: fixSysfsGrep, want: []string{KindTopology}},
		"flags":                       {text: fixFlags, want: []string{KindConfig}},
		"kubeadm-flags.env":           {text: fixKubeadmEnv, want: []string{KindConfig}},
		"KubeletConfiguration":        {text: fixConfig, want: []string{KindConfig}},
		"configz":                     {text: fixConfigz, want: []string{KindConfig}},
		"config keys only":            {text: fixConfigKeys, want: []string{KindConfig}},
		"pod":                         {text: fixPod, want: []string{KindPod}},
		"deployment":                  {text: fixDeploy, want: []string{KindPod}},
		"list of events":              {text: fixEventList, want: []string{KindEvents}},
		"cpu_manager_state":           {text: fixCPUState, want: []string{KindState}},
		"memory_manager_state":        {text: fixMemState, want: []string{KindState}},
		"kubelet_internal_checkpoint": {text: fixDevState, want: []string{KindState}},
		"PodResources":                {text: fixPodRes, want: []string{KindPodResources}},
		"machine-info":                {text: fixMachine, want: []string{KindTopology}},
		"NodeResourceTopology":        {text: fixNRT, want: []string{KindTopology}},
		"bare kubelet message":        {text: fixBare, want: []string{KindEvents}},
		"a numascope report":          {text: fixReport, notEvidence: true},
		"prose":                       {text: fixProse},
	} {
		t.Run(name, func(t *testing.T) {
			got, not := sniff([]byte(tc.text), nil)
			assert.Empty(t, cmp.Diff(tc.want, kindsOf(got)), "kinds")
			assert.Equal(t, tc.notEvidence, not != "", "not evidence: %q", not)
		})
	}
}

func TestSniffCommandHints(t *testing.T) {
	for cmd, want := range map[string]string{
		"cat /var/lib/kubelet/cpu_manager_state | jq .": KindState,
		"journalctl -u kubelet --no-pager":              KindLog,
		"numactl -H":                                    KindTopology,
		"ps aux | grep kubelet":                         KindConfig,
		"kubectl describe pod x":                        KindEvents,
		"kubectl get pods -A":                           KindPod,
	} {
		got, _ := sniff([]byte("whatever"), []string{cmd})
		if assert.NotEmpty(t, got, cmd) {
			assert.Equal(t, want, got[0].kind, cmd)
		}
	}
}

// TestAddDetects reads each fixture without a kind, through the real readers.
func TestAddDetects(t *testing.T) {
	for name, tc := range map[string]struct {
		text, kind, status string
	}{
		"klog":                 {fixKlog, KindLog, "read"},
		"events table":         {fixEvents, KindEvents, "read"},
		"describe":             {fixDescribe, KindEvents, "read"},
		"config":               {fixConfig, KindConfig, "read"},
		"pod":                  {fixPod, KindPod, "read"},
		"machine-info":         {fixMachine, KindTopology, "read"},
		"cpu_manager_state":    {`{"policyName":"none","defaultCpuSet":"","checksum":1353318690}`, "state-cpu", "read"},
		"prose":                {fixProse, "unknown", "unused"},
		"report":               {fixReport, "unknown", "unused"},
		"fenced, quoted paste": {"> ```\n> " + strings.ReplaceAll(strings.TrimSpace(fixEvents), "\n", "\n> ") + "\n> ```\n", KindEvents, "read"},
	} {
		t.Run(name, func(t *testing.T) {
			var ev Set
			it := ev.Add(name, "", []byte(tc.text))
			assert.Equal(t, tc.kind, it.Kind, "kind (%+v)", it)
			assert.Equal(t, tc.status, it.Status, "status (%+v)", it)
			require.Len(t, ev.items, 1, "items")
		})
	}
}

// TestAddGivenKindFallsBack: a typed input its reader refuses is read as
// what its content is, with a warning that names both.
func TestAddGivenKindFallsBack(t *testing.T) {
	var ev Set
	it := ev.Add("pod.txt", "pod", []byte(fixEvents))
	assert.Equal(t, "read", it.Status, "status")
	assert.Equal(t, KindEvents, it.Kind, "kind")
	assert.Equal(t, KindPod, it.Given, "given")
	require.NotEmpty(t, it.Warnings, "warnings")
	assert.Equal(t, "given as --pod, read as events: a kubectl get events table", it.Warnings[0], "first warning")
	assert.Len(t, ev.Events, 1, "events read")
	assert.Empty(t, ev.Pods, "pods read")

	// A log given as the configuration.
	it = ev.Add("config.yaml", "kubelet-config", []byte(fixKlog))
	assert.Equal(t, KindLog, it.Kind, "kind of a log given as the configuration")
	assert.Nil(t, ev.Config, "configuration")

	// Strict SDK methods do not fall back.
	require.Error(t, ev.AddPods("pod2.txt", []byte(fixEvents)), "AddPods on an events table")
	last := ev.items[len(ev.items)-1]
	assert.Equal(t, "refused", last.Status, "status after AddPods")

	it = ev.Add("x", "nonsense", []byte(fixKlog))
	assert.Equal(t, "refused", it.Status, "unknown kind")
	assert.Contains(t, it.Error, `unknown evidence kind "nonsense"`, "error")
}

func TestAddRefusedKeepsEveryReason(t *testing.T) {
	var ev Set
	it := ev.Add("pods.txt", "pod", []byte(fixPodsTable))
	// On this branch no reader takes a get-pods table: both reasons are kept.
	if it.Status == "refused" {
		assert.Equal(t, KindPod, it.Kind, "kind")
		assert.Contains(t, it.Error, "pods.txt", "the error names the file")
		assert.Contains(t, it.Error, "read as events:", "the events reader's reason")
	} else {
		assert.Contains(t, []string{KindPod, KindEvents}, it.Kind, "kind of a get-pods table")
	}
}

func TestAddGzip(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(fixKlog))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	var ev Set
	it := ev.Add("kubelet.log.gz", "", b.Bytes())
	assert.Equal(t, KindLog, it.Kind, "kind")
	assert.Equal(t, "read", it.Status, "status")
	assert.Contains(t, it.Warnings, "decompressed gzip data", "warnings")

	it = ev.Add("cut.gz", "", b.Bytes()[:12])
	assert.Equal(t, "refused", it.Status, "a cut gzip stream")
	assert.Contains(t, it.Error, "cut.gz: decompressing gzip data", "error")
}

// TestLoadPositionalFiles: files without a kind are sorted into place, so a
// configuration given after a checkpoint still judges it.
func TestLoadPositionalFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	files := []string{
		write("a.txt", fixEvents),
		write("b.txt", fixConfig),
		write("c.txt", fixProse),
		dir, // a directory
		filepath.Join(dir, "missing.txt"),
	}
	ev, err := Load(Sources{Files: files})
	require.NoError(t, err)
	var got []string
	for _, e := range ev.items {
		got = append(got, filepath.Base(e.File)+" "+e.Kind+" "+e.Status)
	}
	want := []string{
		filepath.Base(dir) + " unknown unused", "missing.txt unknown refused",
		"b.txt kubelet-config read", "a.txt events read", "c.txt unknown unused",
	}
	assert.Empty(t, cmp.Diff(want, got), "evidence")
}

func TestSourcesFromDirSniffsUnknownNames(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ticket-4711.txt"), []byte(fixEvents), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte(fixProse), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "other"), 0o755))
	src, err := SourcesFromDir(dir)
	require.NoError(t, err)
	assert.Len(t, src.Files, 3, "files to sniff")
	ev, err := Load(src)
	require.NoError(t, err)
	assert.Len(t, ev.Events, 1, "events read from a file whose name says nothing")
	unused := 0
	for _, e := range ev.items {
		if !e.Used() {
			unused++
		}
	}
	assert.Equal(t, 2, unused, "unused entries (the note and the directory)")
}

// BenchmarkAddLog reads a 10 MB kubelet journal through the normaliser,
// the detection and the log reader.
func BenchmarkAddLog(b *testing.B) {
	line := "Mar 05 09:20:11 wrk-numa-07 kubelet[2741]: " + strings.TrimSuffix(fixKlog, "\n") + "\n"
	data := []byte(strings.Repeat(line, (10<<20)/len(line)))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var ev Set
		if it := ev.Add("kubelet.log", "", data); it.Kind != KindLog {
			b.Fatalf("read as %s", it.Kind)
		}
	}
}

// BenchmarkSniff is the detection alone on a 10 MB input (it reads the
// first 64 KiB).
func BenchmarkSniff(b *testing.B) {
	data := []byte(strings.Repeat(fixProse, (10<<20)/len(fixProse)))
	for b.Loop() {
		sniff(data, nil)
	}
}

func TestOwnReportsAreNotEvidence(t *testing.T) {
	for _, text := range []string{
		"✗ TopologyAffinityError: Pod default/x was rejected — 1 error, 2 warnings\nKubelet: v1.28\n",
		"✓ no findings: nothing in the evidence points at a problem\n",
		"! StaleStateEntry: pod a/b holds CPUs — 1 warning\n",
		"numascope diagnose: 1 error(s), 0 warning(s), 0 note(s)\n",
		"## numascope diagnosis\n\n**✗ X: y — 1 error**\n",
	} {
		_, not := sniff([]byte(text), nil)
		assert.NotEmpty(t, not, "%q is a numascope report", text)
	}
	// a kubelet message that happens to start with a check mark is still evidence
	_, not := sniff([]byte("✗ Warning TopologyAffinityError 3m kubelet Resources cannot be allocated with Topology locality\n"), nil)
	assert.Empty(t, not)
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{fixKlog, fixEvents, fixDescribe, fixNumactl, fixFlags, fixConfig, fixPod, fixCPUState, fixPodRes,
		"```\n$ cat /var/lib/kubelet/cpu_manager_state\n" + fixCPUState + "\n```", "\x1f\x8b\x08"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			n := paste.Normalize(data)
			sniff(n.Text, n.Commands)
			var ev Set
			it := ev.Add("fuzz", "", data)
			if it.Status == "" || it.File != "fuzz" {
				t.Fatalf("item without status or file: %+v", it)
			}
			if it.Status == "refused" && it.Error == "" {
				t.Fatalf("refused without a reason: %+v", it)
			}
		})
	})
}
