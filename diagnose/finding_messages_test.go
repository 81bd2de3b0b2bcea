package diagnose

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Messages built from the kubelet's format strings (evidence-formats.md §4).
var (
	msgTAE        = "Resources cannot be allocated with Topology locality"
	msgTAEOld     = "Resources cannot be allocated with Topology Locality"
	msgSMTMulti   = fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", 3, 2)
	msgSMTPhys    = fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", 2, 4, 2)
	msgSMTPhys1   = fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", 3, 8, 1)
	msgSMTWrong   = fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", 4, 2)
	uae           = func(inner string) string { return fmt.Sprintf("Allocate failed due to %v, which is unexpected", inner) }
	msgUpdatePlug = fmt.Sprintf("Update plugin resources failed due to %v, which is unexpected.", "requested number of devices unavailable for example.com/fpga. Requested: 1, Available: 0")
)

// runOnEvents diagnoses one Warning event per message, without a reason:
// the kubelet's message as people paste it.
func runOnEvents(t *testing.T, msgs ...string) Report {
	t.Helper()
	ev := &evidence.Events{Source: "events.txt", Format: "table"}
	for i, m := range msgs {
		ev.Events = append(ev.Events, evidence.Event{Line: i + 1, Type: "Warning", Object: fmt.Sprintf("pod/p%d", i), Message: m})
	}
	rep, err := Run(context.Background(), &evidence.Set{Events: []*evidence.Events{ev}})
	require.NoError(t, err)
	return rep
}

func TestBareMessageFindings(t *testing.T) {
	tests := []struct {
		name, msg, code, cause string
		// texts must all appear in the explanation or remedy; absent must not.
		texts, absent []string
	}{
		{"tae", msgTAE, CodeTopologyAffinityError, "", []string{"Topology Manager"}, nil},
		{"tae 1.16", msgTAEOld, CodeTopologyAffinityError, "", nil, nil},
		{"smt not multiple", msgSMTMulti, CodeSMTAlignmentError, "", []string{"multiple of 2", "for example 4"}, nil},
		{"smt physical", msgSMTPhys, CodeSMTAlignmentError, "", []string{"sibling"}, nil},
		{"smt one thread per core", msgSMTPhys1, CodeSMTAlignmentError, "", []string{"1 CPU per core", "Free at least 5 CPUs"}, []string{"sibling", "cores of"}},
		{"smt wrong form, one thread per core", "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 1", CodeSMTAlignmentError, "", []string{"yet 3 is one", "with 1 CPU per core"}, []string{"sibling", "for example"}},
		{"smt wrong form", msgSMTWrong, CodeSMTAlignmentError, "", []string{"yet 4 is one", "kubernetes/kubernetes#127959"}, []string{"for example"}},
		{"cpus", uae("not enough cpus available to satisfy request: requested=8, available=6"), CodeUnexpectedAdmission, evidence.AllocCPUs, []string{"8 requested, 6 available", "init containers", "ttlSecondsAfterFinished"}, nil},
		{"memory extend", uae("[memorymanager] failed to find NUMA nodes to extend the current topology hint"), CodeMemoryGroupExtension, evidence.AllocMemoryExtend, []string{"NUMA group"}, nil},
		{"memory default", uae("[memorymanager] failed to find the default preferred hint"), CodeUnexpectedAdmission, evidence.AllocMemoryDefault, []string{"no NUMA node", "memory_manager_state"}, []string{"no preference"}},
		{"memory no affinity", uae("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available"), CodeUnexpectedAdmission, evidence.AllocMemoryNoAffinity, []string{"found none"}, nil},
		{"memory violates", uae("[memorymanager] preferred hint violates NUMA node allocation"), CodeMemoryGroupExtension, evidence.AllocMemoryViolates, []string{"never both", "from 1.32"}, nil},
		{"devices short", uae("requested number of devices unavailable for nvidia.com/gpu. Requested: 2, Available: 1"), CodeDevicesUnavailable, evidence.AllocDevicesShort, []string{"had 1 healthy", "needs 2"}, nil},
		{"update plugin", msgUpdatePlug, CodeDevicesUnavailable, evidence.AllocDevicesShort, []string{"example.com/fpga"}, nil},
		{"unregistered", uae("cannot allocate unregistered device intel.com/qat"), CodeDevicesUnavailable, evidence.AllocDeviceUnregister, []string{"no device plugin has registered"}, nil},
		{"endpoint", uae("endpoint not found in cache for a registered resource: nvidia.com/gpu"), CodeDevicesUnavailable, evidence.AllocDeviceEndpoint, []string{"registers again", "start-up race"}, nil},
		{"unhealthy", uae("no healthy devices present; cannot allocate unhealthy devices squat.ai/zigbee"), CodeUnexpectedAdmission, evidence.AllocDeviceUnhealthy, []string{"not scheduling", "kubernetes/kubernetes#125579"}, nil},
		{"lost device", uae("previously allocated devices are no longer healthy; cannot allocate unhealthy devices nvidia.com/gpu"), CodeUnexpectedAdmission, evidence.AllocDeviceUnhealthy, []string{"hardware", "nvidia-smi"}, []string{"re-register"}},
		{"plugin rpc", uae("rpc error: code = Unknown desc = device lost"), CodeUnexpectedAdmission, evidence.AllocDevicePluginRPC, []string{"gRPC error: device lost", "not scheduling"}, nil},
		{"unknown inner", uae("something else"), CodeUnexpectedAdmission, "", []string{"something else"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := runOnEvents(t, tc.msg)
			require.Len(t, rep.Findings, 1, "findings: %v", codes(rep))
			f := rep.Findings[0]
			assert.Equal(t, tc.code, f.Code)
			assert.Equal(t, statefile.SeverityError, f.Severity)
			assert.Equal(t, tc.cause, f.Cause)
			assert.Equal(t, "p0", f.Pod)
			text := f.Title + " " + f.Explanation + " " + f.Remedy
			for _, s := range tc.texts {
				assert.Contains(t, text, s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, text, s)
			}
		})
	}
}

// TestReasonWithoutMessage: a reason alone (a `kubectl get pods` STATUS)
// gets a finding that says the message carries the cause.
func TestReasonWithoutMessage(t *testing.T) {
	for _, reason := range []string{CodeTopologyAffinityError, CodeSMTAlignmentError, CodeUnexpectedAdmission} {
		t.Run(reason, func(t *testing.T) {
			ev := &evidence.Set{Pods: []*topomgr.Pod{{Name: "p", Namespace: "ns", Phase: "Failed", Reason: reason, Source: "pods.txt"}}}
			rep, err := Run(context.Background(), ev)
			require.NoError(t, err)
			require.Len(t, rep.Findings, 1, "%v", codes(rep))
			f := rep.Findings[0]
			assert.Equal(t, reason, f.Code)
			assert.Equal(t, "ns/p", f.Pod)
			assert.NotEmpty(t, f.Remedy)
		})
	}
}

// TestLogSignalsAlone: a kubelet log line that carries an admission error
// is a finding even when it is the only evidence.
func TestLogSignalsAlone(t *testing.T) {
	tests := []struct {
		name, line, code, cause, pod string
	}{
		{"memory extend", `E1129 15:00:00.000200      61 memory_manager.go:295] "Allocate error" err="[memorymanager] failed to find NUMA nodes to extend the current topology hint" pod="cache/redis-0" containerName="redis"`,
			CodeMemoryGroupExtension, evidence.AllocMemoryExtend, "cache/redis-0"},
		{"memory default hint", `E1129 15:00:00.000200      61 memory_manager.go:295] "Allocate error" err="[memorymanager] failed to find the default preferred hint" pod="db/pg-0" containerName="pg"`,
			CodeUnexpectedAdmission, evidence.AllocMemoryDefault, "db/pg-0"},
		{"cpus", `E1129 15:00:00.000200      61 cpu_manager.go:256] "Allocate error" err="not enough cpus available to satisfy request: requested=8, available=6" pod="batch/crunch" containerName="main"`,
			CodeUnexpectedAdmission, evidence.AllocCPUs, "batch/crunch"},
		{"devices", `E1129 16:00:01.000000    9 manager.go:800] "Allocate error" err="requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0" pod="ml/infer-0"`,
			CodeDevicesUnavailable, evidence.AllocDevicesShort, "ml/infer-0"},
		{"smt event", `I1129 14:00:00.100000    5150 event.go:389] "Event occurred" object="perf/bench-7" kind="Pod" type="Warning" reason="SMTAlignmentError" message="SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"`,
			CodeSMTAlignmentError, "", "perf/bench-7"},
		{"unnamed", `E1129 15:00:00.000200      61 policy_static.go:300] unable to allocate: not enough cpus available to satisfy request`,
			CodeUnexpectedAdmission, evidence.AllocCPUs, ""}, // the evidence names no pod: "pod": null
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := &evidence.Set{}
			require.NoError(t, ev.AddLog("kubelet.log", []byte(tc.line+"\n")))
			rep, err := Run(context.Background(), ev)
			require.NoError(t, err)
			var got *Finding
			for i := range rep.Findings {
				if rep.Findings[i].Severity == statefile.SeverityError {
					require.Nil(t, got, "one error finding: %v", codes(rep))
					got = &rep.Findings[i]
				}
			}
			require.NotNil(t, got, "findings: %v", codes(rep))
			assert.Equal(t, tc.code, got.Code)
			assert.Equal(t, tc.cause, got.Cause)
			assert.Equal(t, tc.pod, got.Pod)
			require.NotEmpty(t, got.Evidence)
			assert.Equal(t, 1, got.Evidence[0].Line)
		})
	}
}

// TestMemoryHintsEmpty: the Static memory policy's hints={} for a
// Guaranteed pod means no NUMA set can hold it, never "no preference".
func TestMemoryHintsEmpty(t *testing.T) {
	log := strings.Join([]string{
		`I1129 10:00:00.101000    1234 scope_container.go:75] "TopologyHints" hints={} pod="db/pg-0" containerName="pg"`,
		`I1129 10:00:00.101100    1234 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":1,"Preferred":true},{"NUMANodeAffinity":3,"Preferred":false}]} pod="db/pg-0" containerName="pg"`,
		`I1129 10:00:00.101200    1234 scope_container.go:75] "TopologyHints" hints={} pod="db/pg-0" containerName="pg"`,
		`I1129 10:00:00.101300    1234 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":1,"Preferred":true} pod="db/pg-0" containerName="pg"`,
		`I1129 10:00:00.101400    1234 scope_container.go:61] "Topology Affinity" bestHint={"NUMANodeAffinity":1,"Preferred":true} pod="db/pg-0" containerName="pg"`,
		`I1129 10:00:00.101500    1234 allocation_manager.go:660] "Pod admission denied" podUID="11111111-0000-4000-8000-000000000001" pod="db/pg-0" reason="UnexpectedAdmissionError" message="Allocate failed due to [memorymanager] failed to find the default preferred hint, which is unexpected" operation="add"`,
	}, "\n")
	ev := &evidence.Set{}
	require.NoError(t, ev.AddLog("kubelet.log", []byte(log)))
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%v", codes(rep))
	f := rep.Findings[0]
	assert.Equal(t, evidence.AllocMemoryDefault, f.Cause)
	assert.Contains(t, f.Explanation, "hints={}")
	assert.Contains(t, f.Explanation, "no NUMA node or set of NUMA nodes can hold the request")
	assert.NotContains(t, f.Explanation, "no preference")
	lines := []int{}
	for _, r := range f.Evidence {
		lines = append(lines, r.Line)
	}
	assert.Contains(t, lines, 3, "the hints={} line is evidence")
	assert.Contains(t, providerText(evidence.ProviderHints{Provider: "memory", NoPreference: true, EmptyMap: true}), "no NUMA node or set of NUMA nodes can hold it")
}

func TestKubeletRange(t *testing.T) {
	tests := []struct {
		name string
		ev   func(t *testing.T) *evidence.Set
		want string
	}{
		{"nothing", func(t *testing.T) *evidence.Set { return &evidence.Set{} }, ""},
		{"1.16 reason", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Pods: []*topomgr.Pod{{Name: "a", Reason: "Topology Affinity Error", Message: msgTAEOld, Source: "pod.yaml"}}}
		}, "v1.16 to v1.17"},
		{"status prefix", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Pods: []*topomgr.Pod{{Name: "a", Reason: "TopologyAffinityError", Message: "Pod was rejected: " + msgTAE, Source: "pod.yaml"}}}
		}, "v1.26 or later"},
		{"status without prefix", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Pods: []*topomgr.Pod{{Name: "a", Reason: "TopologyAffinityError", Message: msgTAE, Source: "pod.yaml"}}}
		}, "v1.25 or older"},
		{"smt wrong form", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Pods: []*topomgr.Pod{{Name: "a", Reason: "SMTAlignmentError", Message: "Pod was rejected: " + msgSMTWrong, Source: "pod.yaml"}}}
		}, "v1.27 to v1.31"},
		{"kubelet version line", func(t *testing.T) *evidence.Set {
			ev := &evidence.Set{}
			require.NoError(t, ev.AddLog("kubelet.log", []byte(`I1129 10:00:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="v1.29.4"`+"\n")))
			return ev
		}, "v1.29"},
		{"admission denied record", func(t *testing.T) *evidence.Set {
			ev := &evidence.Set{}
			require.NoError(t, ev.AddLog("kubelet.log", []byte(`I1129 10:00:00.000000    9 kubelet.go:2400] "Pod admission denied" podUID="u" pod="a/b" reason="TopologyAffinityError" message="`+msgTAE+`"`+"\n")))
			return ev
		}, "v1.31 or later"},
		{"config field", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Config: &topomgr.KubeletConfig{Source: "config.yaml", Set: []string{"cpuManagerPolicyOptions"}}}
		}, "v1.22 or later"},
		{"removed feature gate", func(t *testing.T) *evidence.Set {
			return &evidence.Set{Config: &topomgr.KubeletConfig{Source: "config.yaml", FeatureGates: map[string]bool{"TopologyManager": true, "CPUManagerPolicyAlphaOptions": true}}}
		}, "v1.22 to v1.29"},
		{"cpu v1 checkpoint", func(t *testing.T) *evidence.Set {
			return &evidence.Set{States: []*statefile.File{{Name: "cpu_manager_state", Kind: statefile.KindCPU, Format: statefile.FormatV1}}}
		}, "v1.17 or older"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &diagnosis{ev: tc.ev(t), report: &Report{}}
			got := d.kubeletRange()
			if tc.want == "" {
				assert.False(t, got.known(), "%s", got)
				return
			}
			assert.Equal(t, tc.want, rangeText(got.min, got.max), "%s", got)
			assert.True(t, strings.HasPrefix(got.String(), tc.want+" ("), got.String())
		})
	}
}

func TestKubeletRangeConflict(t *testing.T) {
	var r kubeletRange
	r.narrow(31, 0, "a")
	r.narrow(0, 20, "b")
	assert.Equal(t, 31, r.min)
	assert.Zero(t, r.max)
	assert.Contains(t, r.String(), "disagree")
	assert.True(t, r.within(31, 0))
	assert.False(t, r.within(16, 30))
	assert.True(t, r.overlaps(22, 36))
	assert.False(t, r.overlaps(16, 17))
}

// TestKnownBugOnFinding: a finding in a release range with a known bug says
// so and tells to upgrade; outside it says nothing.
func TestKnownBugOnFinding(t *testing.T) {
	rep := runOnEvents(t, msgSMTWrong)
	require.Len(t, rep.Findings, 1)
	f := rep.Findings[0]
	assert.Equal(t, []string{"kubernetes/kubernetes#127959"}, f.KnownBugs)
	assert.True(t, strings.HasPrefix(f.Remedy, "This is a known kubelet bug fixed in v1.32.0 (kubernetes/kubernetes#127959); upgrade"), f.Remedy)
	assert.Equal(t, "v1.27 to v1.31", rangeText(minMax(rep.Kubelet)))

	rep = runOnEvents(t, msgSMTMulti)
	require.Len(t, rep.Findings, 1)
	assert.Empty(t, rep.Findings[0].KnownBugs)
	assert.NotContains(t, rep.Findings[0].Remedy, "known kubelet bug")
}

// minMax reads back the range of a report's kubelet field.
func minMax(s string) (int, int) {
	var a, b int
	if _, err := fmt.Sscanf(s, "v1.%d to v1.%d", &a, &b); err == nil {
		return a, b
	}
	return 0, 0
}

// TestControlsHaveNoErrors: a clean log and finished pods are not errors.
func TestControlsHaveNoErrors(t *testing.T) {
	clean := strings.Join([]string{
		`I1129 10:00:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="v1.31.2"`,
		`I1129 10:00:00.100000    1234 topology_manager.go:138] "Creating topology manager with policy per scope" topologyPolicyName="single-numa-node" topologyScopeName="container"`,
		`I1129 10:00:01.000000    1234 manager.go:250] "Device plugin connected" resourceName="nvidia.com/gpu"`,
		`I1129 10:00:02.101200    1234 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":1,"Preferred":true}]} pod="default/ok" containerName="app"`,
		`I1129 10:00:02.101300    1234 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":1,"Preferred":true} pod="default/ok" containerName="app"`,
		`I1129 10:00:02.101400    1234 scope_container.go:61] "Topology Affinity" bestHint={"NUMANodeAffinity":1,"Preferred":true} pod="default/ok" containerName="app"`,
		`E1129 10:00:03.000000    1234 remote_runtime.go:400] "ContainerStatus from runtime service failed" err="rpc error: code = NotFound desc = an error occurred when try to find container"`,
		`I1129 10:00:04.000000    1234 topology_hints.go:71] "Unable to generate topology hints: requested number of devices unavailable" resourceName="nvidia.com/gpu" pod="other/x" containerName="y" request=2 available=1`,
	}, "\n")
	ev := &evidence.Set{}
	require.NoError(t, ev.AddLog("kubelet.log", []byte(clean)))
	ev.Pods = []*topomgr.Pod{{Name: "job-1", Namespace: "batch", Phase: "Succeeded", Reason: "Completed", Source: "pods.txt", QOSClass: "BestEffort"}}
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	assert.Zero(t, rep.Summary.Errors, "%v", codes(rep))
	assert.Equal(t, "v1.31", rangeText(minMax2(rep.Kubelet)))
}

func minMax2(s string) (int, int) {
	var a int
	if _, err := fmt.Sscanf(s, "v1.%d", &a); err == nil {
		return a, a
	}
	return 0, 0
}

// TestMemoryHintsEmptyBeforeTAE: hints={} from the memory manager, then a
// TopologyAffinityError: the memory could be placed nowhere.
func TestMemoryHintsEmptyBeforeTAE(t *testing.T) {
	log := strings.Join([]string{
		`I1129 10:00:00.101000    1234 scope_container.go:75] "TopologyHints" hints={} pod="db/pg-1" containerName="pg"`,
		`I1129 10:00:00.101100    1234 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":3,"Preferred":false}]} pod="db/pg-1" containerName="pg"`,
		`I1129 10:00:00.101200    1234 scope_container.go:75] "TopologyHints" hints={} pod="db/pg-1" containerName="pg"`,
		`I1129 10:00:00.101300    1234 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":3,"Preferred":false} pod="db/pg-1" containerName="pg"`,
		`I1129 10:00:00.101500    1234 kubelet.go:2400] "Pod admission denied" podUID="11111111-0000-4000-8000-000000000002" pod="db/pg-1" reason="TopologyAffinityError" message="` + msgTAE + `" operation="add"`,
	}, "\n")
	ev := &evidence.Set{}
	require.NoError(t, ev.AddLog("kubelet.log", []byte(log)))
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%v", codes(rep))
	f := rep.Findings[0]
	require.NotNil(t, f.TopologyAffinityError)
	assert.Equal(t, CauseInsufficientResources, f.TopologyAffinityError.Cause)
	assert.Contains(t, f.Explanation, "no NUMA set can hold it")
	assert.NotContains(t, f.Explanation, "no preference")
}
