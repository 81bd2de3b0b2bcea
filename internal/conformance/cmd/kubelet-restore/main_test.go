package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"

	"github.com/numascope/numascope/internal/conformance"
)

func TestRun(t *testing.T) {
	d := memstate.MemoryManagerCheckpointData{PolicyName: "Static", MachineState: memstate.NUMANodeMap{0: {Cells: []int{0}, MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{
		v1.ResourceMemory: {TotalMemSize: 4 << 30, Allocatable: 4 << 30, Free: 4 << 30},
	}}}, Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}}
	good, err := conformance.MarshalMemory(d, "v3")
	require.NoError(t, err)
	bad := bytes.Replace(good, []byte(`"dataChecksum":`), []byte(`"dataChecksum":1`), 1)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"good": good, "bad": bad} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "memory_manager_state"), data, 0o600))
	}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"accepted", []string{"-kind", "memory", filepath.Join(dir, "good")}, 0, "1 of 1 accepted\n"},
		{"one refused", []string{filepath.Join(dir, "good"), filepath.Join(dir, "bad")}, 1, "1 of 2 accepted\n"},
		{"no directory", nil, 2, ""},
		{"unknown kind", []string{"-kind", "dra", filepath.Join(dir, "good")}, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, c.code, run(c.args, &out, &errOut), "exit code (stderr %q)", errOut.String())
			assert.Equal(t, c.stdout, out.String())
		})
	}
}
