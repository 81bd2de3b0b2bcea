package diagnose

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReservationStartFailure reads the start-up errors of the CPU and
// memory managers' reservation checks, built from the kubelet's format
// strings, as printed by klog text (quoted with %q) and inside a
// structured record's err="..." (the quotes escaped).
func TestReservationStartFailure(t *testing.T) {
	total := fmt.Sprintf("[memorymanager] the total amount %q of type %q is not equal to the value %q determined by Node Allocatable feature", "1Gi", "memory", "1124Mi")
	escaped := strconv.Quote("start memory manager error: " + total)
	for _, tc := range []struct {
		name, text, code, title string
	}{
		{"memory total, klog text", "Failed to start ContainerManager " + total, CodeReservedMemoryMismatch,
			"The kubelet will not start: reservedMemory adds up to 1Gi of memory, but Node Allocatable reserves 1124Mi"},
		{"memory total, structured err", `"Failed to start ContainerManager" err=` + escaped, CodeReservedMemoryMismatch,
			"The kubelet will not start: reservedMemory adds up to 1Gi of memory, but Node Allocatable reserves 1124Mi"},
		{"hugepages total", fmt.Sprintf("the total amount %q of type %q is not equal to the value %q determined by Node Allocatable feature", "2Gi", "hugepages-1Gi", "0"), CodeReservedMemoryMismatch,
			"The kubelet will not start: reservedMemory adds up to 2Gi of hugepages-1Gi, but Node Allocatable reserves 0"},
		{"NUMA node that does not exist", "start memory manager error: the reserved memory configuration references a NUMA node 3 that does not exist on this machine", CodeReservedMemoryMismatch,
			"The kubelet will not start: reservedMemory names NUMA node 3, which this machine does not have"},
		{"duplicate entry", `invalid configuration: the reserved memory has a duplicate value for NUMA node 0 and resource "memory"`, CodeReservedMemoryMismatch,
			"The kubelet will not start: reservedMemory names the same NUMA node and resource twice"},
		{"static CPU policy without reservation", "start cpu manager error: [cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero", CodeReservationMissing,
			"The kubelet will not start: the static CPU manager needs CPUs reserved for the system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := reservationStartFailure(tc.text, nil)
			if assert.True(t, ok, "recognised") {
				assert.Equal(t, tc.code, f.Code, "code")
				assert.Equal(t, tc.title, f.Title, "title")
				assert.NotEmpty(t, f.Remedy, "remedy")
			}
		})
	}
	_, ok := reservationStartFailure("start cpu manager error: could not restore state from checkpoint: checkpoint is corrupted", nil)
	assert.False(t, ok, "another start-up error is not a reservation failure")
}
