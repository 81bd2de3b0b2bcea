package topomgr

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sysfsTree is a two-node machine with two threads a core.
func sysfsTree() fstest.MapFS {
	return fstest.MapFS{
		"devices/system/node/node0/cpulist":                                      {Data: []byte("0-1,4-5\n")},
		"devices/system/node/node0/distance":                                     {Data: []byte("10 20\n")},
		"devices/system/node/node0/meminfo":                                      {Data: []byte("Node 0 MemTotal:       1024 kB\n")},
		"devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages":      {Data: []byte("3\n")},
		"devices/system/node/node1/cpulist":                                      {Data: []byte("2-3,6-7\n")},
		"devices/system/node/node1/distance":                                     {Data: []byte("20 10\n")},
		"devices/system/node/has_cpu":                                            {Data: []byte("0-1\n")},
		"devices/system/cpu/online":                                              {Data: []byte("0-7\n")},
		"devices/system/cpu/cpu0/topology/thread_siblings_list":                  {Data: []byte("0,4\n")},
		"devices/system/cpu/cpu1/topology/thread_siblings_list":                  {Data: []byte("1,5\n")},
		"devices/system/cpu/cpu2/topology/thread_siblings_list":                  {Data: []byte("2,6\n")},
		"devices/system/cpu/cpu2/topology/physical_package_id":                   {Data: []byte("1\n")},
		"devices/system/cpu/cpu3/topology/thread_siblings_list":                  {Data: []byte("3,7\n")},
		"devices/system/cpu/cpu3/topology/physical_package_id":                   {Data: []byte("1\n")},
		"devices/system/cpu/cpu6/topology/physical_package_id":                   {Data: []byte("1\n")},
		"devices/system/cpu/cpu7/topology/physical_package_id":                   {Data: []byte("1\n")},
		"devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages":   {Data: []byte("0\n")},
		"devices/system/node/node0/hugepages/hugepages-1048576kB/free_hugepages": {Data: []byte("0\n")},
	}
}

func TestReadMachineSysfs(t *testing.T) {
	m, err := ReadMachine(sysfsTree(), "snap")
	require.NoError(t, err)
	want := &Machine{
		Nodes: []NUMANode{
			{ID: 0, Distances: []uint64{10, 20}, Memory: 1 << 20, HugePages: map[string]uint64{"hugepages-2Mi": 3 << 21, "hugepages-1Gi": 0}},
			{ID: 1, Distances: []uint64{20, 10}},
		},
		CPUs: []CPU{
			{ID: 0, Core: 0, Socket: -1, NUMA: 0}, {ID: 1, Core: 1, Socket: -1, NUMA: 0}, {ID: 2, Core: 2, Socket: -1, NUMA: 1}, {ID: 3, Core: 3, Socket: -1, NUMA: 1},
			{ID: 4, Core: 0, Socket: -1, NUMA: 0}, {ID: 5, Core: 1, Socket: -1, NUMA: 0}, {ID: 6, Core: 2, Socket: -1, NUMA: 1}, {ID: 7, Core: 3, Socket: -1, NUMA: 1},
		},
		Format: "sysfs",
		// Four CPUs have no physical_package_id and node 1 no meminfo: the
		// sockets are all unknown (never guessed as 0), node 1's memory too.
		SocketsUnknown: true,
		MemoryUnknown:  true,
		Warnings: []string{
			"no physical_package_id for CPUs 0-1,4-5: sockets are unknown",
			"no meminfo MemTotal for NUMA node(s) 1: their memory is unknown",
		},
	}
	assert.Empty(t, cmp.Diff(want, m, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "OnlineCPUs" }, cmp.Ignore())))
	assert.Equal(t, "0-7", m.OnlineCPUs.String())
	assert.Equal(t, 2, m.CPUsPerCore())
}

func TestReadMachineSysfsErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		path string
		file *fstest.MapFile
		want string
	}{
		"cpulist over the CPU id bound": {"devices/system/node/node1/cpulist", &fstest.MapFile{Data: []byte("0-400000000")}, `snap: devices/system/node/node1/cpulist: CPU id 400000000`},
		"cpulist of many CPUs":          {"devices/system/node/node1/cpulist", &fstest.MapFile{Data: []byte(strings.Repeat("0-65535,", 2) + "1")}, "more than 65536 CPUs"},
		"cpulist is a FIFO":             {"devices/system/node/node1/cpulist", &fstest.MapFile{Mode: os.ModeNamedPipe}, "snap: devices/system/node/node1/cpulist: not a regular file: it is a FIFO"},
		"meminfo is a device":           {"devices/system/node/node0/meminfo", &fstest.MapFile{Mode: os.ModeDevice | os.ModeCharDevice}, "node0/meminfo: not a regular file"},
		"distance is huge":              {"devices/system/node/node0/distance", &fstest.MapFile{Data: make([]byte, 1<<20)}, "node0/distance: input larger than its limit"},
		"distance not a number":         {"devices/system/node/node0/distance", &fstest.MapFile{Data: []byte("10 x")}, `node0/distance: "x" is not a distance`},
		"siblings over the bound":       {"devices/system/cpu/cpu0/topology/thread_siblings_list", &fstest.MapFile{Data: []byte("0-9223372036854775807")}, "thread_siblings_list: CPU id"},
		"huge page count overflows":     {"devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", &fstest.MapFile{Data: []byte("18446744073709551615")}, "overflow"},
		"CPU on two nodes":              {"devices/system/node/node1/cpulist", &fstest.MapFile{Data: []byte("0-3")}, "CPU 0 is listed twice"},
		"node id over 63":               {"devices/system/node/node64/cpulist", &fstest.MapFile{Data: []byte("9")}, "NUMA node 64: IDs are 0-63"},
	} {
		t.Run(name, func(t *testing.T) {
			tree := sysfsTree()
			tree[tc.path] = tc.file
			_, err := ReadMachine(tree, "snap")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestReadSysfsRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(dir+"/devices/system/node/node0", 0o755))
	require.NoError(t, syscall.Mkfifo(dir+"/devices/system/node/node0/cpulist", 0o600))
	_, err := ReadMachine(nil, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "devices/system/node/node0/cpulist: not a regular file: it is a FIFO")
}

// FuzzReadSysfsFS builds a sysfs tree from the input, one file a line:
// node0 cpulist, node1 cpulist, node0 distance, node0 meminfo, a huge page
// count, cpu0's siblings, cpu0's package, the online list.
func FuzzReadSysfsFS(f *testing.F) {
	f.Add([]byte("0-1,4-5\n2-3,6-7\n10 20\nNode 0 MemTotal: 1024 kB\n3\n0,4\n0\n0-7"))
	f.Add([]byte("0\n1\n10 20\n\n\n0\n-1\n0-1"))
	f.Add([]byte("0-9223372036854775807\n\n\n\n\n\n\n"))
	names := []string{"node/node0/cpulist", "node/node1/cpulist", "node/node0/distance", "node/node0/meminfo",
		"node/node0/hugepages/hugepages-2048kB/nr_hugepages", "cpu/cpu0/topology/thread_siblings_list", "cpu/cpu0/topology/physical_package_id", "cpu/online"}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			tree := fstest.MapFS{}
			for i, part := range strings.SplitN(string(data), "\n", len(names)) {
				tree["sys/devices/system/"+names[i]] = &fstest.MapFile{Data: []byte(part)}
			}
			m, err := ReadMachine(tree, "fuzz")
			if err != nil {
				return
			}
			require.NoError(t, m.check())
			assert.Equal(t, m.AllCPUs().Size(), len(m.CPUs))
		})
	})
}

// TestReadMachineNodeFolder reads a must-gather node folder (its lscpu file
// is lscpu -e) and a ghw snapshot root without sys/; a folder with neither
// keeps the sysfs error.
func TestReadMachineNodeFolder(t *testing.T) {
	lscpu, err := os.ReadFile("testdata/machine/lscpu-e-right.txt")
	require.NoError(t, err)
	m, err := ReadMachine(fstest.MapFS{"lscpu": {Data: lscpu}, "dmesg": {Data: []byte("x")}}, "nodes/wrk-1")
	require.NoError(t, err)
	assert.Equal(t, "lscpu -e", m.Format)
	m, err = ReadMachine(fstest.MapFS{"machineinfo.json": {Data: []byte(`{"num_cores":1,"topology":[{"node_id":0,"cores":[{"thread_ids":[0]}]}]}`)}}, "sysinfo")
	require.NoError(t, err)
	assert.Equal(t, "machine-info", m.Format)
	_, err = ReadMachine(fstest.MapFS{"lscpu": {Data: []byte("nothing")}}, "nodes/wrk-2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nodes/wrk-2: lscpu: no NUMA topology found")
	_, err = ReadMachine(fstest.MapFS{"dmesg": {Data: []byte("x")}}, "nodes/wrk-3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no devices/system/node directory")
	_, err = ReadMachine(fstest.MapFS{"lscpu": {Mode: os.ModeNamedPipe}}, "nodes/wrk-4")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
}
