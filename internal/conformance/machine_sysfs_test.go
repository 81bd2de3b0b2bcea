package conformance

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	cadvisorapi "github.com/google/cadvisor/lib/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// sysfsMachine is a random machine written as the kernel shows it in sysfs
// (node*/cpulist, node*/distance, cpu*/topology/{core_id,
// physical_package_id, thread_siblings_list}) and as cAdvisor reports the
// same machine to the kubelet (a core per core_id and package, its threads,
// its socket; the nodes with their distances).
func sysfsMachine(r *rand.Rand) (fstest.MapFS, *cadvisorapi.MachineInfo) {
	nodes := 1 + r.IntN(4)
	sockets := 1 + r.IntN(nodes)
	threads := 1 + r.IntN(2)
	cores := 1 + r.IntN(6)
	ids := r.Perm(nodes * cores * threads)
	fsys := fstest.MapFS{}
	mi := &cadvisorapi.MachineInfo{NumSockets: sockets}
	next := 0
	for n := range nodes {
		node := cadvisorapi.Node{Id: n}
		var row []string
		for m := range nodes {
			d := uint64(21)
			if m == n {
				d = 10
			}
			node.Distances = append(node.Distances, d)
			row = append(row, fmt.Sprint(d))
		}
		fsys[fmt.Sprintf("devices/system/node/node%d/distance", n)] = &fstest.MapFile{Data: []byte(strings.Join(row, " ") + "\n")}
		var cpus []int
		socket := n * sockets / nodes
		for c := range cores {
			core := cadvisorapi.Core{Id: n*cores + c, SocketID: socket}
			for range threads {
				core.Threads = append(core.Threads, ids[next])
				next++
			}
			sib := cpuset.New(core.Threads...).String()
			for _, id := range core.Threads {
				dir := fmt.Sprintf("devices/system/cpu/cpu%d/topology/", id)
				fsys[dir+"thread_siblings_list"] = &fstest.MapFile{Data: []byte(sib + "\n")}
				fsys[dir+"core_id"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", core.Id))}
				fsys[dir+"physical_package_id"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", socket))}
			}
			cpus = append(cpus, core.Threads...)
			node.Cores = append(node.Cores, core)
		}
		fsys[fmt.Sprintf("devices/system/node/node%d/cpulist", n)] = &fstest.MapFile{Data: []byte(cpuset.New(cpus...).String() + "\n")}
		fsys[fmt.Sprintf("devices/system/node/node%d/meminfo", n)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("Node %d MemTotal:       %d kB\n", n, 1<<20))}
		mi.Topology = append(mi.Topology, node)
	}
	mi.NumCores = next
	return fsys, mi
}

// listing prints the tree as `grep . <files>` does: path:value per line.
func listing(fsys fstest.MapFS) []byte {
	var names []string
	for p := range fsys {
		names = append(names, p)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, p := range names {
		for _, l := range strings.Split(strings.TrimSpace(string(fsys[p].Data)), "\n") {
			fmt.Fprintf(&b, "/sys/%s:%s\n", p, l)
		}
	}
	return []byte(b.String())
}

// lscpuE prints the machine as `lscpu -e` does: one row per CPU, with
// lscpu's logical core index (unique on the machine).
func lscpuE(mi *cadvisorapi.MachineInfo) []byte {
	type row struct{ cpu, node, socket, core int }
	var rows []row
	logical := 0
	for _, n := range mi.Topology {
		for _, c := range n.Cores {
			for _, t := range c.Threads {
				rows = append(rows, row{t, n.Id, c.SocketID, logical})
			}
			logical++
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].cpu < rows[j].cpu })
	var b strings.Builder
	b.WriteString("CPU NODE SOCKET CORE L1d:L1i:L2:L3 ONLINE    MAXMHZ   MINMHZ\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%3d %4d %6d %4d %d:%d:%d:%d %10s 3500.0000 800.0000\n", r.cpu, r.node, r.socket, r.core, r.core, r.core, r.core, r.socket, "yes")
	}
	return []byte(b.String())
}

// TestSysfsAgainstKubeletDiscover reads random sysfs trees, as a directory
// copy and as a pasted grep listing, and the same machines as lscpu -e, and compares every CPU's core, socket
// and NUMA node (and the nodes' distances) with what the kubelet's CPU
// manager topology.Discover and Topology Manager NewNUMAInfo make of the
// machine-info cAdvisor reports for the same machine.
func TestSysfsAgainstKubeletDiscover(t *testing.T) {
	r := rand.New(rand.NewPCG(13, uint64(randomCount())))
	const n = 500
	for i := range n {
		fsys, mi := sysfsMachine(r)
		want, err := kubeletMachine(mi)
		require.NoError(t, err)
		fromTree, err := topomgr.ReadMachine(fsys, "snap")
		require.NoError(t, err)
		fromPaste, err := topomgr.ParseMachine(listing(fsys))
		require.NoError(t, err)
		fromLscpu, err := topomgr.ParseMachine(lscpuE(mi))
		require.NoError(t, err)
		for name, m := range map[string]*topomgr.Machine{"tree": fromTree, "listing": fromPaste, "lscpu -e": fromLscpu} {
			assert.False(t, m.CoresUnknown || m.SocketsUnknown, "%s %d: %v", name, i, m.Warnings)
			assert.Equal(t, name == "lscpu -e", m.MemoryUnknown, "%s %d: %v", name, i, m.Warnings)
			if name == "lscpu -e" { // lscpu gives no distances
				for _, n := range mi.Topology {
					m.Nodes[n.Id].Distances = n.Distances
				}
			}
			if d := cmp.Diff(want, numascopeMachine(m), cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("%s of machine %d differs (-kubelet +numascope):\n%s", name, i, d)
			}
		}
	}
	t.Logf("%d random sysfs trees read as the kubelet reads them", n)
}
