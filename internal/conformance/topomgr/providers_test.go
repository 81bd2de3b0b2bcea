package topomgr

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/topology"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/utils/cpuset"

	cadvisorapi "github.com/google/cadvisor/lib/model"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/statefile"
	ns "github.com/numascope/numascope/topomgr"
)

// canon renders a provider answer so that nil and empty maps and lists
// stay distinct and map order does not matter.
func canon(m map[string][]ns.TopologyHint) string {
	if m == nil {
		return "nil"
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := "{"
	for _, k := range keys {
		if m[k] == nil {
			s += k + ":nil "
			continue
		}
		s += fmt.Sprintf("%s:%v ", k, m[k])
	}
	return s + "}"
}

func canonK(m map[string][]tm.TopologyHint) string {
	if m == nil {
		return "nil"
	}
	out := map[string][]ns.TopologyHint{}
	for k, l := range m {
		if l == nil {
			out[k] = nil
			continue
		}
		out[k] = []ns.TopologyHint{}
		for _, h := range l {
			out[k] = append(out[k], nsHint(h))
		}
	}
	return canon(out)
}

// randomPod draws a pod with init, sidecar and app containers whose CPU,
// memory and hugepages requests make it Guaranteed or not.
func randomPod(r *rand.Rand, uid string) (*ns.Pod, *v1.Pod) {
	np := &ns.Pod{Name: "p", Namespace: "d", UID: uid}
	kp := &v1.Pod{}
	kp.Name, kp.Namespace, kp.UID = "p", "d", types.UID(uid)
	guaranteed := r.IntN(4) != 0
	mk := func(name string) (ns.Container, v1.Container) {
		res := map[string]string{}
		if r.IntN(5) != 0 {
			res["cpu"] = []string{"1", "2", "3", "4", "6", "500m", "1500m"}[r.IntN(7)]
			res["memory"] = []string{"1Gi", "2Gi", "5Gi", "20Gi"}[r.IntN(4)]
			if r.IntN(3) == 0 {
				res["hugepages-2Mi"] = []string{"2Mi", "1Gi", "4Gi"}[r.IntN(3)]
			}
		}
		nc := ns.Container{Name: name, Resources: ns.Resources{Limits: map[string]string{}, Requests: map[string]string{}}}
		kc := v1.Container{Name: name, Resources: v1.ResourceRequirements{Limits: v1.ResourceList{}, Requests: v1.ResourceList{}}}
		for k, v := range res {
			nc.Resources.Limits[k], nc.Resources.Requests[k] = v, v
			kc.Resources.Limits[v1.ResourceName(k)] = resource.MustParse(v)
			kc.Resources.Requests[v1.ResourceName(k)] = resource.MustParse(v)
			if !guaranteed && k == "cpu" {
				nc.Resources.Requests[k] = "100m"
				kc.Resources.Requests[v1.ResourceCPU] = resource.MustParse("100m")
			}
		}
		return nc, kc
	}
	for i := r.IntN(3); i > 0; i-- {
		nc, kc := mk(fmt.Sprintf("init%d", i))
		if r.IntN(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			nc.RestartPolicy, kc.RestartPolicy = "Always", &always
		}
		np.InitContainers = append(np.InitContainers, nc)
		kp.Spec.InitContainers = append(kp.Spec.InitContainers, kc)
	}
	for i := 1 + r.IntN(3); i > 0; i-- {
		nc, kc := mk(fmt.Sprintf("app%d", i))
		np.Containers = append(np.Containers, nc)
		kp.Spec.Containers = append(kp.Spec.Containers, kc)
	}
	return np, kp
}

// TestCPUHintsAgree compares the static CPU policy's hints (container and
// pod) on random machines (1-4 NUMA nodes, 1-2 sockets, SMT on or off),
// shared pools, reserved CPUs and existing assignments.
func TestCPUHintsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 0
	kinds := map[string]int{}
	for i := 0; i < 600; i++ {
		numa := 1 + r.IntN(4)
		perNode := 2 + r.IntN(5)
		smt := 1 + r.IntN(2)
		sockets := 1
		if numa%2 == 0 && r.IntN(2) == 0 {
			sockets = 2
		}
		m := &ns.Machine{}
		kt := &topology.CPUTopology{CPUDetails: topology.CPUDetails{}, NumNUMANodes: numa, NumSockets: sockets}
		id := 0
		for node := 0; node < numa; node++ {
			m.Nodes = append(m.Nodes, ns.NUMANode{ID: node})
			for c := 0; c < perNode; c++ {
				core := id
				for s := 0; s < smt; s++ {
					sock := node * sockets / numa
					m.CPUs = append(m.CPUs, ns.CPU{ID: id, Core: core, Socket: sock, NUMA: node})
					kt.CPUDetails[id] = topology.CPUInfo{NUMANodeID: node, SocketID: sock, CoreID: core}
					id++
				}
			}
		}
		kt.NumCPUs, kt.NumCores = id, id/smt
		all := make([]int, id)
		for j := range all {
			all[j] = j
		}
		var free, reserved []int
		for _, c := range all {
			if r.IntN(3) != 0 {
				free = append(free, c)
				if r.IntN(8) == 0 && len(reserved) < 2 {
					reserved = append(reserved, c)
				}
			}
		}
		if len(free) == 0 {
			free = all[:1] // an empty defaultCpuSet without assignments is a fresh state the static policy's Start fills
		}
		def, res := cpuset.New(free...), cpuset.New(reserved...)
		uid := fmt.Sprintf("pod-%d", i)
		np, kp := randomPod(r, uid)
		st := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: def, Entries: map[string]map[string]cpuset.CPUSet{}}
		ks := cpustate.NewMemoryState(discard)
		ks.SetDefaultCPUSet(def)
		if r.IntN(4) == 0 {
			c := np.AllContainers()[0].Name
			used := cpuset.New(all...).Difference(def)
			if used.Size() > 0 {
				take := cpuset.New(used.List()[:1+r.IntN(used.Size())]...)
				st.Entries[uid] = map[string]cpuset.CPUSet{c: take}
				ks.SetCPUSet(uid, c, take)
			}
		}
		kpol, err := cpumanager.NewStaticPolicy(discard, kt, res.Size(), res, tm.NewFakeManager(discard), nil)
		require.NoError(t, err)
		prov, err := ns.NewCPUProvider(m, st, res, ns.DefaultFeatureGates())
		require.NoError(t, err)
		for j, c := range np.AllContainers() {
			kc := append(append([]v1.Container{}, kp.Spec.InitContainers...), kp.Spec.Containers...)[j]
			want := canonK(kpol.GetTopologyHints(discard, ks, kp, &kc, lifecycle.AddOperation))
			got := canon(prov.GetTopologyHints(np, &c))
			require.Equal(t, want, got, "case %d container %s: hints, kubelet and numascope", i, c.Name)
			n++
			kinds[answerKind(want)]++
		}
		want := canonK(kpol.GetPodTopologyHints(discard, ks, kp, lifecycle.AddOperation))
		kinds[answerKind(want)]++
		require.Equal(t, want, canon(prov.GetPodTopologyHints(np)), "case %d pod: hints, kubelet and numascope", i)
		n++
	}
	t.Logf("%d CPU hint answers agree: %v", n, kinds)
}

// TestMemoryHintsAgree compares the Static memory policy's hints on random
// machine states: free and allocatable memory and hugepages per node, NUMA
// groups with assignments, existing blocks.
func TestMemoryHintsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	gib := uint64(1 << 30)
	n := 0
	kinds := map[string]int{}
	for i := 0; i < 600; i++ {
		numa := 1 + r.IntN(4)
		ms := &statefile.MemoryState{PolicyName: "Static", MachineState: map[int]*statefile.NUMANodeState{}, Entries: map[string]map[string][]statefile.Block{}}
		km := memstate.NUMANodeMap{}
		// groups: sometimes nodes 0 and 1 form a group with assignments
		grouped := numa >= 2 && r.IntN(3) == 0
		for node := 0; node < numa; node++ {
			st := &statefile.NUMANodeState{MemoryMap: map[string]*statefile.MemoryTable{}, Cells: []int{node}}
			kn := &memstate.NUMANodeState{MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{}, Cells: []int{node}}
			for _, res := range []string{"memory", "hugepages-2Mi"} {
				alloc := uint64(1+r.IntN(16)) * gib
				free := alloc - uint64(r.IntN(int(alloc/gib)+1))*gib
				t := &statefile.MemoryTable{TotalMemSize: alloc + gib, SystemReserved: gib, Allocatable: alloc, Reserved: alloc - free, Free: free}
				st.MemoryMap[res] = t
				kn.MemoryMap[v1.ResourceName(res)] = &memstate.MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved, Allocatable: t.Allocatable, Reserved: t.Reserved, Free: t.Free}
			}
			if grouped && node < 2 {
				st.Cells, kn.Cells = []int{0, 1}, []int{0, 1}
				st.NumberOfAssignments, kn.NumberOfAssignments = 2, 2
			} else if r.IntN(3) == 0 {
				st.NumberOfAssignments, kn.NumberOfAssignments = 1, 1
			}
			ms.MachineState[node] = st
			km[node] = kn
		}
		ks := memstate.NewMemoryState(discard)
		ks.SetMachineState(km)
		uid := fmt.Sprintf("pod-%d", i)
		np, kp := randomPod(r, uid)
		if r.IntN(5) == 0 {
			c := np.AllContainers()[0]
			var blocks []statefile.Block
			var kblocks []memstate.Block
			for _, res := range []string{"memory", "hugepages-2Mi"} {
				q, ok := c.Resources.Requests[res]
				if !ok {
					continue
				}
				qq, err := ns.ParseQuantity(q)
				require.NoError(t, err, "request %s %q of a generated pod", res, q)
				size := uint64(qq.Value())
				if r.IntN(4) == 0 {
					size++
				}
				blocks = append(blocks, statefile.Block{NUMAAffinity: []int{0}, Type: res, Size: size})
				kblocks = append(kblocks, memstate.Block{NUMAAffinity: []int{0}, Type: v1.ResourceName(res), Size: size})
			}
			if blocks != nil {
				ms.Entries[uid] = map[string][]statefile.Block{c.Name: blocks}
				ks.SetMemoryBlocks(uid, c.Name, kblocks)
			}
		}
		kpol, err := memorymanager.NewPolicyStatic(discard, &cadvisorapi.MachineInfo{}, map[int]map[v1.ResourceName]uint64{0: {v1.ResourceMemory: 1}}, tm.NewFakeManager(discard))
		require.NoError(t, err)
		prov, err := ns.NewMemoryProvider(ms, ns.DefaultFeatureGates())
		require.NoError(t, err)
		for j, c := range np.AllContainers() {
			kc := append(append([]v1.Container{}, kp.Spec.InitContainers...), kp.Spec.Containers...)[j]
			want := canonK(kpol.GetTopologyHints(discard, ks, kp, &kc, lifecycle.AddOperation))
			got := canon(prov.GetTopologyHints(np, &c))
			require.Equal(t, want, got, "case %d container %s: hints, kubelet and numascope", i, c.Name)
			n++
			kinds[answerKind(want)]++
		}
		want := canonK(kpol.GetPodTopologyHints(discard, ks, kp, lifecycle.AddOperation))
		kinds[answerKind(want)]++
		require.Equal(t, want, canon(prov.GetPodTopologyHints(np)), "case %d pod: hints, kubelet and numascope", i)
		n++
	}
	t.Logf("%d memory hint answers agree: %v", n, kinds)
}

func answerKind(s string) string {
	switch {
	case s == "nil":
		return "no preference"
	case s == "{}":
		return "empty map"
	case strings.Contains(s, ":[]"):
		return "impossible"
	case strings.Contains(s, "true"):
		return "with preferred hints"
	}
	return "only non-preferred"
}
