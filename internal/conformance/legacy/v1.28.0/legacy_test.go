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
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"

	"github.com/numascope/numascope/internal/conformance/legacy/verdicts"
)

var update = flag.Bool("update", false, "rewrite this release's golden files in statefile/testdata/kubelet")

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

// draWithHandles is a DRA manager checkpoint of the 1.28 and 1.29 era:
// resource handles without structuredData, which 1.30 added.
func draWithHandles(seed uint64) *drastate.DRAManagerCheckpoint {
	r := rand.New(rand.NewPCG(seed, 128))
	cp := drastate.NewDRAManagerCheckpoint()
	for c := 0; c < 1+r.IntN(3); c++ {
		driver := []string{"gpu.resource.example.com", "test-driver.cdi.k8s.io"}[r.IntN(2)]
		cp.Entries = append(cp.Entries, drastate.ClaimInfoState{
			DriverName: driver, ClassName: "class-" + fmt.Sprint(c), ClaimUID: types.UID(uid(r)), ClaimName: fmt.Sprintf("claim-%d", c), Namespace: "default",
			PodUIDs:         sets.New(uid(r)),
			ResourceHandles: []resourcev1alpha2.ResourceHandle{{DriverName: driver, Data: fmt.Sprintf(`{"gpus": %d}`, 1+r.IntN(4))}},
			CDIDevices:      map[string][]string{driver: {fmt.Sprintf("%s/gpu=%d", driver, r.IntN(8))}},
		})
	}
	return cp
}

func cases(t *testing.T) []legacyCase {
	var cs []legacyCase
	for i := uint64(0); i < 2; i++ {
		data, err := draWithHandles(28 + i).MarshalCheckpoint()
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, legacyCase{File: fmt.Sprintf("dra/legacy-v1.28.0-dra-spew-handles-%d.json", i), Kind: "dra", Format: "spew-v1",
			Writer: "kubelet " + release + " (*state.DRAManagerCheckpoint).MarshalCheckpoint (with ResourceHandles, v1alpha2 without structuredData)", data: data})
	}
	return cs
}

// TestLegacyGolden writes (with -update) or checks this release's golden
// files, and proves each is accepted by this release's own restore path.
func TestLegacyGolden(t *testing.T) {
	cs := cases(t)
	for i := range cs {
		v := verdicts.RestoreIn(t, restore, cs[i].Kind, cs[i].data, cs[i].Policy)
		if !v.KubeletAccepts {
			t.Errorf("%s: kubelet %s refuses it: %s", cs[i].File, release, v.KubeletError)
		}
		cs[i].AcceptedByWriter = v.KubeletAccepts
		path := filepath.Join(verdicts.Dir, filepath.FromSlash(cs[i].File))
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
	path := filepath.Join(verdicts.Dir, "legacy-"+release+".json")
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
