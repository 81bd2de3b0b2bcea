package statefile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The kubelet's default paths of its checkpoints (cpumanager,
// memorymanager, devicemanager with pluginapi.DevicePluginPath, dra).
func TestKindPaths(t *testing.T) {
	want := map[Kind]string{
		KindCPU:    "/var/lib/kubelet/cpu_manager_state",
		KindMemory: "/var/lib/kubelet/memory_manager_state",
		KindDevice: "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint",
		KindDRA:    "/var/lib/kubelet/dra_manager_state",
	}
	assert.Equal(t, []Kind{KindCPU, KindMemory, KindDevice, KindDRA}, Kinds())
	for _, k := range Kinds() {
		assert.Equal(t, want[k], k.Path(), k)
		assert.Equal(t, filepath.Base(want[k]), k.FileName(), k)
		assert.Equal(t, filepath.FromSlash(want[k]), k.PathIn(filepath.FromSlash("/var/lib/kubelet")), k)
		got, ok := KindOfFileName(k.FileName())
		assert.True(t, ok, k)
		assert.Equal(t, k, got)
	}
	assert.Equal(t, filepath.Join("device-plugins", "kubelet_internal_checkpoint"), KindDevice.PathIn(""))
	_, ok := KindOfFileName("config.yaml")
	assert.False(t, ok)
	for _, s := range []string{Kind("nope").Path(), Kind("nope").FileName(), Kind("nope").PathIn("/x")} {
		assert.Empty(t, s)
	}
}
