package topomgr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func readFixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "machine", name))
	require.NoError(t, err)
	return b
}

// TestParseMachineFormats reads each format and variant: the summary says
// format, counts and what is unknown; nodes, CPU placement and the online
// list are what the text says, never more.
func TestParseMachineFormats(t *testing.T) {
	interleaved := "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30"
	for _, tc := range []struct {
		file     string
		summary  string
		nodes    map[int]string
		perCore  int
		online   string
		cpus     []CPU // when given: every CPU's place
		distance []uint64
		memory   uint64 // node 0
		warn     string // one warning, in part
	}{
		{file: "numactl-2node-interleaved.txt", summary: "numactl -H: 2 NUMA nodes, 32 CPUs, no core layout, no exact memory",
			nodes: map[int]string{0: interleaved, 1: "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31"}, online: "0-31", distance: []uint64{10, 21}, warn: "MiB, rounded down"},
		{file: "numactl-cxl-cpuless.txt", summary: "numactl -H: 3 NUMA nodes, 32 CPUs (1 node without CPUs), no core layout, no exact memory",
			nodes: map[int]string{0: "0-7,16-23", 1: "8-15,24-31", 2: ""}, online: "0-31", distance: []uint64{10, 21, 14}, warn: "core layout is unknown"},
		{file: "numactl-1node-nodist.txt", summary: "numactl -H: 1 NUMA node, 8 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-7"}, online: "0-7", warn: "prefer-closest-numa-nodes cannot be evaluated"},
		{file: "lscpu-flat-2node.txt", summary: "lscpu: 2 NUMA nodes, 96 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-23,48-71", 1: "24-47,72-95"}, online: "0-95", warn: "2 thread(s) per core but not which"},
		{file: "lscpu-tree-4node.txt", summary: "lscpu: 4 NUMA nodes, 64 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-7,32-39", 1: "8-15,40-47", 2: "16-23,48-55", 3: "24-31,56-63"}, online: "0-63"},
		{file: "lscpu-fr.txt", summary: "lscpu: 2 NUMA nodes, 16 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-3,8-11", 1: "4-7,12-15"}, online: "0-15"},
		{file: "lscpu-arm64.txt", summary: "lscpu: 2 NUMA nodes, 8 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-3", 1: "4-7"}, online: "0-7", warn: "clusters are not sockets"},
		{file: "lscpu-e-right.txt", summary: "lscpu -e: 2 NUMA nodes, 7 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0,2,4,6", 1: "1,3,5"}, perCore: 2, online: "0-6", warn: "logical indices",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 0, 0}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 1, 1}, {6, 2, 0, 0}}},
		{file: "lscpu-e-left-fr.txt", summary: "lscpu -e: 1 NUMA node, 4 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-3"}, perCore: 2, online: "0-3", cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 0, 0, 0}, {3, 1, 0, 0}}},
		{file: "lscpu-p.txt", summary: "lscpu -p: 2 NUMA nodes, 8 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7", warn: "logical indices",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "sysfs-grep.txt", summary: "sysfs listing: 2 NUMA nodes, 8 CPUs",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7", distance: []uint64{10, 20}, memory: 65659904 * 1024, warn: "numa_node -1",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "sysfs-grep-relative.txt", summary: "sysfs listing: 2 NUMA nodes, 8 CPUs, no core layout, no exact memory, no distances",
			nodes: map[int]string{0: "0-3", 1: "4-7"}, online: "0-7", warn: "no thread_siblings_list"},
		{file: "kubelet-machine-line.txt", summary: "kubelet Machine: line: 2 NUMA nodes, 8 CPUs",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7", distance: []uint64{10, 21}, memory: 64 << 30,
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "kubelet-detected-v.txt", summary: "kubelet Detected CPU topology line: 2 NUMA nodes, 8 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "kubelet-detected-1.18.txt", summary: "kubelet Detected CPU topology line: 2 NUMA nodes, 8 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "kubelet-detected-json.txt", summary: "kubelet Detected CPU topology line: 2 NUMA nodes, 8 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 1, 1}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 1, 1}, {7, 3, 1, 1}}},
		{file: "lstopo-2x-snc.txt", summary: "lstopo: 2 NUMA nodes, 8 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0-1,4-5", 1: "2-3,6-7"}, perCore: 2, online: "0-7", warn: "logical L# indices",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 0, 1}, {3, 3, 0, 1}, {4, 0, 0, 0}, {5, 1, 0, 0}, {6, 2, 0, 1}, {7, 3, 0, 1}}},
		{file: "lstopo-1x.txt", summary: "lstopo: 2 NUMA nodes, 4 CPUs, no exact memory, no distances",
			nodes: map[int]string{0: "0,2", 1: "1,3"}, perCore: 1, online: "0-3",
			cpus: []CPU{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 0, 0}, {3, 3, 1, 1}}},
		{file: "nrt-v1alpha2.yaml", summary: "NodeResourceTopology: 2 NUMA nodes, 96 CPUs counted, no CPU ids",
			nodes: map[int]string{0: "", 1: ""}, online: "", distance: []uint64{10, 21}, memory: 64 << 30, warn: "names none"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := ParseMachine(readFixture(t, tc.file))
			require.NoError(t, err)
			assert.Equal(t, tc.summary, m.Summary())
			got := map[int]string{}
			for _, n := range m.Nodes {
				got[n.ID] = m.NodeCPUs(n.ID).String()
			}
			assert.Empty(t, cmp.Diff(tc.nodes, got), "node CPUs")
			assert.Equal(t, tc.perCore, m.CPUsPerCore())
			assert.Equal(t, tc.online, m.OnlineCPUs.String())
			if tc.cpus != nil {
				assert.Empty(t, cmp.Diff(tc.cpus, m.CPUs))
			}
			assert.Equal(t, tc.distance, m.Nodes[0].Distances)
			assert.Equal(t, tc.memory, m.Nodes[0].Memory)
			if tc.warn != "" {
				assert.Contains(t, strings.Join(m.Warnings, "\n"), tc.warn)
			}
			// What is unknown is a placeholder, never a guess.
			for _, c := range m.CPUs {
				if m.CoresUnknown {
					assert.Equal(t, -1, c.Core, "CPU %d", c.ID)
				}
				if m.SocketsUnknown {
					assert.Equal(t, -1, c.Socket, "CPU %d", c.ID)
				}
			}
			if m.MemoryUnknown && tc.memory == 0 {
				assert.Zero(t, m.Nodes[0].Memory)
			}
			require.NoError(t, m.check())
		})
	}
}

// TestParseMachineNRT reads NodeResourceTopology as JSON, as a list, and
// refuses one without Node zones; CPU hints cannot come from counts.
func TestParseMachineNRT(t *testing.T) {
	m, err := ParseMachine([]byte(`{"apiVersion":"topology.node.k8s.io/v1alpha1","kind":"NodeResourceTopologyList","items":[
	 {"kind":"NodeResourceTopology","metadata":{"name":"a"},"topologyPolicies":["SingleNUMANodeContainerLevel"],"zones":[
	  {"name":"node-0","type":"Node","resources":[{"name":"cpu","capacity":"8"}]},
	  {"name":"node-1","type":"Node","resources":[{"name":"cpu","capacity":8}]},
	  {"name":"socket-0","type":"Socket"}]},
	 {"kind":"NodeResourceTopology","metadata":{"name":"b"},"zones":[]}]}`))
	require.NoError(t, err)
	assert.Equal(t, "NodeResourceTopology: 2 NUMA nodes, 16 CPUs counted, no CPU ids, no exact memory, no distances", m.Summary())
	assert.Equal(t, map[int]int{0: 8, 1: 8}, m.CPUCounts)
	assert.True(t, m.CPUsUnknown)
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "only the first (a)")
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "memory manager not Static")
	_, err = NewCPUProvider(m, nil, m.OnlineCPUs, FeatureGates{})
	require.Error(t, err) // no state
	for in, want := range map[string]string{
		`{"kind":"NodeResourceTopology","zones":[]}`:                                                              "not a NodeResourceTopology: no zones[] of type Node",
		`{"kind":"NodeResourceTopology","zones":[{"name":"numa0","type":"Node"}]}`:                                `/zones/0/name: "numa0"`,
		"kind: NodeResourceTopology\nzones:\n- {name: node-0, type: Node, resources: [{name: cpu, capacity: x}]}": "/zones/0/resources/0/capacity",
	} {
		_, err := ParseMachine([]byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

// TestParseMachineRefuses names what the text looked like and what to run.
func TestParseMachineRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"describe node":       {string(readFixture(t, "describe-node.txt")), []string{"no NUMA topology found: expected numactl, lscpu, sysfs, lstopo or cAdvisor machine info", "kubectl describe node", "numactl -H"}},
		"prose":               {"the node has two sockets\n", []string{"no NUMA topology found", "run `numactl -H` or `lscpu`"}},
		"empty":               {"  \n", []string{"no NUMA topology found", "empty"}},
		"lscpu no NUMA":       {"Architecture: x86_64\nThread(s) per core: 2\n", []string{"lscpu output without NUMA node lines"}},
		"cut JSON":            {`{"topology":[{"node_id":0`, []string{"not a cAdvisor machine-info JSON document"}},
		"cut Machine":         {`I0305 manager.go:217] Machine: {Timestamp:2025-03-05 09:14:01 +0000 UTC NumCores:8 MemoryCapacity:1`, []string{"cut before Topology"}},
		"numactl cut":         {"available: 2 nodes (0-1)\nnode 0 cpus: 0 2 4 ... 30\n", []string{"line 2: node 0 cpus: the list is cut"}},
		"numactl huge":        {"node 0 cpus: 0-400000\n", []string{"line 1: node 0 cpus", "CPU id 400000"}},
		"numactl id":          {"node 99999 cpus: 0\n", []string{"NUMA node ids are 0-1023"}},
		"node over 63":        {"node 64 cpus: 0\n", []string{"NUMA node 64: IDs are 0-63"}},
		"CPU twice":           {"node 0 cpus: 0-3\nnode 1 cpus: 3-7\n", []string{"CPU 3 is on NUMA node 0 and on node 1"}},
		"lscpu -e rows":       {"CPU NODE SOCKET CORE\n", []string{"lscpu -e header without CPU rows"}},
		"lscpu -e big":        {"CPU NODE SOCKET CORE\n70000 0 0 0\n", []string{"CPU 70000: ids are 0-65535"}},
		"detected none":       {`"Detected CPU topology" topology=&{NumCPUs:0}`, []string{"no CPUDetails"}},
		"lstopo no node":      {"Machine (16GB)\n  NUMANode L#0 (16GB)\n  Package L#0\n    PU L#0 (P#70000)\n", []string{"no CPU id in 0-65535"}},
		"lstopo two memories": {"Machine\n  Package L#0\n    NUMANode L#0 (P#0 1GB)\n    NUMANode L#1 (P#1 1GB)\n    Core L#0\n      PU L#0 (P#0)\n", []string{"under 2 NUMA nodes at once"}},
		"machine empty core":  {`Machine: {NumCores:2 Topology:[{Id:0 Memory:1 Cores:[{Id:0 Threads:[] SocketID:0}]}]}`, []string{"Cores[0].Threads is empty"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseMachine([]byte(tc.in))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestParseMachinePasteNoise reads pastes with fences, quote prefixes, CRLF,
// ANSI colours and prompts as the clean text.
func TestParseMachinePasteNoise(t *testing.T) {
	clean, err := ParseMachine(readFixture(t, "numactl-2node-interleaved.txt"))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("> ```\r\n> [root@wrk-numa-07 ~]# numactl --hardware\r\n")
	for _, l := range strings.Split(strings.TrimSpace(string(readFixture(t, "numactl-2node-interleaved.txt"))), "\n") {
		b.WriteString("> \x1b[32m" + l + "\x1b[0m\r\n")
	}
	b.WriteString("> ```\r\n")
	m, err := ParseMachine([]byte(b.String()))
	require.NoError(t, err)
	assert.Equal(t, clean.OnlineCPUs.String(), m.OnlineCPUs.String())
	clean.OnlineCPUs, m.OnlineCPUs = cpuset.New(), cpuset.New()
	assert.Empty(t, cmp.Diff(clean, m, cmpopts.IgnoreUnexported(cpuset.CPUSet{})))
}

// TestParseMachineInfoJSON keeps cAdvisor's JSON as before, in fences too.
func TestParseMachineInfoJSON(t *testing.T) {
	js := `{"num_cores":4,"topology":[{"node_id":0,"memory":1024,"cores":[{"core_id":0,"thread_ids":[0,2],"socket_id":0}]},{"node_id":1,"memory":1024,"cores":[{"core_id":1,"thread_ids":[1,3],"socket_id":1}]}]}`
	m, err := ParseMachine([]byte("```json\n" + js + "\n```\n"))
	require.NoError(t, err)
	assert.Equal(t, "machine-info: 2 NUMA nodes, 4 CPUs, no distances", m.Summary())
	assert.Equal(t, 2, m.CPUsPerCore())
	_, err = ParseMachine([]byte(`{"num_cores":0,"topology":[]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not detect number of cpus")
}

func FuzzParseMachine(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			m, err := ParseMachine(data)
			if err != nil {
				return
			}
			if err := m.check(); err != nil {
				t.Fatalf("accepted machine fails its check: %v", err)
			}
			if m.AllCPUs().Size() != len(m.CPUs) {
				t.Fatalf("%d CPUs, %d distinct", len(m.CPUs), m.AllCPUs().Size())
			}
			for _, c := range m.CPUs {
				if c.ID < 0 || c.ID > 65535 || (m.CoresUnknown && c.Core != -1) || (m.SocketsUnknown && c.Socket != -1) {
					t.Fatalf("CPU %+v on a machine with unknown cores %v, sockets %v", c, m.CoresUnknown, m.SocketsUnknown)
				}
			}
			_ = m.Summary()
		})
	})
}

// TestParseMachineOldCadvisorLine reads a Machine: line from a cAdvisor
// without Core.SocketID (Topology grouped by socket), saying what it assumes,
// and one cut at terminal width, keeping the nodes before the cut.
func TestParseMachineOldCadvisorLine(t *testing.T) {
	m, err := ParseMachine([]byte(`I0101 manager.go:204] Machine: {NumCores:4 CpuFrequency:2400000 MemoryCapacity:8 Topology:[{Id:0 Memory:4294967296 Cores:[{Id:0 Threads:[0 2] Caches:[]}] Caches:[]} {Id:1 Memory:4294967296 Cores:[{Id:0 Threads:[1 3] Caches:[]}] Caches:[]}] CloudProvider:Unknown}`))
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]CPU{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 0, 0, 0}, {3, 1, 1, 1}}, m.CPUs))
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "without SocketID")

	line := string(readFixture(t, "kubelet-machine-line.txt"))
	cut := line[:strings.Index(line, "{Id:1 Memory")] + ">"
	m, err = ParseMachine([]byte(cut))
	require.NoError(t, err)
	assert.Equal(t, "kubelet Machine: line: 1 NUMA node, 4 CPUs", m.Summary())
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "the Machine: line is cut")
}

// TestParseMachineWrapped reads CPU lists that mail or chat wrapped onto
// the next line, with a warning, rather than dropping the rest silently.
func TestParseMachineWrapped(t *testing.T) {
	m, err := ParseMachine([]byte("available: 2 nodes (0-1)\nnode 0 cpus: 0 2 4 6\n8 10 12 14\nnode 0 size: 100 MB\nnode 1 cpus: 1 3 5 7 9 11 13 15\n"))
	require.NoError(t, err)
	assert.Equal(t, "0,2,4,6,8,10,12,14", m.NodeCPUs(0).String())
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "continuation of node 0's CPU list")

	m, err = ParseMachine([]byte("NUMA node(s): 2\nNUMA node0 CPU(s): 0-23,48-71,\n  96-119\nNUMA node1 CPU(s): 24-47,72-95\n"))
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(m.Warnings, "\n"), "NUMA node(s) but")
	assert.Equal(t, "0-23,48-71,96-119", m.NodeCPUs(0).String())
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "continues on the next line")
}

// TestParseMachineLscpuMissingNodes warns when lscpu counts more nodes than
// the paste lists.
func TestParseMachineLscpuMissingNodes(t *testing.T) {
	m, err := ParseMachine([]byte("NUMA node(s):        4\nNUMA node0 CPU(s):   0-7\nNUMA node1 CPU(s):   8-15\n"))
	require.NoError(t, err)
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "lscpu says 4 NUMA node(s) but lists the CPUs of 2")
}

// TestParseMachineCatSession reads a terminal session of `cat` commands on
// sysfs files as the listing grep would print.
func TestParseMachineCatSession(t *testing.T) {
	m, err := ParseMachine([]byte("```\n$ cat /sys/devices/system/node/node0/cpulist\n0-3\n$ cat /sys/devices/system/node/node1/cpulist\n4-7\n[root@n1 ~]# cat /sys/devices/system/node/node0/distance\n10 20\n```\n"))
	require.NoError(t, err)
	assert.Equal(t, "sysfs listing: 2 NUMA nodes, 8 CPUs, no core layout, no exact memory, no distances", m.Summary())
	assert.Equal(t, "4-7", m.NodeCPUs(1).String())
	assert.Equal(t, []uint64{10, 20}, m.Nodes[0].Distances)
}

// TestParseMachineNumactlWithLscpuE takes numactl's distances and lscpu -e's
// core layout from one paste, and ignores an lscpu -e of another machine.
func TestParseMachineNumactlWithLscpuE(t *testing.T) {
	numactl := "available: 2 nodes (0-1)\nnode 0 cpus: 0 2 4 6\nnode 1 cpus: 1 3 5 7\nnode distances:\nnode 0 1\n 0: 10 21\n 1: 21 10\n\n"
	m, err := ParseMachine([]byte(numactl + "$ lscpu -e\n" + string(readFixture(t, "lscpu-e-right.txt"))))
	require.NoError(t, err)
	// lscpu-e-right has CPU 7 offline: the CPU sets differ, lscpu -e is not used.
	assert.True(t, m.CoresUnknown)
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "places other CPUs")

	lscpu := "CPU NODE SOCKET CORE ONLINE\n0 0 0 0 yes\n1 1 1 2 yes\n2 0 0 1 yes\n3 1 1 3 yes\n4 0 0 0 yes\n5 1 1 2 yes\n6 0 0 1 yes\n7 1 1 3 yes\n"
	m, err = ParseMachine([]byte(numactl + lscpu))
	require.NoError(t, err)
	assert.Equal(t, "numactl -H + lscpu -e: 2 NUMA nodes, 8 CPUs, no exact memory", m.Summary())
	assert.Equal(t, 2, m.CPUsPerCore())
	assert.Equal(t, []uint64{21, 10}, m.Nodes[1].Distances)
	assert.Empty(t, cmp.Diff([]CPU{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 0, 0}, {3, 3, 1, 1}, {4, 0, 0, 0}, {5, 1, 1, 1}, {6, 2, 0, 0}, {7, 3, 1, 1}}, m.CPUs))
}

// TestParseMachineJSONLog reads the Detected CPU topology line of a
// --logging-format=json kubelet, alone and among other JSON lines.
func TestParseMachineJSONLog(t *testing.T) {
	line := `{"ts":1741165442100.1,"caller":"cpumanager/cpu_manager.go:195","msg":"Detected CPU topology","v":0,"topology":{"NumCPUs":2,"NumCores":2,"NumSockets":1,"NumNUMANodes":1,"CPUDetails":{"0":{"NUMANodeID":0,"SocketID":0,"CoreID":0},"1":{"NUMANodeID":0,"SocketID":0,"CoreID":1}}}}`
	for _, in := range []string{line, `{"ts":1,"msg":"Starting"}` + "\n" + line + "\n"} {
		m, err := ParseMachine([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, "kubelet Detected CPU topology line: 1 NUMA node, 2 CPUs, no exact memory, no distances", m.Summary())
		assert.Equal(t, 1, m.CPUsPerCore())
	}
}
