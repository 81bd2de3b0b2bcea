package podresources_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/podresources"
)

// addFixtures seeds a fuzzer with every saved answer under testdata/offline
// whose name matches one of names (the committed corpus under
// testdata/fuzz adds hand-made edge cases).
func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		files, err := filepath.Glob(filepath.Join("testdata", "offline", "*", n))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// survives numascope's JSON form unchanged.
func FuzzDecode(f *testing.F) {
	addFixtures(f, "list.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			s, err := podresources.Decode(data)
			if err != nil {
				return
			}
			out, err := json.Marshal(s)
			require.NoError(t, err, "Marshal of a decoded snapshot")
			back, err := podresources.Decode(out)
			require.NoError(t, err, "numascope's own JSON does not decode:\n%s", out)
			require.Empty(t, cmp.Diff(s, back, equateEmpty), "round trip changed the snapshot (-first +second)")
			v := s.PerNUMA(podresources.CPUMap{0: 0, 1: 1})
			v.WriteText(discard{})
		})
	})
}

// FuzzDecodeAllocatable is FuzzDecode for GetAllocatableResources answers.
func FuzzDecodeAllocatable(f *testing.F) {
	addFixtures(f, "allocatable.json", "get_allocatable_resources.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			a, err := podresources.DecodeAllocatable(data)
			if err != nil {
				return
			}
			out, err := json.Marshal(a)
			require.NoError(t, err)
			back, err := podresources.DecodeAllocatable(out)
			require.NoError(t, err, "numascope's own JSON does not decode:\n%s", out)
			require.Empty(t, cmp.Diff(a, back, equateEmpty), "round trip changed the answer (-first +second)")
		})
	})
}

// FuzzDecodePod is FuzzDecode for Get answers.
func FuzzDecodePod(f *testing.F) {
	addFixtures(f, "get.json", "get-*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			p, err := podresources.DecodePod(data)
			if err != nil {
				return
			}
			out, err := json.Marshal(p)
			require.NoError(t, err)
			back, err := podresources.DecodePod(out)
			require.NoError(t, err, "numascope's own JSON does not decode:\n%s", out)
			require.Empty(t, cmp.Diff(p, back, equateEmpty), "round trip changed the pod (-first +second)")
		})
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// FuzzLoadFS loads a snapshot directory built from the input: the four
// files LoadFS reads (an empty one is left out), each of which the low mode
// bits turn into a FIFO, a device or a directory (chosen by the high bits). It checks that LoadFS never panics, never reads
// what is not a regular file, and that what it accepts is within the limits
// and survives numascope's JSON form.
func FuzzLoadFS(f *testing.F) {
	for _, form := range []string{"numascope", "protojson", "rte"} {
		dir := filepath.Join("testdata", "offline", form)
		read := func(name string) []byte {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil
			}
			return data
		}
		alloc := read("allocatable.json")
		if alloc == nil {
			alloc = read("get_allocatable_resources.json")
		}
		f.Add(read("list.json"), alloc, read("get-shop-db.json"), []byte{}, uint8(0))
	}
	f.Add([]byte(`{"pods":[]}`), []byte(`{}`), []byte(`{"podResources":{"name":"a","namespace":"n"}}`), []byte(`{"kind":"List","items":[]}`), uint8(1))
	names := []string{podresources.ListFile, podresources.AllocatableFile, podresources.GetFileName("shop", "db"), podresources.PodsFile}
	modes := []fs.FileMode{fs.ModeNamedPipe, fs.ModeDevice | fs.ModeCharDevice, fs.ModeDir}
	f.Fuzz(func(t *testing.T, list, alloc, get, pods []byte, bits uint8) {
		fuzzbudget.Run(t, func() {
			fsys := fstest.MapFS{}
			special := false
			for i, data := range [][]byte{list, alloc, get, pods} {
				if len(data) == 0 && bits&(1<<i) == 0 {
					continue
				}
				file := &fstest.MapFile{Data: data}
				if bits&(1<<i) != 0 {
					file = &fstest.MapFile{Mode: modes[int(bits>>4)%len(modes)]}
					special = special || file.Mode&fs.ModeDir == 0
				}
				fsys[names[i]] = file
			}
			s, err := podresources.LoadFS(fsys, podresources.WithPods(evidence.PodQOSClasses))
			if special {
				require.Error(t, err, "LoadFS accepted a snapshot holding a FIFO or a device")
			}
			if err != nil {
				if strings.Contains(err.Error(), "not a regular file") {
					require.ErrorIs(t, err, input.ErrNotRegular, "a refusal of a special file")
				}
				return
			}
			require.LessOrEqual(t, len(s.Pods), podresources.MaxPods, "pods of a loaded snapshot")
			_, err = json.Marshal(s)
			require.NoError(t, err, "Marshal of a loaded snapshot")
		})
	})
}
