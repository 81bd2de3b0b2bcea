package evidence

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMachine(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "troubleshooting-page", "machine-info.json"))
	require.NoError(t, err)
	m, err := ParseMachine("mi.json", b)
	require.NoError(t, err)
	require.Len(t, m.Nodes, 2)
	assert.Equal(t, "24-47", m.NodeCPUs(1).String())
	assert.Equal(t, uint64(134987354112), m.Nodes[0].Memory)
	assert.Equal(t, "0-47", m.OnlineCPUs.String())
	assert.Equal(t, 1, m.CPUsPerCore())
	assert.Equal(t, 1, m.NUMANodeOfCPU(30))
	assert.Equal(t, -1, m.NUMANodeOfCPU(99))
	assert.Contains(t, m.Nodes[0].HugePages, "hugepages-1Gi")
	assert.Equal(t, "mi.json", m.Source)
	assert.Equal(t, "machine-info", m.Format)
	for in, want := range map[string]string{`{}`: "/topology", `{"topology":[{}]}`: "/topology/0/node_id", `[`: "machine-info"} {
		_, err := ParseMachine("mi.json", []byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
		assert.Contains(t, err.Error(), "mi.json", in)
	}
}

// TestParseMachineFormats reads pasted topologies and names the file in
// errors; a NodeResourceTopology (CPU counts only) is refused, since the
// findings count free CPUs from each node's CPU list.
func TestParseMachineFormats(t *testing.T) {
	m, err := ParseMachine("topology.txt", []byte("available: 2 nodes (0-1)\nnode 0 cpus: 0 2\nnode 1 cpus: 1 3\nnode distances:\nnode 0 1\n 0: 10 21\n 1: 21 10\n"))
	require.NoError(t, err)
	assert.Equal(t, "topology.txt", m.Source)
	assert.Equal(t, "numactl -H: 2 NUMA nodes, 4 CPUs, no core layout, no exact memory", m.Summary())
	for in, want := range map[string]string{
		"kind: NodeResourceTopology\nzones:\n- {name: node-0, type: Node, resources: [{name: cpu, capacity: \"4\"}]}\n": "topology.txt: NodeResourceTopology: 1 NUMA node, 4 CPUs counted, no CPU ids",
		"Capacity:\n  cpu: 4\nAllocatable:\n  cpu: 4\n":                                                                 "topology.txt: no NUMA topology found",
	} {
		_, err := ParseMachine("topology.txt", []byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want)
	}
}

func TestParseSysfs(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/devices/system/node/node0/cpulist":                                    {Data: []byte("0-3,8-11\n")},
		"sys/devices/system/node/node0/meminfo":                                    {Data: []byte("Node 0 MemTotal:       65536000 kB\nNode 0 MemFree: 1 kB\n")},
		"sys/devices/system/node/node0/distance":                                   {Data: []byte("10 21\n")},
		"sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages": {Data: []byte("4\n")},
		"sys/devices/system/node/node1/cpulist":                                    {Data: []byte("4-7,12-15\n")},
		"sys/devices/system/node/node1/meminfo":                                    {Data: []byte("Node 1 MemTotal:       65536000 kB\n")},
		"sys/devices/system/node/possible":                                         {Data: []byte("0-1\n")},
		"sys/devices/system/cpu/online":                                            {Data: []byte("0-13\n")},
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list":                {Data: []byte("0,8\n")},
	}
	m, err := ParseSysfs("snap", fsys)
	require.NoError(t, err)
	require.Len(t, m.Nodes, 2)
	assert.Equal(t, "0-3,8-11", m.NodeCPUs(0).String())
	assert.Equal(t, uint64(65536000*1024), m.Nodes[0].Memory)
	assert.Equal(t, "0-13", m.OnlineCPUs.String())
	// Only cpu0 has a siblings list: the core layout is unknown, not guessed.
	assert.True(t, m.CoresUnknown)
	assert.Equal(t, 0, m.CPUsPerCore())
	assert.Equal(t, uint64(4<<30), m.Nodes[0].HugePages["hugepages-1Gi"])
	assert.Equal(t, []uint64{10, 21}, m.Nodes[0].Distances)
	assert.Equal(t, "sysfs", m.Format)

	for name, tc := range map[string]struct {
		fsys fstest.MapFS
		want string
	}{
		"empty":     {fstest.MapFS{}, "devices/system/node"},
		"bad list":  {fstest.MapFS{"node/node0/cpulist": {Data: []byte("x")}}, "node/node0/cpulist"},
		"huge list": {fstest.MapFS{"node/node0/cpulist": {Data: []byte("0-400000000")}}, `node/node0/cpulist: CPU id 400000000 in "0-400000000": above the largest CPU id`},
		"fifo":      {fstest.MapFS{"node/node0/cpulist": {Mode: os.ModeNamedPipe}}, "node/node0/cpulist: not a regular file"},
		"too big":   {fstest.MapFS{"node/node0/cpulist": {Data: make([]byte, 1<<20)}}, "node/node0/cpulist: input larger than its limit"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSysfs(name, tc.fsys)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), name+":")
		})
	}
}

func FuzzParseMachine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "troubleshooting-page", "machine-info.json"))
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte(`{"topology":[{"node_id":0,"cores":[{"thread_ids":[0,1]}],"hugepages":[{"page_size":2048,"num_pages":3}]}]}`))
	f.Add([]byte(`{"topology":[{"node_id":0,"cores":[{"thread_ids":[9223372036854775807]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			m, err := ParseMachine("fuzz", data)
			if err != nil {
				return
			}
			assert.Equal(t, m.AllCPUs().Size(), len(m.CPUs))
		})
	})
}
