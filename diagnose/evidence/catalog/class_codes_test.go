package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

// TestCodesDiagnoseKnows checks that the codes the table marks as
// diagnose's are codes package diagnose reports, and that the families the
// table defines do not take one of diagnose's names.
func TestCodesDiagnoseKnows(t *testing.T) {
	require.NoError(t, catalog.ClassesErr())
	known := map[string]bool{}
	for _, c := range []string{
		diagnose.CodeTopologyAffinityError, diagnose.CodeSMTAlignmentError, diagnose.CodeMemoryGroupExtension,
		diagnose.CodeDevicesUnavailable, diagnose.CodeUnexpectedAdmission, diagnose.CodeCorruptCheckpoint,
		diagnose.CodeCheckpointPolicyMismatch, diagnose.CodeMemoryStateReplay, diagnose.CodeNUMATotalsChanged,
		diagnose.CodeOfflineCPUs, diagnose.CodeTooManyNUMANodes, diagnose.CodePolicyNameCase, diagnose.CodeFractionalCPU,
		diagnose.CodeDeviceWithoutNUMA, diagnose.CodeDeviceCheckpointUnreadable, diagnose.CodeStaleStateEntry,
		diagnose.CodeTerminatedPodHoldsResources, diagnose.CodeUnexplainedNUMAGroup, diagnose.CodeCPUsHeldByFinishedInit,
		diagnose.CodeCPUsHeldByCompletedPod, diagnose.CodeKubeletStartFailed, diagnose.CodeEvidenceUnreadable,
		diagnose.CodePodAdmitted, diagnose.CodeHintNotPreferred, diagnose.CodeInvalidTopologyConfig,
		diagnose.CodeReservationMissing, diagnose.CodeReservedMemoryMismatch,
	} {
		known[c] = true
	}
	for _, c := range catalog.Codes() {
		if c.Diagnose {
			assert.True(t, known[c.Name], "%s is marked as a diagnose code but package diagnose has none of that name", c.Name)
		} else {
			assert.False(t, known[c.Name], "%s is a diagnose code: mark it diagnose", c.Name)
		}
	}
}
