package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
	_ "unsafe" // go:linkname, see newManagerImpl

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// newManagerImpl is the device manager's own constructor with the
// registration socket as a parameter. The exported NewManagerImpl always
// uses pluginapi.KubeletSocket (/var/lib/kubelet/device-plugins/kubelet.sock)
// and derives the checkpoint directory from it, so a test on this machine
// could only use the real kubelet directory; the kubelet's own unit tests
// (manager_test.go) call newManagerImpl with a temporary socket. The
// function is bound here by name, unchanged.
//
//go:linkname newManagerImpl k8s.io/kubernetes/pkg/kubelet/cm/devicemanager.newManagerImpl
func newManagerImpl(logger klog.Logger, socketPath string, topology []cadvisorapi.Node, topologyAffinityStore tm.Store) (*devicemanager.ManagerImpl, error)

// dmCase is one device manager situation, given to the kubelet's device
// manager (through its plugin registration API, its checkpoint file and
// its Allocate) and to numascope's DeviceProvider (through the checkpoint
// the kubelet wrote and its GetAllocatableResources answer).
type dmCase struct {
	Nodes     []int        `json:"nodes"` // the machine's NUMA node IDs (cAdvisor)
	Resources []dmResource `json:"resources"`
	// Entries are allocations in the checkpoint the kubelet starts from
	// (other pods', and the tested pod's after a kubelet restart).
	Entries []dmEntry `json:"entries,omitempty"`
	Pod     dmPod     `json:"pod"`
	// Affinity is the Topology Manager's stored affinity per container
	// (absent: a hint without affinity), which steers Allocate.
	Affinity map[string][]int `json:"affinity,omitempty"`
}

type dmResource struct {
	Name string `json:"name"`
	// Plugin: a device plugin registers the resource and lists Devices.
	Plugin  bool       `json:"plugin,omitempty"`
	Devices []dmDevice `json:"devices,omitempty"`
	// Registered: the start checkpoint names the resource in
	// RegisteredDevices (with the healthy devices).
	Registered bool `json:"registered,omitempty"`
}

type dmDevice struct {
	ID    string `json:"id"`
	Nodes []int  `json:"nodes,omitempty"`
	// Topology: the plugin sends a TopologyInfo (with Nodes, possibly none).
	Topology  bool `json:"topology,omitempty"`
	Unhealthy bool `json:"unhealthy,omitempty"`
}

type dmEntry struct {
	Pod       string             `json:"pod"`
	Container string             `json:"container"`
	Resource  string             `json:"resource"`
	IDs       map[int64][]string `json:"ids"`
}

type dmPod struct {
	UID  string        `json:"uid"`
	Init []dmContainer `json:"init,omitempty"`
	Apps []dmContainer `json:"apps"`
}

type dmContainer struct {
	Name    string         `json:"name"`
	Sidecar bool           `json:"sidecar,omitempty"`
	Limits  map[string]int `json:"limits,omitempty"`
}

func (p *dmPod) all() []dmContainer { return append(append([]dmContainer{}, p.Init...), p.Apps...) }

// kubePod is the pod as the kubelet's API types.
func (c *dmCase) kubePod() *v1.Pod {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "p", "d", types.UID(c.Pod.UID)
	conv := func(dc dmContainer) v1.Container {
		k := v1.Container{Name: dc.Name, Resources: v1.ResourceRequirements{Limits: v1.ResourceList{}, Requests: v1.ResourceList{}}}
		for r, n := range dc.Limits {
			q := *resource.NewQuantity(int64(n), resource.DecimalSI)
			k.Resources.Limits[v1.ResourceName(r)], k.Resources.Requests[v1.ResourceName(r)] = q, q
		}
		if dc.Sidecar {
			always := v1.ContainerRestartPolicyAlways
			k.RestartPolicy = &always
		}
		return k
	}
	for _, dc := range c.Pod.Init {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, conv(dc))
	}
	for _, dc := range c.Pod.Apps {
		pod.Spec.Containers = append(pod.Spec.Containers, conv(dc))
	}
	return pod
}

// deviceAffinityStore is the Topology Manager's side of Allocate: the affinity
// the merge chose for each container.
type deviceAffinityStore struct{ hints map[string]tm.TopologyHint }

func (s deviceAffinityStore) GetAffinity(_ klog.Logger, _ string, c string) tm.TopologyHint {
	return s.hints[c]
}
func (s deviceAffinityStore) GetPolicy() tm.Policy { return nil }
func (s deviceAffinityStore) Name() string         { return "conformance" }

type readySources struct{}

func (readySources) AddSource(string) {}
func (readySources) AllReady() bool   { return true }

// dmStep is one observation of the kubelet's device manager: its hints
// (container or pod), what Allocate said, and the evidence numascope gets
// at that moment (the checkpoint file and GetAllocatableResources).
type dmStep struct {
	Label     string // "pod", "container NAME", "pod after"
	Container string // "" for the pod
	Hints     string // canonical rendering
	AllocErr  *string
	Done      []string // containers allocated before this step, in order

	checkpoint  []byte
	allocatable []*podresourcesapi.ContainerDevices
}

var quietKlog sync.Once

// removeSettled removes dir, retrying while it is still being written:
// the device manager's plugin goroutines can write a checkpoint or a
// socket into it for a moment after Stop returns, so one RemoveAll can
// meet "directory not empty". It gives up after about two seconds.
func removeSettled(dir string) error {
	var err error
	for range 100 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// runKubeletDM runs the case through kubelet v1.37.2's device manager: a
// checkpoint in a temporary directory, the manager started on it, one test
// plugin per resource registered over the registration socket, then for
// the pod its pod-scope hints, each container's hints and Allocate in the
// kubelet's order (init containers first), and its pod-scope hints again.
func runKubeletDM(c *dmCase) (steps []dmStep, err error) {
	quietKlog.Do(func() {
		// The plugin client logs through the global klog when a stream ends.
		klog.SetLogger(logr.Discard())
	})
	logger := logr.Discard()
	ctx := klog.NewContext(context.Background(), logger)
	dir, err := os.MkdirTemp("", "dm")
	if err != nil {
		return nil, err
	}
	var plugins []*testPlugin
	defer func() {
		// Plugins first, then the manager (registered below), then the directory.
		for _, p := range plugins {
			if e := p.close(); e != nil && err == nil {
				err = e
			}
		}
		if e := removeSettled(dir); e != nil && err == nil {
			err = e
		}
	}()

	start, err := dmStartCheckpoint(c)
	if err != nil {
		return nil, err
	}
	if start != nil {
		if err := os.WriteFile(filepath.Join(dir, dmCheckpointName), start, 0o600); err != nil {
			return nil, err
		}
	}

	var topo []cadvisorapi.Node
	for _, n := range c.Nodes {
		topo = append(topo, cadvisorapi.Node{Id: n})
	}
	store := deviceAffinityStore{hints: map[string]tm.TopologyHint{}}
	for name, nodes := range c.Affinity {
		m, err := bitmask.NewBitMask(nodes...)
		if err != nil {
			return nil, err
		}
		store.hints[name] = tm.TopologyHint{NUMANodeAffinity: m, Preferred: true}
	}
	kubeSocket := filepath.Join(dir, "kubelet.sock")
	m, err := newManagerImpl(logger, kubeSocket, topo, store)
	if err != nil {
		return nil, err
	}
	pod := c.kubePod()
	active := map[string]bool{c.Pod.UID: true}
	for _, e := range c.Entries {
		active[e.Pod] = true
	}
	activePods := func() []*v1.Pod {
		var out []*v1.Pod
		for uid := range active {
			if uid == c.Pod.UID {
				out = append(out, pod)
				continue
			}
			p := &v1.Pod{}
			p.UID = types.UID(uid)
			out = append(out, p)
		}
		return out
	}
	if err := m.Start(logger, activePods, readySources{}, containermap.NewContainerMap(), sets.New[string]()); err != nil {
		return nil, err
	}
	defer func() {
		if e := m.Stop(logger); e != nil && err == nil {
			err = e
		}
	}()
	for i, r := range c.Resources {
		if !r.Plugin {
			continue
		}
		var devs []*pluginapi.Device
		healthy := 0
		for _, d := range r.Devices {
			pd := &pluginapi.Device{ID: d.ID, Health: pluginapi.Healthy}
			if d.Unhealthy {
				pd.Health = pluginapi.Unhealthy
			} else {
				healthy++
			}
			if d.Topology {
				pd.Topology = &pluginapi.TopologyInfo{}
				for _, n := range d.Nodes {
					pd.Topology.Nodes = append(pd.Topology.Nodes, &pluginapi.NUMANode{ID: int64(n)})
				}
			}
			devs = append(devs, pd)
		}
		p, err := startTestPlugin(dir, "p"+strconv.Itoa(i)+".sock", r.Name, devs)
		if err != nil {
			return nil, err
		}
		plugins = append(plugins, p)
		if err := p.register(ctx, kubeSocket); err != nil {
			return nil, err
		}
		// The plugin's list is applied, then written to the checkpoint, by
		// the stream's goroutine: wait for both before the next plugin.
		if err := waitFor(func() bool {
			capacity, allocatable, _ := m.GetCapacity(logger)
			q, ok := capacity[v1.ResourceName(r.Name)]
			a := allocatable[v1.ResourceName(r.Name)]
			if !ok || q.Value() != int64(len(r.Devices)) || a.Value() != int64(healthy) {
				return false
			}
			data, err := os.ReadFile(filepath.Join(dir, dmCheckpointName))
			if err != nil {
				return false
			}
			cp := devcheckpoint.New(nil, nil)
			if cp.UnmarshalCheckpoint(data) != nil {
				return false
			}
			_, reg := cp.GetData()
			ids, ok := reg[r.Name]
			return ok && len(ids) == healthy
		}); err != nil {
			return nil, fmt.Errorf("plugin %s: %w", r.Name, err)
		}
	}

	snapshot := func(s *dmStep) error {
		data, err := os.ReadFile(filepath.Join(dir, dmCheckpointName))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		s.checkpoint = data
		s.allocatable = containerDevicesFromResourceDeviceInstances(m.GetAllocatableDevices(logger))
		return nil
	}
	var done []string
	observePod := func(label string) error {
		s := dmStep{Label: label, Hints: dmCanonK(m.GetPodTopologyHints(logger, pod, lifecycle.AddOperation)), Done: append([]string(nil), done...)}
		if err := snapshot(&s); err != nil {
			return err
		}
		steps = append(steps, s)
		return nil
	}
	if err := observePod("pod"); err != nil {
		return nil, err
	}
	kcs := append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for i, dc := range c.Pod.all() {
		kc := &kcs[i]
		s := dmStep{Label: "container " + dc.Name, Container: dc.Name, Done: append([]string(nil), done...)}
		if err := snapshot(&s); err != nil {
			return nil, err
		}
		s.Hints = dmCanonK(m.GetTopologyHints(logger, pod, kc, lifecycle.AddOperation))
		aerr := m.Allocate(ctx, pod, kc, lifecycle.AddOperation)
		msg := ""
		if aerr != nil {
			msg = aerr.Error()
		}
		s.AllocErr = &msg
		steps = append(steps, s)
		if aerr != nil {
			return steps, nil // the kubelet rejects the pod here
		}
		done = append(done, dc.Name)
	}
	if err := observePod("pod after"); err != nil {
		return nil, err
	}
	return steps, nil
}

const dmCheckpointName = "kubelet_internal_checkpoint"

// dmStartCheckpoint is the checkpoint the kubelet starts from, written by
// the kubelet's own MarshalCheckpoint (nil when the case has none).
func dmStartCheckpoint(c *dmCase) ([]byte, error) {
	registered := map[string][]string{}
	for _, r := range c.Resources {
		if !r.Registered {
			continue
		}
		registered[r.Name] = []string{}
		for _, d := range r.Devices {
			if !d.Unhealthy {
				registered[r.Name] = append(registered[r.Name], d.ID)
			}
		}
	}
	if len(c.Entries) == 0 && len(registered) == 0 {
		return nil, nil
	}
	resp, err := proto.Marshal(&pluginapi.ContainerAllocateResponse{Envs: map[string]string{"RESTORED": "1"}})
	if err != nil {
		return nil, err
	}
	var entries []devcheckpoint.PodDevicesEntry
	for _, e := range c.Entries {
		entries = append(entries, devcheckpoint.PodDevicesEntry{PodUID: e.Pod, ContainerName: e.Container, ResourceName: e.Resource, DeviceIDs: e.IDs, AllocResp: resp})
	}
	return devcheckpoint.New(entries, registered).MarshalCheckpoint()
}

func waitFor(cond func() bool) error {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after 10s")
		}
		time.Sleep(200 * time.Microsecond)
	}
	return nil
}

// containerDevicesFromResourceDeviceInstances is the kubelet's own
// conversion (pkg/kubelet/cm/container_manager.go, v1.37.2, unexported)
// from the device manager's GetAllocatableDevices to the PodResources
// GetAllocatableResources devices: one entry per device and NUMA node, no
// topology for a device without one, and nothing for a device whose
// topology lists no node.
func containerDevicesFromResourceDeviceInstances(devs devicemanager.ResourceDeviceInstances) []*podresourcesapi.ContainerDevices {
	var respDevs []*podresourcesapi.ContainerDevices
	for resourceName, resourceDevs := range devs {
		for devID, dev := range resourceDevs {
			topo := dev.GetTopology()
			if topo == nil {
				respDevs = append(respDevs, &podresourcesapi.ContainerDevices{ResourceName: resourceName, DeviceIds: []string{devID}})
				continue
			}
			for _, node := range topo.GetNodes() {
				respDevs = append(respDevs, &podresourcesapi.ContainerDevices{
					ResourceName: resourceName,
					DeviceIds:    []string{devID},
					Topology:     &podresourcesapi.TopologyInfo{Nodes: []*podresourcesapi.NUMANode{{ID: node.GetID()}}},
				})
			}
		}
	}
	return respDevs
}

// dmCanonK renders the kubelet's hints so that nil and empty lists stay
// distinct and map order does not matter.
func dmCanonK(m map[string][]tm.TopologyHint) string {
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
			if h.NUMANodeAffinity == nil {
				s += "any"
			} else {
				s += fmt.Sprint(h.NUMANodeAffinity.GetBits())
			}
			if h.Preferred {
				s += "P"
			}
		}
		s += "] "
	}
	return s + "}"
}
