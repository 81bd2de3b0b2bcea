package evidence

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckpointCopyName(t *testing.T) {
	for name, want := range map[string]bool{
		"cpu_manager_state.txt":                  true,
		"memory_manager_state.json":              true,
		"kubelet_internal_checkpoint.paste":      true,
		"cpu_manager_state":                      false,
		"notes.txt":                              false,
		"cpu_manager_state_backup":               false,
		"dra_manager_state.2026-12-01.annotated": true,
	} {
		assert.Equal(t, want, isCheckpointCopyName(name), name)
	}
}
