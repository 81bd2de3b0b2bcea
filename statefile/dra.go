package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// DRAState is what the DRA manager holds after restoring dra_manager_state.
type DRAState struct {
	// Kind and APIVersion come from the crc32 era's data section.
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// Version is the spew era's "version" field.
	Version string `json:"version,omitempty"`
	// Claims lists the prepared resource claims.
	Claims []ClaimInfoState `json:"claims"`
}

// ClaimInfoState is one prepared ResourceClaim. DriverState is set in the
// crc32 era; DriverName, ClassName, ResourceHandles and CDIDevices in the spew era.
type ClaimInfoState struct {
	ClaimUID    string                 `json:"claimUID"`
	ClaimName   string                 `json:"claimName"`
	Namespace   string                 `json:"namespace"`
	PodUIDs     map[string]struct{}    `json:"podUIDs"`
	DriverState map[string]DriverState `json:"driverState,omitempty"`

	DriverName      string              `json:"driverName,omitempty"`
	ClassName       string              `json:"className,omitempty"`
	ResourceHandles []ResourceHandle    `json:"resourceHandles,omitempty"`
	CDIDevices      map[string][]string `json:"cdiDevices,omitempty"`
}

// DriverState is the devices one driver prepared for a claim.
type DriverState struct {
	Devices            []DRADevice
	SkipNodeOperations []string `json:"skipNodeOperations,omitempty"`
}

// DRADevice is one prepared device.
type DRADevice struct {
	PoolName     string
	DeviceName   string
	ShareID      *string
	RequestNames []string
	CDIDeviceIDs []string
}

// ResourceHandle is a spew-era (resource.k8s.io/v1alpha2) resource handle.
type ResourceHandle struct {
	DriverName     string                    `json:"driverName,omitempty"`
	Data           string                    `json:"data,omitempty"`
	StructuredData *StructuredResourceHandle `json:"structuredData,omitempty"`
}

// StructuredResourceHandle is the v1alpha2 structured parameters result (kubelet v1.30).
type StructuredResourceHandle struct {
	VendorClassParameters rawExtension             `json:"vendorClassParameters,omitempty"`
	VendorClaimParameters rawExtension             `json:"vendorClaimParameters,omitempty"`
	NodeName              string                   `json:"nodeName,omitempty"`
	Results               []DriverAllocationResult `json:"results"`
}

// DriverAllocationResult is one v1alpha2 allocation result.
type DriverAllocationResult struct {
	VendorRequestParameters rawExtension `json:"vendorRequestParameters,omitempty"`
	NamedResources          *struct {
		Name string `json:"name"`
	} `json:"namedResources,omitempty"`
}

// rawExtension mirrors runtime.RawExtension's JSON decoding.
type rawExtension struct{ Raw []byte }

func (re *rawExtension) UnmarshalJSON(in []byte) error {
	if !bytes.Equal(in, []byte("null")) {
		re.Raw = append(re.Raw[0:0], in...)
	}
	return nil
}

func (re rawExtension) MarshalJSON() ([]byte, error) {
	if re.Raw == nil {
		return []byte("null"), nil
	}
	return re.Raw, nil
}

// --- crc32 era (kubelet ≥ v1.31) ---

type draCheckpoint struct {
	Data     string
	Checksum uint32
}

type draClaimCRC struct {
	ClaimUID    string
	ClaimName   string
	Namespace   string
	PodUIDs     map[string]struct{}
	DriverState map[string]DriverState
}

type draCheckpointData struct {
	Kind               string `json:"kind,omitempty"`
	APIVersion         string `json:"apiVersion,omitempty"`
	ClaimInfoStateList []draClaimCRC
}

// --- spew era (kubelet v1.27 to v1.30) ---

type draClaimSpew struct {
	DriverName      string
	ClassName       string
	ClaimUID        string
	ClaimName       string
	Namespace       string
	PodUIDs         map[string]struct{}
	ResourceHandles []ResourceHandle
	CDIDevices      map[string][]string
}

type draCheckpointSpew struct {
	Version  string         `json:"version"`
	Entries  []draClaimSpew `json:"entries,omitempty"`
	Checksum uint64         `json:"checksum"`
}

// draEmptyData is the data section of an empty crc32-era checkpoint.
const draEmptyData = `{"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","ClaimInfoStateList":null}`

const (
	layoutDRACRC       = "crc32"
	layoutDRASpew      = "spew-v1"
	layoutDRASpew128   = "spew-v1-handles-without-structured-data"
	layoutDRASpewNoRH  = "spew-v1-without-resource-handles"
	eraDRACRC          = "dra crc32 ({\"Data\": json, \"Checksum\": crc32}): written by kubelets from v1.31, including v1.37.2"
	eraDRASpew         = "dra spew-v1 with resource handles (v1alpha2 with structuredData): written by kubelet v1.30; v1.37.2 no longer reads it"
	eraDRASpew128      = "dra spew-v1 with resource handles (v1alpha2 without structuredData): written by kubelets v1.28 and v1.29; v1.37.2 no longer reads it"
	eraDRASpewNoRH     = "dra spew-v1 without resource handles: written by kubelet v1.27 (accepted by v1.28 to v1.30 as a fallback); v1.37.2 no longer reads it"
	draRefuseRemedy    = "drain the node, stop the kubelet, delete dra_manager_state and start the kubelet again; prepared claims are prepared again when their pods restart"
	draSpewEraRejected = "this is a spew-era dra_manager_state (kubelet v1.27 to v1.30); kubelet v1.37.2 reads only the crc32 layout"
)

func (p *printer) podUIDs(m map[string]struct{}) {
	spewMap(p, m, func(struct{}) { p.s(":{}") })
}

func (p *printer) rawExt(r rawExtension) {
	p.s("(runtime.RawExtension){Raw:([]uint8)")
	p.byteSlice(r.Raw)
	p.s(" Object:(runtime.Object)<nil>}")
}

// draSpewSum renders the spew-era checkpoint. handles selects the layout:
// 2 = v1.30 handles, 1 = v1.28/v1.29 handles, 0 = without resource handles.
func draSpewSum(cp *draCheckpointSpew, handles int) uint64 {
	p := newPrinter()
	p.s("(*state.DRAManagerCheckpoint){Version:(string)")
	entries := cp.Entries
	if handles == 0 {
		p.s("v1")
		if entries == nil {
			entries = []draClaimSpew{}
		}
	} else {
		p.s(cp.Version)
	}
	p.s(" Entries:(state.ClaimInfoStateList)")
	if !p.nilOr(entries == nil) {
		p.c('[')
		for i := range entries {
			e := &entries[i]
			if i > 0 {
				p.c(' ')
			}
			p.s("{DriverName:(string)")
			p.s(e.DriverName)
			p.s(" ClassName:(string)")
			p.s(e.ClassName)
			p.s(" ClaimUID:(types.UID)")
			p.s(e.ClaimUID)
			p.s(" ClaimName:(string)")
			p.s(e.ClaimName)
			p.s(" Namespace:(string)")
			p.s(e.Namespace)
			p.s(" PodUIDs:(sets.Set[string])")
			p.podUIDs(e.PodUIDs)
			if handles > 0 {
				p.s(" ResourceHandles:([]v1alpha2.ResourceHandle)")
				if !p.nilOr(e.ResourceHandles == nil) {
					p.c('[')
					for j, h := range e.ResourceHandles {
						if j > 0 {
							p.c(' ')
						}
						p.s("{DriverName:(string)")
						p.s(h.DriverName)
						p.s(" Data:(string)")
						p.s(h.Data)
						if handles == 2 {
							p.s(" StructuredData:(*v1alpha2.StructuredResourceHandle)")
							p.structured(h.StructuredData)
						}
						p.c('}')
					}
					p.c(']')
				}
			}
			p.s(" CDIDevices:(map[string][]string)")
			p.stringListMap(e.CDIDevices)
			p.c('}')
		}
		p.c(']')
	}
	p.s(" Checksum:(checksum.Checksum)0}")
	return p.sum()
}

func (p *printer) structured(s *StructuredResourceHandle) {
	if p.nilOr(s == nil) {
		return
	}
	p.s("{VendorClassParameters:")
	p.rawExt(s.VendorClassParameters)
	p.s(" VendorClaimParameters:")
	p.rawExt(s.VendorClaimParameters)
	p.s(" NodeName:(string)")
	p.s(s.NodeName)
	p.s(" Results:([]v1alpha2.DriverAllocationResult)")
	if !p.nilOr(s.Results == nil) {
		p.c('[')
		for i, r := range s.Results {
			if i > 0 {
				p.c(' ')
			}
			p.s("{VendorRequestParameters:")
			p.rawExt(r.VendorRequestParameters)
			p.s(" AllocationResultModel:(v1alpha2.AllocationResultModel){NamedResources:(*v1alpha2.NamedResourcesAllocationResult)")
			if !p.nilOr(r.NamedResources == nil) {
				p.s("{Name:(string)")
				p.s(r.NamedResources.Name)
				p.c('}')
			}
			p.s("}}")
		}
		p.c(']')
	}
	p.c('}')
}

func decodeDRA(f *checker, blob []byte, opts Options) {
	name := filepath.Base(f.Name)
	if name == "." || name == "" || name == string(filepath.Separator) {
		name = KindDRA.FileName()
	}
	// crc32 era: what v1.37.2 does (checkpointer.GetOrCreate + GetClaimInfoStateList)
	// GetOrCreate starts from NewCheckpoint(nil): fields absent from the file
	// keep the empty checkpoint's Data and Checksum.
	cp := &draCheckpoint{Data: draEmptyData, Checksum: crc32Checksum(draEmptyData)}
	err := json.Unmarshal(blob, cp)
	computed := crc32Checksum(cp.Data)
	if err == nil && computed != cp.Checksum {
		err = errCorrupt
	}
	var data draCheckpointData
	if err == nil {
		if derr := json.Unmarshal([]byte(cp.Data), &data); derr != nil {
			f.Reason = fmt.Sprintf("create ResourceClaim cache: GetEntries() on checkpoint: %v", derr)
		}
	}
	if err != nil {
		f.Reason = fmt.Sprintf("create ResourceClaim cache: GetOrCreate() on checkpoint state: failed to get checkpoint %v: %v", name, err)
	}
	f.Reason = kubeText(f.Reason)
	f.KubeletAccepts = f.Reason == ""
	f.Checksum = ChecksumReport{Stored: uint64(cp.Checksum), Valid: err == nil}
	f.Checksum.Layouts = append(f.Checksum.Layouts, Layout{Name: layoutDRACRC, Stored: uint64(cp.Checksum), Computed: uint64(computed), Era: eraDRACRC})

	// spew era layouts
	sp := &draCheckpointSpew{Version: "v1", Entries: []draClaimSpew{}}
	spOK := json.Unmarshal(blob, sp) == nil
	isSpew := spOK && !hasKeyFold(blob, "Data") && hasKeyFold(blob, "entries", "version")
	if spOK {
		for _, l := range []struct {
			name, era string
			h         int
		}{{layoutDRASpew, eraDRASpew, 2}, {layoutDRASpew128, eraDRASpew128, 1}, {layoutDRASpewNoRH, eraDRASpewNoRH, 0}} {
			f.Checksum.Layouts = append(f.Checksum.Layouts, Layout{Name: l.name, Stored: sp.Checksum, Computed: draSpewSum(sp, l.h), Era: l.era})
		}
	}
	for i := range f.Checksum.Layouts {
		f.Checksum.Layouts[i].Matched = f.Checksum.Layouts[i].Stored == f.Checksum.Layouts[i].Computed
	}
	if isSpew {
		f.Format = FormatSpewV1
		f.Checksum.Stored = sp.Checksum
		f.DRA = &DRAState{Version: sp.Version, Claims: []ClaimInfoState{}}
		for _, e := range sp.Entries {
			f.DRA.Claims = append(f.DRA.Claims, ClaimInfoState{ClaimUID: e.ClaimUID, ClaimName: e.ClaimName, Namespace: e.Namespace,
				PodUIDs: e.PodUIDs, DriverName: e.DriverName, ClassName: e.ClassName, ResourceHandles: e.ResourceHandles, CDIDevices: e.CDIDevices})
		}
		for _, l := range f.Checksum.Layouts {
			if l.Name != layoutDRACRC && l.Matched {
				f.Checksum.Matched, f.Checksum.Era = l.Name, l.Era
				break
			}
		}
	} else {
		f.Format = FormatCRC32
		f.Checksum.finish()
		// A null ClaimInfoStateList (what NewCheckpoint(nil) writes) stays nil
		// and an empty list stays empty, so Encode gives back the same bytes.
		f.DRA = &DRAState{Kind: data.Kind, APIVersion: data.APIVersion}
		if data.ClaimInfoStateList != nil {
			f.DRA.Claims = make([]ClaimInfoState, 0, len(data.ClaimInfoStateList))
		}
		for _, e := range data.ClaimInfoStateList {
			f.DRA.Claims = append(f.DRA.Claims, ClaimInfoState{ClaimUID: e.ClaimUID, ClaimName: e.ClaimName, Namespace: e.Namespace, PodUIDs: e.PodUIDs, DriverState: e.DriverState})
		}
	}
	if f.KubeletAccepts && isSpew {
		// Without Data and Checksum members the reader keeps the empty
		// checkpoint it started from: the kubelet holds no claim.
		f.DRA = &DRAState{Kind: data.Kind, APIVersion: data.APIVersion}
		f.problem(SeverityWarning, "/entries", "the kubelet starts with no prepared claims; restart the pods that use DRA claims",
			"this spew-era file has no Data and no Checksum member, so kubelet v1.37.2's reader keeps its empty default crc32 checkpoint, accepts the file and forgets its %d claims", len(sp.Entries))
	}
	if !f.KubeletAccepts {
		switch {
		case isSpew:
			f.problem(SeverityError, "", draRefuseRemedy, "%s: the kubelet refuses to start (%s)", draSpewEraRejected, f.Reason)
		case errors.Is(err, errCorrupt):
			f.problem(SeverityError, "/Checksum", draRefuseRemedy,
				"the stored CRC32 %d does not match the data section (%d); the kubelet refuses to start", cp.Checksum, computed)
		default:
			f.problem(SeverityError, "", draRefuseRemedy, "kubelet v1.37.2 cannot read the file: %s", f.Reason)
		}
	}
	if f.Format == FormatCRC32 && f.Reason == "" {
		if data.Kind != "DRACheckpoint" || data.APIVersion != "checkpoint.dra.kubelet.k8s.io/v1" {
			f.problem(SeverityInfo, "/Data", "nothing to do: the kubelet does not check them",
				"the data section's kind/apiVersion are %s/%s, not DRACheckpoint/checkpoint.dra.kubelet.k8s.io/v1", qname(data.Kind), qname(data.APIVersion))
		}
	}
}

// hasKeyFold reports whether the top-level object has any of the keys
// (matched case-insensitively, as encoding/json does).
func hasKeyFold(blob []byte, keys ...string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(blob, &top) != nil {
		return false
	}
	for k := range top {
		for _, want := range keys {
			if equalFoldASCII(k, want) {
				return true
			}
		}
	}
	return false
}

func equalFoldASCII(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }
