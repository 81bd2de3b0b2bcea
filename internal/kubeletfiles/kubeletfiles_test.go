package kubeletfiles

import (
	"testing"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
)

func TestNames(t *testing.T) {
	assert.Equal(t, "device-plugins/kubelet_internal_checkpoint", PathOf(statefile.KindDevice))
	assert.Equal(t, "kubelet_internal_checkpoint", NameOf(statefile.KindDevice))
	assert.Equal(t, "cpu_manager_state", NameOf(statefile.KindCPU))
	assert.True(t, IsCheckpointName("dra_manager_state"))
	assert.False(t, IsCheckpointName("config.yaml"))
	assert.Empty(t, PathOf(statefile.Kind("nope")))
}
