package legacy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"

	v117 "github.com/numascope/numascope/internal/conformance/legacy/v1.21.0/state"
)

const release = "v1.21.0"

var update = flag.Bool("update", false, "rewrite this release's golden files in statefile/testdata/kubelet")

var goldenDir = filepath.Join("..", "..", "..", "..", "statefile", "testdata", "kubelet")

// legacyCase is one entry of legacy-<release>.json (the shape
// internal/conformance reads).
type legacyCase struct {
	File             string `json:"file"`
	Kind             string `json:"kind"`
	Format           string `json:"format"`
	Policy           string `json:"policy"`
	Writer           string `json:"writer"`
	Tamper           string `json:"tamper,omitempty"`
	AcceptedByWriter bool   `json:"acceptedByWriter"`
	data             []byte
	containers       containermap.ContainerMap
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func hexID(r *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = hex[r.IntN(16)]
	}
	return string(b)
}

// cpuV1 is a kubelet 1.17 CPU checkpoint: exclusive cpusets per container ID,
// checksummed by checksum.New over the 1.17 type, as that kubelet did.
func cpuV1(seed uint64) (*v117.CPUManagerCheckpoint, containermap.ContainerMap) {
	r := rand.New(rand.NewPCG(seed, 117))
	cp := &v117.CPUManagerCheckpoint{PolicyName: "static", Entries: map[string]string{}}
	cm := containermap.NewContainerMap()
	next := 1
	for i := 0; i < 1+r.IntN(4); i++ {
		id := hexID(r)
		n := 1 + r.IntN(3)
		cp.Entries[id] = fmt.Sprintf("%d-%d", next, next+n-1)
		cm.Add(fmt.Sprintf("pod-%d", i), fmt.Sprintf("container-%d", i), id)
		next += n
	}
	cp.DefaultCPUSet = fmt.Sprintf("0,%d-15", next)
	cp.Checksum = 0
	cp.Checksum = checksum.New(cp)
	return cp, cm
}

func cases() []legacyCase {
	w := func(t string) string { return fmt.Sprintf("kubelet %s (%s).MarshalCheckpoint", release, t) }
	var cs []legacyCase
	add := func(c legacyCase) { cs = append(cs, c) }

	// CPU v1, the upstream unit tests' own vectors (the checksums there were
	// written by kubelet 1.17 era code).
	migration := containermap.NewContainerMap()
	migration.Add("pod", "container1", "containerID1")
	migration.Add("pod", "container2", "containerID2")
	add(legacyCase{File: "cpu/legacy-v1.21.0-cpu-v1-upstream-migration.json", Kind: "cpu", Format: "v1", Policy: "none",
		Writer:     "upstream unit test vector, k8s.io/kubernetes " + release + " pkg/kubelet/cm/cpumanager/state/state_checkpoint_test.go, case \"Restore checkpoint with migration\"",
		data:       []byte(`{"policyName":"none","defaultCPUSet":"1-3","entries":{"containerID1":"4-6","containerID2":"1-3"},"checksum":3680390589}`),
		containers: migration})
	add(legacyCase{File: "cpu/legacy-v1.21.0-cpu-v1-upstream-no-entries.json", Kind: "cpu", Format: "v1", Policy: "none",
		Writer: "upstream unit test vector, k8s.io/kubernetes " + release + " pkg/kubelet/cm/cpumanager/state/state_checkpoint_test.go, case \"Restore checkpoint from checkpoint with v1 checksum\"",
		data:   []byte(`{"policyName":"none","defaultCPUSet":"1-3","checksum":1694838852}`)})

	// CPU v1 from random states, hashed with v1.21.0's checksum package over
	// the 1.17 type.
	for i := uint64(0); i < 2; i++ {
		cp, cm := cpuV1(10 + i)
		add(legacyCase{File: fmt.Sprintf("cpu/legacy-v1.21.0-cpu-v1-static-%d.json", i), Kind: "cpu", Format: "v1", Policy: "static",
			Writer: "kubelet 1.17 layout (*state.CPUManagerCheckpoint, container ID keys) hashed by kubelet " + release + " checksum.New",
			data:   must(json.Marshal(cp)), containers: cm})
	}
	{
		cp, cm := cpuV1(20)
		cp.Checksum = 0
		add(legacyCase{File: "cpu/legacy-v1.21.0-cpu-v1-checksum-zero.json", Kind: "cpu", Format: "v1", Policy: "static",
			Writer: "kubelet 1.17 layout (*state.CPUManagerCheckpoint, container ID keys)", Tamper: "checksum 0 (the old file backend's unchecked value)",
			data: must(json.Marshal(cp)), containers: cm})
	}

	// v2 CPU, v1 memory and 1.20+ device checkpoints as v1.21.0 writes them.
	v2 := cpustate.NewCPUManagerCheckpoint()
	v2.PolicyName, v2.DefaultCPUSet = "static", "0,5-31"
	v2.Entries["6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11"] = map[string]string{"app": "1-2", "sidecar": "3"}
	v2.Entries["a9d1c1f0-7f3e-4a57-9a57-3c1e5e0b7b22"] = map[string]string{"db": "4"}
	add(legacyCase{File: "cpu/legacy-v1.21.0-cpu-v2-static.json", Kind: "cpu", Format: "v2", Policy: "static", Writer: w("*state.CPUManagerCheckpoint"), data: must(v2.MarshalCheckpoint())})

	mem := memstate.NewMemoryManagerCheckpoint()
	mem.PolicyName = "Static"
	const gi = uint64(1) << 30
	for n := 0; n < 2; n++ {
		reserved := uint64(0)
		if n == 0 {
			reserved = 4 * gi
		}
		mem.MachineState[n] = &memstate.NUMANodeState{NumberOfAssignments: 1 - n, Cells: []int{n}, MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{
			v1.ResourceMemory: {TotalMemSize: 64 * gi, SystemReserved: gi, Allocatable: 63 * gi, Reserved: reserved, Free: 63*gi - reserved},
			"hugepages-1Gi":   {TotalMemSize: 4 * gi, Allocatable: 4 * gi, Free: 4 * gi},
		}}
	}
	mem.Entries["6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11"] = map[string][]memstate.Block{"app": {{NUMAAffinity: []int{0}, Type: v1.ResourceMemory, Size: 4 * gi}}}
	add(legacyCase{File: "memory/legacy-v1.21.0-memory-v1-static.json", Kind: "memory", Format: "v1", Policy: "Static", Writer: w("*state.MemoryManagerCheckpoint"), data: must(mem.MarshalCheckpoint())})

	dev := devcheckpoint.New([]devcheckpoint.PodDevicesEntry{
		{PodUID: "6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11", ContainerName: "app", ResourceName: "nvidia.com/gpu", DeviceIDs: devcheckpoint.DevicesPerNUMA{0: {"GPU-0"}, 1: {"GPU-2"}}, AllocResp: []byte{0x0a, 0x0b, 0x1a, 0x09}},
		{PodUID: "6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11", ContainerName: "sidecar", ResourceName: "example.com/fpga", DeviceIDs: devcheckpoint.DevicesPerNUMA{-1: {"fpga-0"}}},
	}, map[string][]string{"nvidia.com/gpu": {"GPU-0", "GPU-1", "GPU-2", "GPU-3"}, "example.com/fpga": {"fpga-0"}})
	add(legacyCase{File: "device/legacy-v1.21.0-device-v2.json", Kind: "device", Format: "v2", Writer: w("*checkpoint.Data"), data: must(dev.MarshalCheckpoint())})
	return cs
}

// acceptedBy runs kubelet v1.21.0's restore path for the case.
func acceptedBy(t *testing.T, c legacyCase) (bool, error) {
	dir := t.TempDir()
	name := "state"
	if err := os.WriteFile(filepath.Join(dir, name), c.data, 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	switch c.Kind {
	case "cpu":
		cm := c.containers
		if cm == nil {
			cm = containermap.NewContainerMap()
		}
		_, err = cpustate.NewCheckpointState(dir, name, c.Policy, cm)
	case "memory":
		_, err = memstate.NewCheckpointState(dir, name, c.Policy)
	case "device":
		var m checkpointmanager.CheckpointManager
		if m, err = checkpointmanager.NewCheckpointManager(dir); err == nil {
			err = m.GetCheckpoint(name, devcheckpoint.New(nil, nil))
		}
	default:
		t.Fatalf("kind %s", c.Kind)
	}
	return err == nil, err
}

// TestLegacyGolden writes (with -update) or checks this release's golden
// files, and proves each is accepted by this release's own restore path.
func TestLegacyGolden(t *testing.T) {
	cs := cases()
	for i := range cs {
		ok, err := acceptedBy(t, cs[i])
		if !ok && cs[i].Tamper == "" {
			t.Errorf("%s: kubelet %s refuses it: %v", cs[i].File, release, err)
		}
		cs[i].AcceptedByWriter = ok
		path := filepath.Join(goldenDir, filepath.FromSlash(cs[i].File))
		if *update {
			if err := os.WriteFile(path, cs[i].data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s is missing (run `go test -update` in this module): %v", cs[i].File, err)
		} else if !bytes.Equal(got, cs[i].data) {
			t.Errorf("%s differs from what kubelet %s writes (run `go test -update` in this module)", cs[i].File, release)
		}
	}
	list, err := json.MarshalIndent(cs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	list = append(list, '\n')
	path := filepath.Join(goldenDir, "legacy-"+release+".json")
	if *update {
		if err := os.WriteFile(path, list, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d files written by kubelet %s", len(cs), release)
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("legacy-%s.json is missing (run `go test -update` in this module): %v", release, err)
	} else if !bytes.Equal(got, list) {
		t.Errorf("legacy-%s.json differs from this release's cases (run `go test -update` in this module)", release)
	}
}
