package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckpointKind(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          statefile.Kind
	}{
		{"memory", `{"policyName":"Static","machineState":{}}`, statefile.KindMemory},
		{"cpu", `{"policyName":"static","defaultCpuSet":"0-3"}`, statefile.KindCPU},
		{"device", `{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{}},"Checksum":1}`, statefile.KindDevice},
		{"machineState in a device checkpoint", `{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{"machineState":[]}},"Checksum":1}`, statefile.KindDevice},
		{"machineState nested in a cpu file", `{"policyName":"none","defaultCpuSet":"","checksum":1,"x":{"machineState":{}}}`, ""},
		{"both keys", `{"policyName":"Static","machineState":{},"defaultCpuSet":"0-3","checksum":1}`, ""},
		{"dra", `{"Data":"{\"kind\":\"DRACheckpoint\",\"ClaimInfoStateList\":null}","Checksum":1}`, ""},
		{"keys escaped", `{"Data":"{\"policyName\":\"Static\",\"machineState\":{}}","Checksum":1}`, ""},
		{"not JSON", "machineState: yes", ""},
		{"a key past the first 64 KiB", `{"policyName":"Static",` + strings.Repeat(" ", sniffHead) + `"machineState":{}}`, ""},
		{"empty", "", ""},
	} {
		assert.Equal(t, tc.want, CheckpointKind([]byte(tc.content)), tc.name)
	}
}

func TestMayBeCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          bool
	}{
		{"truncated JSON", `{"policyName": "static", "defaultCpuSet": `, true},
		{"commented", "# cpu state from node a\n{\"policyName\": \"none\", \"defaultCpuSet\": \"\", \"checksum\": 1}", true},
		{"YAML", "policyName: static\n", true},
		{"YAML by yq", "policyName: Static\nmachineState:\n  \"0\":\n    numberOfAssignments: 0\nchecksum: 1\n", true},
		{"prose", "The node was rebooted on Monday.", false},
		{"prose naming a member", "the checksum of machineState changed after the policyName edit", false},
		{"other YAML", "apiVersion: v1\nkind: ConfigMap\n", false},
		{"other JSON", `{"hello": "world"}`, false},
		{"filler", strings.Repeat("x", 3*sniffHead), false},
		{"YAML cut at the head", "policyName: static\n" + strings.Repeat("a: b\n", sniffHead), true},
		{"empty", "", false},
	} {
		assert.Equal(t, tc.want, MayBeCheckpoint([]byte(tc.content)), tc.name)
	}
}

// FuzzMayBeCheckpoint: the YAML reading of a head never panics and stays
// within the budget, and whatever Looks takes is taken.
func FuzzMayBeCheckpoint(f *testing.F) {
	for _, s := range []string{"policyName: static\n", fixCPUState, "{", "- [a, {b: c}]\n", "&a [*a, *a]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			got := MayBeCheckpoint(data)
			if _, ok := statefile.Looks(data[:min(len(data), sniffHead)]); ok && !got {
				t.Fatalf("statefile.Looks takes %q, MayBeCheckpoint does not", data)
			}
			CheckpointKind(data)
		})
	})
}

func TestStateFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
		return p
	}
	cpu := write("cpu_manager_state")
	dev := write("device-plugins/kubelet_internal_checkpoint")
	write("config.yaml")
	fifo := filepath.Join(root, "dra_manager_state")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	type row struct {
		Kind    statefile.Kind
		Path    string
		Regular bool
	}
	rows := func(files []StateFile) []row {
		var out []row
		for _, f := range files {
			require.NoError(t, f.Err, f.Path)
			out = append(out, row{f.Kind, f.Path, f.Info.Mode().IsRegular()})
		}
		return out
	}
	assert.Empty(t, cmp.Diff([]row{{statefile.KindCPU, cpu, true}, {statefile.KindDevice, dev, true}, {statefile.KindDRA, fifo, false}}, rows(StateFiles(root))),
		"the root directory (-want +got)")
	assert.Empty(t, cmp.Diff([]row{{statefile.KindDevice, dev, true}}, rows(StateFiles(filepath.Join(root, "device-plugins")))),
		"the device-plugins directory (-want +got)")
	assert.Empty(t, StateFiles(t.TempDir()), "an empty directory")
	if os.Geteuid() != 0 {
		locked := filepath.Join(t.TempDir(), "locked")
		require.NoError(t, os.Mkdir(locked, 0o000))
		files := StateFiles(locked)
		if assert.NotEmpty(t, files, "a directory that may not be searched") {
			assert.ErrorIs(t, files[0].Err, os.ErrPermission)
		}
	}
}
