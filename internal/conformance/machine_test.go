package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	cadvisorapi "github.com/google/cadvisor/lib/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/topology"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// machineView is what the kubelet's managers take from cAdvisor's
// machine-info: every CPU with its core (the lowest thread id of the core,
// as the CPU manager numbers cores), socket and NUMA node, and the NUMA
// nodes with their distances.
type machineView struct {
	CPUs      []topomgr.CPU
	Nodes     []int
	Distances map[int][]uint64
}

// kubeletMachine builds the view the kubelet builds: the CPU manager's
// topology.Discover and the Topology Manager's NewNUMAInfo.
func kubeletMachine(mi *cadvisorapi.MachineInfo) (*machineView, error) {
	topo, err := topology.Discover(klog.Background(), mi)
	if err != nil {
		return nil, err
	}
	info, err := topologymanager.NewNUMAInfo(mi.Topology, topologymanager.PolicyOptions{})
	if err != nil {
		return nil, err
	}
	v := &machineView{Nodes: info.Nodes, Distances: map[int][]uint64{}}
	for id, c := range topo.CPUDetails {
		v.CPUs = append(v.CPUs, topomgr.CPU{ID: id, Core: c.CoreID, Socket: c.SocketID, NUMA: c.NUMANodeID})
	}
	for _, n := range mi.Topology {
		v.Distances[n.Id] = n.Distances
	}
	sort.Slice(v.CPUs, func(i, j int) bool { return v.CPUs[i].ID < v.CPUs[j].ID })
	// numascope keeps the nodes in id order; the kubelet keeps cAdvisor's
	// (which lists them by id too). The Topology Manager's answers do not
	// depend on it: hints are bitmasks, and the merge tests compare answers.
	sort.Ints(v.Nodes)
	return v, nil
}

func numascopeMachine(m *topomgr.Machine) *machineView {
	v := &machineView{Distances: map[int][]uint64{}}
	v.CPUs = append(v.CPUs, m.CPUs...)
	sort.Slice(v.CPUs, func(i, j int) bool { return v.CPUs[i].ID < v.CPUs[j].ID })
	for _, n := range m.Nodes {
		v.Nodes = append(v.Nodes, n.ID)
		v.Distances[n.ID] = n.Distances
	}
	return v
}

// randomMachineInfo builds a machine with 1-4 NUMA nodes, sockets, cores of
// one to four threads, ids in any order, sometimes sub-NUMA clustering (two
// nodes on one socket), sometimes no distances.
func randomMachineInfo(r *rand.Rand) *cadvisorapi.MachineInfo {
	nodes := 1 + r.IntN(4)
	sockets := 1 + r.IntN(nodes)
	threads := 1 + r.IntN(2)
	if r.IntN(8) == 0 {
		threads = 4
	}
	cores := 1 + r.IntN(6)
	ids := r.Perm(nodes * cores * threads)
	mi := &cadvisorapi.MachineInfo{NumSockets: sockets}
	next := 0
	for n := range nodes {
		node := cadvisorapi.Node{Id: n, Memory: uint64(1+r.IntN(64)) << 30}
		if r.IntN(4) != 0 {
			for m := range nodes {
				d := uint64(21)
				if m == n {
					d = 10
				}
				node.Distances = append(node.Distances, d)
			}
		}
		for c := range cores {
			core := cadvisorapi.Core{Id: c, SocketID: n * sockets / nodes}
			for range threads {
				core.Threads = append(core.Threads, ids[next])
				next++
			}
			node.Cores = append(node.Cores, core)
		}
		mi.Topology = append(mi.Topology, node)
	}
	mi.NumCores = next
	if r.IntN(3) == 0 {
		r.Shuffle(len(mi.Topology), func(i, j int) { mi.Topology[i], mi.Topology[j] = mi.Topology[j], mi.Topology[i] })
	}
	return mi
}

// compareMachine returns how numascope's reading of the machine-info JSON
// differs from the kubelet's, or "".
func compareMachine(mi *cadvisorapi.MachineInfo) (string, error) {
	data, err := json.Marshal(mi)
	if err != nil {
		return "", err
	}
	want, wantErr := kubeletMachine(mi)
	got, gotErr := topomgr.ParseMachine(data)
	switch {
	case wantErr != nil && gotErr != nil:
		return "", nil
	case wantErr != nil:
		return fmt.Sprintf("numascope reads a machine the kubelet refuses (%v): %s", wantErr, data), nil
	case gotErr != nil:
		return fmt.Sprintf("numascope refuses a machine the kubelet reads (%v): %s", gotErr, data), nil
	}
	if d := cmp.Diff(want, numascopeMachine(got), cmpopts.EquateEmpty()); d != "" {
		return fmt.Sprintf("machines differ (-kubelet +numascope):\n%s\nin: %s", d, data), nil
	}
	return "", nil
}

func TestMachineInfoAgainstKubelet(t *testing.T) {
	twoNodes := func() *cadvisorapi.MachineInfo {
		return &cadvisorapi.MachineInfo{NumCores: 4, NumSockets: 1, Topology: []cadvisorapi.Node{
			{Id: 0, Distances: []uint64{10, 20}, Cores: []cadvisorapi.Core{{Id: 0, Threads: []int{0, 2}}}},
			{Id: 1, Distances: []uint64{20, 10}, Cores: []cadvisorapi.Core{{Id: 0, Threads: []int{3, 1}}}},
		}}
	}
	tests := []struct {
		name string
		edit func(*cadvisorapi.MachineInfo)
	}{
		{"two nodes", func(*cadvisorapi.MachineInfo) {}},
		{"core ids repeat across nodes", func(mi *cadvisorapi.MachineInfo) { mi.Topology[1].Cores[0].Id = 0 }},
		{"no cores counted", func(mi *cadvisorapi.MachineInfo) { mi.NumCores = 0 }},
		{"a thread twice in a core", func(mi *cadvisorapi.MachineInfo) { mi.Topology[0].Cores[0].Threads = []int{0, 0} }},
		{"a core without threads", func(mi *cadvisorapi.MachineInfo) { mi.Topology[0].Cores[0].Threads = nil }},
		{"nodes out of order", func(mi *cadvisorapi.MachineInfo) { mi.Topology[0], mi.Topology[1] = mi.Topology[1], mi.Topology[0] }},
		{"no distances", func(mi *cadvisorapi.MachineInfo) { mi.Topology[0].Distances, mi.Topology[1].Distances = nil, nil }},
		{"a node without CPUs", func(mi *cadvisorapi.MachineInfo) { mi.Topology[1].Cores = nil; mi.NumCores = 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mi := twoNodes()
			tt.edit(mi)
			d, err := compareMachine(mi)
			require.NoError(t, err)
			assert.Empty(t, d)
		})
	}
}

func TestMachineInfoRandomAgainstKubelet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, uint64(randomCount())))
	const n = 2000
	disagree := 0
	for range n {
		d, err := compareMachine(randomMachineInfo(r))
		require.NoError(t, err)
		if d != "" {
			disagree++
			if disagree <= 5 {
				t.Error(d)
			}
		}
	}
	t.Logf("%d random machines, %d disagreements with the kubelet", n, disagree)
}
