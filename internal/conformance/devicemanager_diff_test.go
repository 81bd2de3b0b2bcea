package conformance

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/statefile"
	ns "github.com/numascope/numascope/topomgr"
)

// dmCasesEnv sets the number of random device manager cases (default 300).
const dmCasesEnv = "NUMASCOPE_DEVICE_CASES"

// randomDMCase draws a machine (1-8 NUMA nodes, sometimes with gaps in
// the IDs), 1-3 device resources with devices on one or several NUMA
// nodes, on nodes the machine does not have, with no topology or with an
// empty one, some unhealthy; allocations of other pods; sometimes the
// tested pod's own allocations (a kubelet restart); and a pod with init
// containers, sidecars and app containers requesting random numbers of
// devices (zero, more than there are, resources nobody serves).
func randomDMCase(r *rand.Rand) *dmCase {
	c := &dmCase{Pod: dmPod{UID: "pod-under-test"}, Affinity: map[string][]int{}}
	k := 1 + r.IntN(8)
	if r.IntN(4) == 0 {
		ids := r.Perm(k + 1 + r.IntN(4))[:k]
		sort.Ints(ids)
		c.Nodes = ids
	} else {
		for i := range k {
			c.Nodes = append(c.Nodes, i)
		}
	}
	maxNode := slices.Max(c.Nodes)
	node := func() int {
		if r.IntN(20) == 0 {
			return maxNode + 1 + r.IntN(3) // unknown to cAdvisor
		}
		return c.Nodes[r.IntN(len(c.Nodes))]
	}
	for i := range 1 + r.IntN(3) {
		res := dmResource{Name: fmt.Sprintf("example.com/dev%d", i), Plugin: r.IntN(8) != 0, Registered: r.IntN(3) == 0}
		n := r.IntN(9)
		if res.Plugin && n == 0 {
			n = 1
		}
		noTopology := r.IntN(6) == 0 // a plugin that reports no topology at all
		for j := range n {
			d := dmDevice{ID: fmt.Sprintf("d%d-%d", i, j), Unhealthy: r.IntN(7) == 0}
			switch x := r.IntN(10); {
			case noTopology || x == 0:
			case x == 1:
				d.Topology = true
			default:
				d.Topology = true
				d.Nodes = []int{node()}
				for r.IntN(4) == 0 && len(d.Nodes) < 4 {
					if m := node(); !slices.Contains(d.Nodes, m) {
						d.Nodes = append(d.Nodes, m)
					}
				}
			}
			res.Devices = append(res.Devices, d)
		}
		c.Resources = append(c.Resources, res)
	}
	perNUMA := func(d dmDevice) map[int64][]string {
		out := map[int64][]string{}
		if len(d.Nodes) == 0 {
			out[-1] = []string{d.ID}
		}
		for _, n := range d.Nodes {
			out[int64(n)] = append(out[int64(n)], d.ID)
		}
		return out
	}
	merge := func(dst, src map[int64][]string) {
		for n, ids := range src {
			dst[n] = append(dst[n], ids...)
		}
	}
	// Other pods hold some devices (and a device no plugin lists now).
	for _, res := range c.Resources {
		for j, d := range res.Devices {
			if r.IntN(4) == 0 {
				c.Entries = append(c.Entries, dmEntry{Pod: "other-" + strconv.Itoa(r.IntN(3)), Container: "c" + strconv.Itoa(j%2), Resource: res.Name, IDs: perNUMA(d)})
			}
		}
		if r.IntN(10) == 0 {
			c.Entries = append(c.Entries, dmEntry{Pod: "other-gone", Container: "c", Resource: res.Name, IDs: map[int64][]string{int64(node()): {"gone-" + res.Name}}})
		}
	}
	names := []string{}
	for _, res := range c.Resources {
		names = append(names, res.Name)
	}
	if r.IntN(8) == 0 {
		names = append(names, "example.com/unserved")
	}
	limits := func() map[string]int {
		out := map[string]int{}
		for _, name := range names {
			if r.IntN(2) == 0 {
				continue
			}
			switch x := r.IntN(12); {
			case x == 0:
				out[name] = 0
			case x == 1:
				out[name] = 3 + r.IntN(6)
			default:
				out[name] = 1 + r.IntN(2)
			}
		}
		return out
	}
	for i := range r.IntN(3) {
		c.Pod.Init = append(c.Pod.Init, dmContainer{Name: "init" + strconv.Itoa(i), Sidecar: r.IntN(3) == 0, Limits: limits()})
	}
	for i := range 1 + r.IntN(3) {
		c.Pod.Apps = append(c.Pod.Apps, dmContainer{Name: "app" + strconv.Itoa(i), Limits: limits()})
	}
	// A third of the pods reuse: an init container's devices go to an app
	// container after it (fewer, as many or more than it held).
	if r.IntN(3) == 0 {
		res := names[r.IntN(len(c.Resources))]
		k := 1 + r.IntN(3)
		c.Pod.Init = append(c.Pod.Init, dmContainer{Name: "init-reused", Limits: map[string]int{res: k}})
		app := &c.Pod.Apps[r.IntN(len(c.Pod.Apps))]
		app.Limits[res] = max(1, k-1+r.IntN(3))
	}
	// After a kubelet restart the pod's containers may hold devices already
	// (free, healthy ones; sometimes fewer than the request).
	if r.IntN(5) == 0 {
		taken := map[string]bool{}
		for _, e := range c.Entries {
			for _, ids := range e.IDs {
				for _, id := range ids {
					taken[e.Resource+"/"+id] = true
				}
			}
		}
		for _, dc := range c.Pod.all() {
			for _, res := range c.Resources {
				want := dc.Limits[res.Name]
				if want == 0 || r.IntN(2) == 0 {
					continue
				}
				if r.IntN(4) == 0 {
					want = 1 + r.IntN(want+1)
				}
				e := dmEntry{Pod: c.Pod.UID, Container: dc.Name, Resource: res.Name, IDs: map[int64][]string{}}
				got := 0
				for _, d := range res.Devices {
					if got < want && !d.Unhealthy && !taken[res.Name+"/"+d.ID] {
						taken[res.Name+"/"+d.ID] = true
						merge(e.IDs, perNUMA(d))
						got++
					}
				}
				if got > 0 {
					c.Entries = append(c.Entries, e)
				}
			}
		}
	}
	for _, dc := range c.Pod.all() {
		if r.IntN(5) < 3 {
			var m []int
			for _, n := range c.Nodes {
				if r.IntN(2) == 0 {
					m = append(m, n)
				}
			}
			if len(m) == 0 {
				m = []int{c.Nodes[0]}
			}
			c.Affinity[dc.Name] = m
		}
	}
	return c
}

func (c *dmCase) nsPod() *ns.Pod {
	p := &ns.Pod{Name: "p", Namespace: "d", UID: c.Pod.UID}
	conv := func(dc dmContainer) ns.Container {
		out := ns.Container{Name: dc.Name, Resources: ns.Resources{Limits: map[string]string{}, Requests: map[string]string{}}}
		if dc.Sidecar {
			out.RestartPolicy = "Always"
		}
		for r, n := range dc.Limits {
			out.Resources.Limits[r], out.Resources.Requests[r] = strconv.Itoa(n), strconv.Itoa(n)
		}
		return out
	}
	for _, dc := range c.Pod.Init {
		p.InitContainers = append(p.InitContainers, conv(dc))
	}
	for _, dc := range c.Pod.Apps {
		p.Containers = append(p.Containers, conv(dc))
	}
	return p
}

type nsAffinity map[string][]int

func (s nsAffinity) GetAffinity(_ string, c string) ns.TopologyHint {
	nodes, ok := s[c]
	if !ok {
		return ns.AnyNUMAHint(false)
	}
	m, err := ns.NewBitMask(nodes...)
	if err != nil {
		panic(err)
	}
	return ns.NewHint(m, true)
}

// observable reports whether the evidence numascope reads (the device
// checkpoint and GetAllocatableResources) shows every device the kubelet
// counts: unhealthy devices with NUMA nodes and healthy ones whose
// topology lists no node appear in neither; a device that only an allocation names may be unhealthy (the
// kubelet counts it) or gone, or its plugin may not have registered again
// since the kubelet restarted (it does not count).
func (c *dmCase) observable() bool {
	listed := map[string]bool{}
	for _, res := range c.Resources {
		if !res.Plugin && res.Registered {
			return false // the checkpoint names devices the restarted kubelet does not hold yet
		}
		for _, d := range res.Devices {
			// An unhealthy device counts only through its NUMA nodes; a
			// healthy one whose topology lists no node looks, in the
			// evidence, like one without topology, which differs only once
			// an init container has held it.
			if res.Plugin && ((d.Unhealthy && len(d.Nodes) > 0) || (!d.Unhealthy && d.Topology && len(d.Nodes) == 0)) {
				return false
			}
			if res.Plugin {
				listed[res.Name+"/"+d.ID] = true
			}
		}
	}
	for _, e := range c.Entries {
		for _, ids := range e.IDs {
			for _, id := range ids {
				if !listed[e.Resource+"/"+id] {
					return false
				}
			}
		}
	}
	return true
}

// numascopeDM answers one step from numascope's DeviceProvider: built from
// the checkpoint the kubelet wrote and its GetAllocatableResources devices
// (plus, when full, the devices the plugins list with their health and
// topology, which that evidence does not show), with the Allocate calls of
// the containers before the step replayed (they reuse what the checkpoint
// holds, so the reusable devices are the kubelet's).
func numascopeDM(c *dmCase, s dmStep, full bool) (hints string, allocErr *string, err error) {
	return numascopeDMOnly(c, s, full, "")
}

// numascopeDMOnly is numascopeDM with the step's container asking for
// only resource only (when not "").
func numascopeDMOnly(c *dmCase, s dmStep, full bool, only string) (hints string, allocErr *string, err error) {
	var st *statefile.DeviceState
	if s.checkpoint != nil {
		f, err := statefile.Decode(s.checkpoint, statefile.Options{Name: dmCheckpointName, Kind: statefile.KindDevice})
		if err != nil {
			return "", nil, err
		}
		if !f.KubeletAccepts || f.Device == nil {
			return "", nil, fmt.Errorf("the kubelet's own checkpoint is refused: %s", f.Reason)
		}
		st = f.Device
	}
	alloc, err := client.FromAllocatable(&podresourcesapi.AllocatableResourcesResponse{Devices: s.allocatable})
	if err != nil {
		return "", nil, err
	}
	p, err := ns.NewDeviceProvider(c.Nodes, st, alloc)
	if err != nil {
		return "", nil, err
	}
	if full {
		for _, res := range c.Resources {
			var devs []ns.Device
			for _, d := range res.Devices {
				if !res.Plugin {
					break // the kubelet holds no device of a resource no plugin serves
				}
				nd := ns.Device{ID: d.ID, Healthy: !d.Unhealthy, NUMANodes: d.Nodes}
				if d.Topology && len(d.Nodes) == 0 {
					nd.EmptyTopology = true
				}
				devs = append(devs, nd)
			}
			p.SetDevices(res.Name, devs)
		}
	}
	pod := c.nsPod()
	all := append(append([]ns.Container{}, pod.InitContainers...), pod.Containers...)
	find := func(name string) *ns.Container {
		for i := range all {
			if all[i].Name == name {
				return &all[i]
			}
		}
		return nil
	}
	for _, name := range s.Done {
		if err := p.Allocate(pod, find(name), nsAffinity(c.Affinity)); err != nil {
			return "", nil, fmt.Errorf("replaying Allocate(%s), which the kubelet did: %w", name, err)
		}
	}
	if s.Container == "" {
		return dmCanon(p.GetPodTopologyHints(pod)), nil, nil
	}
	ct := find(s.Container)
	if only != "" {
		ct.Resources.Limits = map[string]string{only: ct.Resources.Limits[only]}
	}
	hints = dmCanon(p.GetTopologyHints(pod, ct))
	if s.AllocErr != nil {
		msg := ""
		if err := p.Allocate(pod, ct, nsAffinity(c.Affinity)); err != nil {
			msg = err.Error()
		}
		allocErr = &msg
	}
	return hints, allocErr, nil
}

func dmCanon(m ns.ProviderHints) string {
	if m == nil {
		return "nil"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := "{"
	for _, k := range keys {
		s += k + ":"
		if m[k] == nil {
			s += "nil "
			continue
		}
		s += "["
		for i, h := range m[k] {
			if i > 0 {
				s += " "
			}
			if !h.HasAffinity {
				s += "any"
			} else {
				s += fmt.Sprint(h.NUMANodeAffinity.Bits())
			}
			if h.Preferred {
				s += "P"
			}
		}
		s += "] "
	}
	return s + "}"
}

// dmResult counts what one case exercised.
type dmResult struct {
	steps, evidence int
	kinds           map[string]int
}

// compareDM runs one case through both and reports the first difference.
func compareDM(c *dmCase, res *dmResult) error {
	steps, err := runKubeletDM(c)
	if err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	observable := c.observable()
	for _, s := range steps {
		for _, full := range []bool{true, false} {
			if !full && !observable {
				continue
			}
			hints, allocErr, err := numascopeDM(c, s, full)
			if err != nil {
				return fmt.Errorf("%s (full=%v): numascope: %w", s.Label, full, err)
			}
			if hints != s.Hints {
				return fmt.Errorf("%s (full=%v): hints differ\nkubelet:   %s\nnumascope: %s", s.Label, full, s.Hints, hints)
			}
			if s.AllocErr != nil && *s.AllocErr != *allocErr && !dmEitherError(c, s, full, *allocErr) {
				return fmt.Errorf("%s (full=%v): Allocate differs\nkubelet:   %q\nnumascope: %q", s.Label, full, *s.AllocErr, *allocErr)
			}
			if !full {
				res.evidence++
			}
		}
		res.steps++
		res.kinds[dmKind(s)]++
		if c.reuses(s) {
			res.kinds["after-init-devices"]++
		}
	}
	return nil
}

// reuses reports whether the step's container asks for a resource that a
// regular init container allocated before it (the kubelet's reusable
// devices).
func (c *dmCase) reuses(s dmStep) bool {
	var want map[string]int
	for _, dc := range c.Pod.all() {
		if dc.Name == s.Container {
			want = dc.Limits
		}
	}
	for _, name := range s.Done {
		for _, ic := range c.Pod.Init {
			if ic.Name != name || ic.Sidecar {
				continue
			}
			for r, n := range ic.Limits {
				if n > 0 && want[r] > 0 {
					return true
				}
			}
		}
	}
	return false
}

// dmEitherError accepts a different Allocate error when the kubelet's and
// numascope's are each the error of one of the container's resources: the
// kubelet allocates them in a map's order and stops at the first failure,
// numascope in name order.
func dmEitherError(c *dmCase, s dmStep, full bool, got string) bool {
	if *s.AllocErr == "" || got == "" {
		return false
	}
	var limits map[string]int
	for _, dc := range c.Pod.all() {
		if dc.Name == s.Container {
			limits = dc.Limits
		}
	}
	possible := map[string]bool{}
	for r := range limits {
		_, e, err := numascopeDMOnly(c, s, full, r)
		if err == nil && e != nil && *e != "" {
			possible[*e] = true
		}
	}
	return possible[*s.AllocErr] && possible[got]
}

func dmKind(s dmStep) string {
	switch {
	case s.AllocErr != nil && *s.AllocErr != "":
		return "allocate-error"
	case s.Hints == "{}":
		return "no-device-request"
	case strings.Contains(s.Hints, ":[]"):
		return "no-placement"
	case strings.Contains(s.Hints, "["):
		return "hints"
	default:
		return "no-topology"
	}
}

// TestDeviceManagerHintsAgree runs random cases through kubelet v1.37.2's
// device manager (real plugin registration, checkpoint and Allocate) and
// numascope's DeviceProvider, for container and pod scope: zero
// differences. 300 cases by default (60 under -short); set
// NUMASCOPE_DEVICE_CASES for more. The cases are seeded; the kubelet's
// choice among an init container's reusable devices follows a set's
// order, so the later steps of a few cases (and the counts logged) vary
// from run to run, and numascope must agree on every run: it reads the
// kubelet's choices from the checkpoint the kubelet wrote.
func TestDeviceManagerHintsAgree(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	if v := os.Getenv(dmCasesEnv); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, dmCasesEnv)
	}
	res := &dmResult{kinds: map[string]int{}}
	for i := range n {
		c := randomDMCase(Rand(uint64(1700 + i)))
		err := compareDM(c, res)
		if !assert.NoError(t, err, "case %d", i) {
			js, jerr := json.Marshal(c)
			require.NoError(t, jerr)
			t.Logf("case %d: %s", i, js)
			return
		}
	}
	t.Logf("%d cases, %d steps agree (%d also from the evidence alone): %v", n, res.steps, res.evidence, res.kinds)
	assert.Positive(t, res.kinds["hints"])
}

// FuzzDeviceManagerHints draws cases through the same generator: its
// decisions come first from the fuzzer's bytes (so that mutations steer
// them), then from a PCG seeded with seed.
func FuzzDeviceManagerHints(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 1701, 1742} {
		f.Add(s, []byte{})
	}
	f.Fuzz(func(t *testing.T, seed uint64, data []byte) {
		fuzzbudget.Run(t, func() {
			res := &dmResult{kinds: map[string]int{}}
			c := randomDMCase(rand.New(&bytesSource{data: data, rest: rand.NewPCG(seed, 0x6e756d6173636f70)}))
			if err := compareDM(c, res); err != nil {
				js, jerr := json.Marshal(c)
				require.NoError(t, jerr)
				t.Fatalf("%v\ncase: %s", err, js)
			}
		})
	})
}

// bytesSource is a rand.Source that returns the bytes it holds, eight at a
// time, then the numbers of rest.
type bytesSource struct {
	data []byte
	rest rand.Source
}

func (s *bytesSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	var b [8]byte
	n := copy(b[:], s.data)
	s.data = s.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}
