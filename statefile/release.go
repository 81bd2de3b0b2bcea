package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/kubeversion"
)

// The kubelet releases whose restore code numascope follows: 1.28 to 1.37.
// Options.KubeletVersion picks one; "" is the newest. Between them the
// restore code changed at these releases (read in each release's
// pkg/kubelet/cm/{cpumanager,memorymanager,devicemanager,dra}/state,
// devicemanager/checkpoint and checkpointmanager, and proven with each
// release's own code by the modules in internal/conformance/legacy):
//
//   - cpu_manager_state: up to 1.35 the kubelet reads the v1 layout first
//     (checksum 0 skipped), then v2 (checksum 0 skipped); it has no v3 or v4.
//     1.36 reads v2 first (also hashed under the type name
//     CPUManagerCheckpointV2), then v1, and returns the v1 reader's error;
//     its error texts name CPUManagerCheckpointV1/V2. 1.37 reads v4, v3, v2
//     and no longer v1.
//   - memory_manager_state: up to 1.35 one layout (v1), whose checksum is
//     always checked (0 too); 1.36 skips a zero checksum; 1.37 adds v2 and v3.
//   - kubelet_internal_checkpoint: up to 1.30 the device manager falls back to
//     the flat (kubelet 1.19) layout when the current one fails; from 1.31 it
//     reads only the current one.
//   - dra_manager_state: 1.28 to 1.30 read the spew-checksum layout (1.28
//     and 1.29 hash resource handles without structuredData, 1.30 with it;
//     all three also accept the hash without resource handles); from 1.31 the
//     crc32 layout. The error texts change at 1.31 and 1.34; devices gain
//     ShareID at 1.35 and drivers skipNodeOperations at 1.37.
const (
	oldestKubeletMinor = kubeversion.Oldest
	newestKubeletMinor = kubeversion.Newest
)

// kubeletRelease is the minor number of a kubelet release 1.<minor>.
type kubeletRelease int

func (r kubeletRelease) String() string { return "1." + strconv.Itoa(int(r)) }

// parseKubeletVersion reads "1.30", "v1.30.4", "v1.30.4-gke.100" or the
// kubelet's own "Kubernetes v1.30.4"; "" is the newest release.
func parseKubeletVersion(s string) (kubeletRelease, error) {
	minor, err := kubeversion.Minor(s, oldestKubeletMinor, newestKubeletMinor, "the restore code")
	return kubeletRelease(minor), err
}

// applyRelease replaces the newest kubelet's verdict that the decoders put
// in f with the verdict of the release opts.KubeletVersion names, from what
// f reports (format, checksum layouts, state) and, where the older release
// decodes into other structs, from data. It returns an error only for a
// version it does not know.
func (f *checker) applyRelease(data []byte, opts Options) error {
	rel, err := parseKubeletVersion(opts.KubeletVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Name, err)
	}
	if rel == newestKubeletMinor {
		return nil
	}
	accepts, reason := f.KubeletAccepts, f.Reason
	switch f.Kind {
	case KindCPU:
		var assumed bool
		accepts, reason, assumed = f.cpuVerdict(rel, data, opts)
		if assumed {
			defer f.assumedPolicy(rel, KindCPU)
		}
	case KindMemory:
		var assumed bool
		accepts, reason, assumed = f.memoryVerdict(rel, data, opts)
		if assumed {
			defer f.assumedPolicy(rel, KindMemory)
		}
	case KindDevice:
		if !accepts && rel <= 30 && f.layoutMatched(layoutDevV1) {
			// readCheckpoint's fallback to the 1.19 layout
			accepts, reason = true, ""
		}
	case KindDRA:
		accepts, reason = f.draVerdict(rel, data)
	}
	newest := f.KubeletAccepts
	// Checksum.Valid is this release's checksum verification: a release
	// that accepts the file verified (or, for a zero checksum, skipped)
	// it; one that calls the file corrupted did not.
	switch {
	case accepts && !newest:
		f.Checksum.Valid = true
	case !accepts && strings.Contains(reason, errCorrupt.Error()):
		f.Checksum.Valid = false
	}
	f.KubeletAccepts, f.Reason, f.OnReject = accepts, reason, ""
	if !accepts {
		f.OnReject = RefusesToStart
		if f.Kind == KindDevice {
			f.OnReject = DiscardsData
		}
	}
	f.releaseProblems(rel, newest)
	return nil
}

// releaseProblems words the problems for the chosen release: the newest
// kubelet's refusals become warnings about an upgrade when this release
// accepts the file, and a refusal of this release alone becomes an error.
func (f *checker) releaseProblems(rel kubeletRelease, newestAccepts bool) {
	newest := "v1.37.2"
	switch {
	case f.KubeletAccepts && !newestAccepts:
		for i, p := range f.Problems {
			if p.Severity == SeverityError && strings.Contains(p.Message, newest) {
				f.Problems[i].Severity = SeverityWarning
				f.Problems[i].Message += fmt.Sprintf(" (kubelet %s accepts the file: this matters when the node is upgraded to 1.%d)", rel, newestKubeletMinor)
			}
		}
		f.problem(SeverityInfo, "", "upgrade the kubelet only after the kubelet has rewritten the file, or drain the node first",
			"kubelet %s accepts this file; kubelet 1.%d would refuse it", rel, newestKubeletMinor)
	case !f.KubeletAccepts && newestAccepts:
		remedy := "drain the node, stop the kubelet, delete the file and start the kubelet again (it rebuilds the file)"
		if f.Kind == KindDevice {
			remedy = "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; restart the pods that use devices"
		}
		what := "refuses to start"
		if f.Kind == KindDevice {
			what = "drops its device allocations"
		}
		f.problem(SeverityError, "", remedy, "kubelet %s %s with this file (%s); kubelet 1.%d accepts it", rel, what, f.Reason, newestKubeletMinor)
	}
}

func (f *File) layoutMatched(name string) bool {
	for _, l := range f.Checksum.Layouts {
		if l.Name == name {
			return l.Matched
		}
	}
	return false
}

// The kubelet's default policies (KubeletConfiguration cpuManagerPolicy and
// memoryManagerPolicy): a kubelet always runs with a policy, so the one it
// compares with a checkpoint's is never empty.
const (
	defaultCPUPolicy    = "none"
	defaultMemoryPolicy = "None"
)

// releasePolicy is the policy a release's restore code compares with the
// file's: the configured one when opts names it; else the file's own (the
// kubelet restarted with its configuration unchanged), except when the
// release reads no policy from a file that keeps it in a data section this
// release does not read (a v4 cpu file or a v3 memory file without their
// outer copy, read by a release before their reader): the file's policy
// is then not what the node was configured with, and the comparison is
// with the kubelet's default, which the caller says it assumed.
func releasePolicy(opts Options, recorded, fallback string, data []byte) (policy string, assumed bool) {
	switch {
	case opts.Policy != "":
		return opts.Policy, false
	case recorded != "" || !hasDataSection(data):
		return recorded, false
	}
	return fallback, true
}

// hasDataSection reports whether a checkpoint has a data member (the v4
// cpu and v3 memory layouts keep their state there).
func hasDataSection(data []byte) bool {
	var cp struct {
		Data *json.RawMessage `json:"data"`
	}
	return json.Unmarshal(data, &cp) == nil && cp.Data != nil
}

// assumedPolicy adds the note that the verdict assumed the kubelet's
// default policy, when the file recorded none for this release to compare.
func (f *checker) assumedPolicy(rel kubeletRelease, kind Kind) {
	def, other, flag := defaultCPUPolicy, "static", "cpuManagerPolicy"
	if kind == KindMemory {
		def, other, flag = defaultMemoryPolicy, "Static", "memoryManagerPolicy"
	}
	f.problem(SeverityInfo, "", "give the node's configured policy (--policy, or the kubelet configuration) to check the verdict against it",
		"kubelet %s reads no policy name from this file, and compares it with the configured %s: the verdict assumes the kubelet's default, %q (with %q the kubelet refuses the file the same way)", rel, flag, def, other)
}

// --- cpu_manager_state ---

// cpuVerdict follows restoreState of kubelet 1.28 to 1.36 (default feature
// gates, no running containers).
// assumed reports that the file recorded no policy for the release to
// compare, so the kubelet's default was compared (see releasePolicy).
func (f *File) cpuVerdict(rel kubeletRelease, data []byte, opts Options) (accepts bool, reason string, assumed bool) {
	// The kubelet's own struct names: encoding/json puts them in its errors.
	type CPUManagerCheckpointV1 struct {
		PolicyName    string            `json:"policyName"`
		DefaultCPUSet string            `json:"defaultCpuSet"`
		Entries       map[string]string `json:"entries,omitempty"`
		Checksum      uint64            `json:"checksum"`
	}
	// up to 1.35 CPUManagerCheckpointV2 is an alias of it
	type CPUManagerCheckpoint struct {
		PolicyName    string                       `json:"policyName"`
		DefaultCPUSet string                       `json:"defaultCpuSet"`
		Entries       map[string]map[string]string `json:"entries,omitempty"`
		Checksum      uint64                       `json:"checksum"`
	}
	type CPUManagerCheckpointV2 CPUManagerCheckpoint

	var policy, def string
	var entries map[string]map[string]string
	fail := func(err error) (bool, string, bool) {
		return false, kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", err, f.Name)), assumed
	}
	readV1 := func() (*CPUManagerCheckpointV1, error) {
		v1 := &CPUManagerCheckpointV1{Entries: map[string]string{}}
		err := json.Unmarshal(data, v1)
		if err == nil && v1.Checksum != 0 && !f.layoutMatched(layoutCPUV1) {
			err = errCorrupt
		}
		return v1, err
	}
	// migrateV1CheckpointToV2Checkpoint finds no container of a v1 entry
	// among the (no) running containers.
	migrate := func(v1 *CPUManagerCheckpointV1) error {
		if len(v1.Entries) > 0 {
			return fmt.Errorf("containerID '%v' not found in initial containers list", sortedKeys(v1.Entries)[0])
		}
		return nil
	}
	if rel <= 35 {
		v1, err := readV1()
		if err == nil {
			if err := migrate(v1); err != nil {
				return fail(fmt.Errorf("error migrating v1 checkpoint state to v2 checkpoint state: %s", err))
			}
			policy, def = v1.PolicyName, v1.DefaultCPUSet
		} else {
			v2 := &CPUManagerCheckpoint{Entries: map[string]map[string]string{}}
			err := json.Unmarshal(data, v2)
			if err == nil && v2.Checksum != 0 && !f.layoutMatched(layoutCPUV2) {
				err = errCorrupt
			}
			if err != nil {
				return fail(err)
			}
			policy, def, entries = v2.PolicyName, v2.DefaultCPUSet, v2.Entries
		}
	} else {
		v2 := &CPUManagerCheckpointV2{Entries: map[string]map[string]string{}}
		err := json.Unmarshal(data, v2)
		if err == nil && v2.Checksum != 0 && !f.layoutMatched(layoutCPUV2Raw) && !f.layoutMatched(layoutCPUV2) {
			err = errCorrupt
		}
		if err == nil {
			policy, def, entries = v2.PolicyName, v2.DefaultCPUSet, v2.Entries
		} else {
			// the v1 reader's error is the one returned
			v1, err := readV1()
			if err != nil {
				return fail(err)
			}
			if err := migrate(v1); err != nil {
				return fail(fmt.Errorf("failed to migrate checkpoint from v1 to v2: %w", err))
			}
			policy, def = v1.PolicyName, v1.DefaultCPUSet
		}
	}
	var configured string
	configured, assumed = releasePolicy(opts, policy, defaultCPUPolicy, data)
	if configured != policy {
		return fail(fmt.Errorf("configured policy %q differs from state checkpoint policy %q", configured, policy))
	}
	var b cpuBudget
	if _, err := b.parse(def); err != nil {
		return fail(fmt.Errorf("could not parse default cpu set %s: %w", setText(def, err), err))
	}
	for _, pod := range sortedKeys(entries) {
		for _, c := range sortedKeys(entries[pod]) {
			s := entries[pod][c]
			if _, err := b.parse(s); err != nil {
				return fail(fmt.Errorf("could not parse cpuset %s for container %q in pod %q: %w", setText(s, err), c, pod, err))
			}
		}
	}
	return true, "", assumed
}

// --- memory_manager_state ---

// memoryVerdict follows restoreState of kubelet 1.28 to 1.36 (default
// feature gates).
func (f *File) memoryVerdict(rel kubeletRelease, data []byte, opts Options) (accepts bool, reason string, assumed bool) {
	type MemoryManagerCheckpoint struct {
		PolicyName   string                        `json:"policyName"`
		MachineState map[int]*NUMANodeState        `json:"machineState"`
		Entries      map[string]map[string][]Block `json:"entries,omitempty"`
		Checksum     uint64                        `json:"checksum"`
	}
	type MemoryManagerCheckpointV1 MemoryManagerCheckpoint
	var err error
	var policy string
	var sum uint64
	if rel <= 35 {
		cp := &MemoryManagerCheckpoint{Entries: map[string]map[string][]Block{}, MachineState: map[int]*NUMANodeState{}}
		err = json.Unmarshal(data, cp)
		policy, sum = cp.PolicyName, cp.Checksum
	} else {
		cp := &MemoryManagerCheckpointV1{Entries: map[string]map[string][]Block{}, MachineState: map[int]*NUMANodeState{}}
		err = json.Unmarshal(data, cp)
		policy, sum = cp.PolicyName, cp.Checksum
	}
	// up to 1.35 the checksum is always verified; 1.36 skips a zero one
	if err == nil && (sum != 0 || rel <= 35) && !f.layoutMatched(layoutMemV1) {
		err = errCorrupt
	}
	if err == nil {
		var configured string
		configured, assumed = releasePolicy(opts, policy, defaultMemoryPolicy, data)
		if configured != policy {
			err = fmt.Errorf("[memorymanager] configured policy %q differs from state checkpoint policy %q", configured, policy)
		}
	}
	if err != nil {
		return false, kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the memory manager checkpoint file %q before restarting Kubelet", err, f.Name)), assumed
	}
	return true, "", assumed
}

// --- dra_manager_state ---

func (f *File) draVerdict(rel kubeletRelease, data []byte) (bool, string) {
	name := filepath.Base(f.Name)
	if name == "." || name == "" || name == string(filepath.Separator) {
		name = KindDRA.FileName()
	}
	if rel <= 30 {
		return f.draSpewVerdict(rel, data, name)
	}
	accepts, reason := f.KubeletAccepts, f.Reason
	const getEntries = "create ResourceClaim cache: GetEntries() on checkpoint: "
	if !accepts && strings.HasPrefix(reason, getEntries) {
		// the data section decoded into this release's structs, which
		// lack the fields added since
		accepts, reason = true, ""
		var cp struct{ Data string }
		if json.Unmarshal(data, &cp) == nil {
			if err := draDecodeData(rel, cp.Data); err != nil {
				accepts, reason = false, getEntries+err.Error()
			}
		}
	}
	if rel <= 33 {
		// NewManagerImpl and newClaimInfoCache of 1.31 to 1.33
		reason = strings.Replace(reason, "create ResourceClaim cache: GetOrCreate() on checkpoint state: ", "failed to create claimInfo cache: error calling GetOrCreate() on checkpoint state: ", 1)
		reason = strings.Replace(reason, getEntries, "failed to create claimInfo cache: error calling GetEntries() on checkpoint: ", 1)
	}
	return accepts, reason
}

// draDecodeData decodes a crc32-era data section as kubelet 1.31 to 1.36
// do, and returns the error in the kubelet's words.
func draDecodeData(rel kubeletRelease, data string) error {
	type Device struct {
		PoolName     string
		DeviceName   string
		RequestNames []string
		CDIDeviceIDs []string
	}
	type DeviceWithShareID struct {
		PoolName     string
		DeviceName   string
		ShareID      *string
		RequestNames []string
		CDIDeviceIDs []string
	}
	type DriverState struct{ Devices []Device }
	type DriverStateWithShareID struct{ Devices []DeviceWithShareID }
	type ClaimInfoState struct {
		ClaimUID    string
		ClaimName   string
		Namespace   string
		PodUIDs     map[string]struct{}
		DriverState map[string]DriverState
	}
	type ClaimInfoStateWithShareID struct {
		ClaimUID    string
		ClaimName   string
		Namespace   string
		PodUIDs     map[string]struct{}
		DriverState map[string]DriverStateWithShareID
	}
	type CheckpointData struct {
		Kind               string `json:"kind,omitempty"`
		APIVersion         string `json:"apiVersion,omitempty"`
		ClaimInfoStateList []ClaimInfoState
	}
	type CheckpointDataWithShareID struct {
		Kind               string `json:"kind,omitempty"`
		APIVersion         string `json:"apiVersion,omitempty"`
		ClaimInfoStateList []ClaimInfoStateWithShareID
	}
	var err error
	if rel >= 35 {
		err = json.Unmarshal([]byte(data), &CheckpointDataWithShareID{})
	} else {
		err = json.Unmarshal([]byte(data), &CheckpointData{})
	}
	if err == nil {
		return nil
	}
	s := strings.NewReplacer(
		"field ClaimInfoStateWithShareID.", "field ClaimInfoState.",
		"field CheckpointDataWithShareID.", "field CheckpointData.",
		"field DeviceWithShareID.", "field Device.",
		"field DriverStateWithShareID.", "field DriverState.",
		"of type []statefile.ClaimInfoStateWithShareID", "of type state.ClaimInfoStateList",
		"of type []statefile.ClaimInfoState", "of type state.ClaimInfoStateList",
		"of type map[string]statefile.DriverStateWithShareID", "of type map[string]state.DriverState",
		"of type map[string]statefile.DriverState", "of type map[string]state.DriverState",
		"of type []statefile.DeviceWithShareID", "of type []state.Device",
		"of type []statefile.Device", "of type []state.Device",
		"statefile.ClaimInfoStateWithShareID", "state.ClaimInfoState",
		"statefile.ClaimInfoState", "state.ClaimInfoState",
		"statefile.DriverStateWithShareID", "state.DriverState",
		"statefile.DriverState", "state.DriverState",
		"statefile.DeviceWithShareID", "state.Device",
		"statefile.Device", "state.Device",
		"statefile.CheckpointDataWithShareID", "state.CheckpointData",
		"statefile.CheckpointData", "state.CheckpointData",
	).Replace(err.Error())
	return errors.New(kubeText(s))
}

// draSpewVerdict follows GetOrCreate of kubelet 1.28 to 1.30: the
// spew-checksum layout of that release, then the one without resource
// handles.
func (f *File) draSpewVerdict(rel kubeletRelease, data []byte, name string) (bool, string) {
	layout := layoutDRASpew128
	if rel >= 30 {
		layout = layoutDRASpew
	}
	var err error
	if !slices.ContainsFunc(f.Checksum.Layouts, func(l Layout) bool { return l.Name == layoutDRASpewNoRH }) {
		// the file does not decode into the spew-era struct
		err = draSpewDecodeError(data)
	} else if !f.layoutMatched(layout) && !f.layoutMatched(layoutDRASpewNoRH) {
		err = errCorrupt
	}
	if err == nil {
		return true, ""
	}
	return false, kubeText(fmt.Sprintf("failed to create claimInfo cache: error calling GetOrCreate() on checkpoint state: failed to get checkpoint %v: %v", name, err))
}

func draSpewDecodeError(data []byte) error {
	type ResourceHandle struct {
		DriverName string `json:"driverName,omitempty"`
		Data       string `json:"data,omitempty"`
	}
	type ClaimInfoState struct {
		DriverName      string
		ClassName       string
		ClaimUID        string
		ClaimName       string
		Namespace       string
		PodUIDs         map[string]struct{}
		ResourceHandles []ResourceHandle
		CDIDevices      map[string][]string
	}
	type DRAManagerCheckpoint struct {
		Version  string           `json:"version"`
		Entries  []ClaimInfoState `json:"entries,omitempty"`
		Checksum uint64           `json:"checksum"`
	}
	err := json.Unmarshal(data, &DRAManagerCheckpoint{Version: "v1", Entries: []ClaimInfoState{}})
	if err == nil {
		return errCorrupt
	}
	return errors.New(strings.NewReplacer(
		"of type []statefile.ClaimInfoState", "of type state.ClaimInfoStateList",
		"of type []statefile.ResourceHandle", "of type []v1alpha2.ResourceHandle",
		"statefile.ClaimInfoState", "state.ClaimInfoState",
		"statefile.ResourceHandle", "v1alpha2.ResourceHandle",
		".checksum of type uint64", ".checksum of type checksum.Checksum",
	).Replace(err.Error()))
}
