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

	resourcev1alpha2 "k8s.io/api/resource/v1alpha2"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
)

const release = "v1.30.0"

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
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func uid(r *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[r.IntN(16)]
		}
	}
	return string(b)
}

func deviceV1(seed uint64) devcheckpoint.DeviceManagerCheckpoint {
	r := rand.New(rand.NewPCG(seed, 119))
	reg := map[string][]string{"nvidia.com/gpu": {"GPU-0", "GPU-1", "GPU-2", "GPU-3"}, "intel.com/sriov_netdevice": {"0000:3b:02.0", "0000:3b:02.1"}}
	var entries []devcheckpoint.PodDevicesEntryV1
	for p := 0; p < 1+r.IntN(3); p++ {
		pod := uid(r)
		for _, res := range []string{"nvidia.com/gpu", "intel.com/sriov_netdevice"} {
			if r.IntN(2) == 0 {
				continue
			}
			ids := []string{reg[res][r.IntN(len(reg[res]))]}
			resp := make([]byte, 4+r.IntN(20))
			for i := range resp {
				resp[i] = byte(r.IntN(256))
			}
			entries = append(entries, devcheckpoint.PodDevicesEntryV1{PodUID: pod, ContainerName: fmt.Sprintf("c%d", p), ResourceName: res, DeviceIDs: ids, AllocResp: resp})
		}
	}
	if entries == nil {
		entries = []devcheckpoint.PodDevicesEntryV1{}
	}
	return devcheckpoint.NewV1(entries, reg)
}

func draWithHandles(seed uint64) *drastate.DRAManagerCheckpoint {
	r := rand.New(rand.NewPCG(seed, 130))
	cp := drastate.NewDRAManagerCheckpoint()
	for c := 0; c < 1+r.IntN(3); c++ {
		driver := []string{"gpu.resource.example.com", "test-driver.cdi.k8s.io"}[r.IntN(2)]
		st := drastate.ClaimInfoState{
			DriverName: driver, ClassName: "class-" + fmt.Sprint(c), ClaimUID: types.UID(uid(r)), ClaimName: fmt.Sprintf("claim-%d", c), Namespace: "default",
			PodUIDs:         sets.New(uid(r)),
			ResourceHandles: []resourcev1alpha2.ResourceHandle{{DriverName: driver, Data: fmt.Sprintf(`{"gpus": %d}`, 1+r.IntN(4))}},
			CDIDevices:      map[string][]string{driver: {fmt.Sprintf("%s/gpu=%d", driver, r.IntN(8))}},
		}
		cp.Entries = append(cp.Entries, st)
	}
	return cp
}

func cases() []legacyCase {
	var cs []legacyCase
	add := func(c legacyCase) { cs = append(cs, c) }
	for i := uint64(0); i < 2; i++ {
		add(legacyCase{File: fmt.Sprintf("device/legacy-v1.30.0-device-v1-%d.json", i), Kind: "device", Format: "v1",
			Writer: "kubelet " + release + " (*checkpoint.DataV1).MarshalCheckpoint (the kubelet 1.19 layout and checksum)", data: must(deviceV1(30 + i).MarshalCheckpoint())})
	}
	add(legacyCase{File: "device/legacy-v1.30.0-device-v1-empty.json", Kind: "device", Format: "v1",
		Writer: "kubelet " + release + " (*checkpoint.DataV1).MarshalCheckpoint (the kubelet 1.19 layout and checksum)",
		data:   must(devcheckpoint.NewV1([]devcheckpoint.PodDevicesEntryV1{}, map[string][]string{}).MarshalCheckpoint())})
	for i := uint64(0); i < 2; i++ {
		add(legacyCase{File: fmt.Sprintf("dra/legacy-v1.30.0-dra-spew-handles-%d.json", i), Kind: "dra", Format: "spew-v1",
			Writer: "kubelet " + release + " (*state.DRAManagerCheckpoint).MarshalCheckpoint (with ResourceHandles)", data: must(draWithHandles(40 + i).MarshalCheckpoint())})
	}
	add(legacyCase{File: "dra/legacy-v1.30.0-dra-spew-empty.json", Kind: "dra", Format: "spew-v1",
		Writer: "kubelet " + release + " (*state.DRAManagerCheckpoint).MarshalCheckpoint (no entries)", data: must(drastate.NewDRAManagerCheckpoint().MarshalCheckpoint())})
	add(legacyCase{File: "dra/legacy-v1.30.0-dra-spew-no-handles-upstream.json", Kind: "dra", Format: "spew-v1",
		Writer: "upstream unit test vector, k8s.io/kubernetes " + release + " pkg/kubelet/cm/dra/state/state_checkpoint_test.go TestOldCheckpointRestore (written without ResourceHandles)",
		data:   []byte(`{"version":"v1","entries":[{"DriverName":"test-driver.cdi.k8s.io","ClassName":"class-name","ClaimUID":"067798be-454e-4be4-9047-1aa06aea63f7","ClaimName":"example","Namespace":"default","PodUIDs":{"139cdb46-f989-4f17-9561-ca10cfb509a6":{}},"CDIDevices":{"test-driver.cdi.k8s.io":["example.com/example=cdi-example"]}}],"checksum":153446146}`)})
	add(legacyCase{File: "dra/legacy-v1.30.0-dra-spew-handles-upstream.json", Kind: "dra", Format: "spew-v1",
		Writer: "upstream unit test vector, k8s.io/kubernetes " + release + " pkg/kubelet/cm/dra/state/state_checkpoint_test.go TestCheckpointGetOrCreate (one claim, resource handles)",
		data:   []byte(`{"version":"v1","entries":[{"DriverName":"test-driver.cdi.k8s.io","ClassName":"class-name","ClaimUID":"067798be-454e-4be4-9047-1aa06aea63f7","ClaimName":"example","Namespace":"default","PodUIDs":{"139cdb46-f989-4f17-9561-ca10cfb509a6":{}},"ResourceHandles":[{"driverName":"test-driver.cdi.k8s.io","data":"{\"a\": \"b\"}"}],"CDIDevices":{"test-driver.cdi.k8s.io":["example.com/example=cdi-example"]}}],"checksum":113577689}`)})
	add(legacyCase{File: "dra/legacy-v1.30.0-dra-spew-bad-checksum-upstream.json", Kind: "dra", Format: "spew-v1", Tamper: "upstream's invalid-checksum case",
		Writer: "upstream unit test vector, k8s.io/kubernetes " + release + " pkg/kubelet/cm/dra/state/state_checkpoint_test.go TestCheckpointGetOrCreate (\"Restore checkpoint - invalid checksum\")",
		data:   []byte(`{"version":"v1","entries":[{"DriverName":"test-driver.cdi.k8s.io","ClassName":"class-name","ClaimUID":"067798be-454e-4be4-9047-1aa06aea63f7","ClaimName":"example","Namespace":"default","PodUIDs":{"139cdb46-f989-4f17-9561-ca10cfb509a6":{}},"CDIDevices":{"test-driver.cdi.k8s.io":["example.com/example=cdi-example"]}}],"checksum":1988120168}`)})
	return cs
}

// acceptedBy runs kubelet v1.30.0's restore path for the case: the device
// manager's readCheckpoint (current layout, then the 1.19 one) and the DRA
// state's GetOrCreate.
func acceptedBy(t *testing.T, c legacyCase) (bool, error) {
	dir := t.TempDir()
	name := "state"
	if err := os.WriteFile(filepath.Join(dir, name), c.data, 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	switch c.Kind {
	case "device":
		var m checkpointmanager.CheckpointManager
		if m, err = checkpointmanager.NewCheckpointManager(dir); err == nil {
			if err = m.GetCheckpoint(name, devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string))); err != nil {
				err = m.GetCheckpoint(name, devcheckpoint.NewV1(make([]devcheckpoint.PodDevicesEntryV1, 0), make(map[string][]string)))
			}
		}
	case "dra":
		var st interface {
			GetOrCreate() (drastate.ClaimInfoStateList, error)
		}
		if st, err = drastate.NewCheckpointState(dir, name); err == nil {
			_, err = st.GetOrCreate()
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
