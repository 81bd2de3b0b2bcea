package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// DeviceState is what the device manager holds after restoring
// device-plugins/kubelet_internal_checkpoint.
type DeviceState struct {
	// PodDeviceEntries is null in the file when no device is allocated.
	PodDeviceEntries  []PodDevicesEntry
	RegisteredDevices map[string][]string
}

// PodDevicesEntry is the devices of one resource allocated to one container.
type PodDevicesEntry struct {
	PodUID        string
	ContainerName string
	ResourceName  string
	// DeviceIDs maps NUMA node → device IDs; -1 holds devices without topology.
	// A v1 file's flat list is placed under NUMA node 0 here.
	DeviceIDs map[int64][]string
	// AllocResp is the device plugin's protobuf ContainerAllocateResponse.
	AllocResp []byte
	// FlatDeviceIDs is the flat DeviceIDs list of a v1 file (kubelet ≤1.19).
	FlatDeviceIDs []string `json:"-"`
}

type devCheckpointData struct {
	PodDeviceEntries  []PodDevicesEntry
	RegisteredDevices map[string][]string
}

type devCheckpoint struct {
	Data     devCheckpointData
	Checksum uint64
}

type devEntryV1 struct {
	PodUID        string
	ContainerName string
	ResourceName  string
	DeviceIDs     []string
	AllocResp     []byte
}

type devCheckpointV1 struct {
	Data struct {
		PodDeviceEntries  []devEntryV1
		RegisteredDevices map[string][]string
	}
	Checksum uint64
}

const (
	layoutDevV2 = "v2"
	layoutDevV1 = "v1"
	eraDevV2    = "device v2 (DeviceIDs per NUMA node): written by kubelets from v1.20, including v1.37.2"
	eraDevV1    = "device v1 (flat DeviceIDs): written by kubelets up to v1.19; v1.37.2 no longer reads it"
)

func devV2Sum(d *devCheckpointData) uint64 {
	p := newPrinter()
	p.s("(checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)")
	if !p.nilOr(d.PodDeviceEntries == nil) {
		p.c('[')
		for i := range d.PodDeviceEntries {
			e := &d.PodDeviceEntries[i]
			if i > 0 {
				p.c(' ')
			}
			p.devEntryHead(e.PodUID, e.ContainerName, e.ResourceName)
			p.s(" DeviceIDs:(checkpoint.DevicesPerNUMA)")
			if !p.nilOr(e.DeviceIDs == nil) {
				p.s("map[")
				for j, k := range sortedIntKeys(e.DeviceIDs) {
					if j > 0 {
						p.c(' ')
					}
					p.i(k)
					p.c(':')
					p.strSlice(e.DeviceIDs[k])
				}
				p.c(']')
			}
			p.s(" AllocResp:([]uint8)")
			p.byteSlice(e.AllocResp)
			p.c('}')
		}
		p.c(']')
	}
	p.s(" RegisteredDevices:(map[string][]string)")
	p.stringListMap(d.RegisteredDevices)
	p.c('}')
	return p.sum()
}

func (p *printer) devEntryHead(pod, container, resource string) {
	p.s("{PodUID:(string)")
	p.s(pod)
	p.s(" ContainerName:(string)")
	p.s(container)
	p.s(" ResourceName:(string)")
	p.s(resource)
}

func devV1Sum(d *devCheckpointV1) uint64 {
	p := newPrinter()
	p.s("(checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)")
	if !p.nilOr(d.Data.PodDeviceEntries == nil) {
		p.c('[')
		for i, e := range d.Data.PodDeviceEntries {
			if i > 0 {
				p.c(' ')
			}
			p.devEntryHead(e.PodUID, e.ContainerName, e.ResourceName)
			p.s(" DeviceIDs:([]string)")
			p.strSlice(e.DeviceIDs)
			p.s(" AllocResp:([]uint8)")
			p.byteSlice(e.AllocResp)
			p.c('}')
		}
		p.c(']')
	}
	p.s(" RegisteredDevices:(map[string][]string)")
	p.stringListMap(d.Data.RegisteredDevices)
	p.c('}')
	return p.sum()
}

func decodeDevice(f *checker, blob []byte, opts Options) {
	// ManagerImpl.getCheckpoint: New([]PodDevicesEntry{}, map[string][]string{})
	cp := &devCheckpoint{Data: devCheckpointData{PodDeviceEntries: []PodDevicesEntry{}, RegisteredDevices: map[string][]string{}}}
	err := json.Unmarshal(blob, cp)
	if err == nil && cp.Checksum != devV2Sum(&cp.Data) {
		err = errCorrupt
	}
	var layouts []Layout
	var cp2 devCheckpoint
	cp2.Data.PodDeviceEntries, cp2.Data.RegisteredDevices = []PodDevicesEntry{}, map[string][]string{}
	if json.Unmarshal(blob, &cp2) == nil {
		layouts = append(layouts, Layout{Name: layoutDevV2, Stored: cp2.Checksum, Computed: devV2Sum(&cp2.Data), Era: eraDevV2})
	}
	v1 := &devCheckpointV1{}
	v1.Data.PodDeviceEntries, v1.Data.RegisteredDevices = []devEntryV1{}, map[string][]string{}
	v1ok := json.Unmarshal(blob, v1) == nil
	if v1ok {
		layouts = append(layouts, Layout{Name: layoutDevV1, Stored: v1.Checksum, Computed: devV1Sum(v1), Era: eraDevV1})
	}
	for i := range layouts {
		layouts[i].Matched = layouts[i].Stored == layouts[i].Computed
	}
	f.Checksum = ChecksumReport{Stored: cp.Checksum, Layouts: layouts, Valid: err == nil}
	f.Format = FormatV2
	if v1ok && len(v1.Data.PodDeviceEntries) > 0 {
		flat := false
		for _, e := range v1.Data.PodDeviceEntries {
			if e.DeviceIDs != nil {
				flat = true
			}
		}
		if flat {
			f.Format = FormatV1
		}
	}
	if f.Format == FormatV1 {
		f.Checksum.Stored = v1.Checksum
		f.Device = &DeviceState{RegisteredDevices: v1.Data.RegisteredDevices}
		for _, e := range v1.Data.PodDeviceEntries {
			ne := PodDevicesEntry{PodUID: e.PodUID, ContainerName: e.ContainerName, ResourceName: e.ResourceName, AllocResp: e.AllocResp, FlatDeviceIDs: e.DeviceIDs}
			if e.DeviceIDs != nil {
				ne.DeviceIDs = map[int64][]string{0: e.DeviceIDs}
			}
			f.Device.PodDeviceEntries = append(f.Device.PodDeviceEntries, ne)
		}
	} else {
		f.Device = &DeviceState{PodDeviceEntries: cp.Data.PodDeviceEntries, RegisteredDevices: cp.Data.RegisteredDevices}
	}
	f.Checksum.finish()
	if f.Checksum.Matched == layoutDevV1 {
		f.Format = FormatV1
	}
	const fix = "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; running pods keep their devices, but new pods may be given devices already in use until those pods restart"
	if err != nil {
		f.Reason = kubeText(err.Error())
		if errors.Is(err, errCorrupt) {
			f.problem(SeverityError, "/Checksum", fix,
				"the stored checksum %d does not match the content (kubelet v1.37.2 computes %d); the device manager logs %q and drops every allocation in the file",
				f.Checksum.Stored, devV2Sum(&cp.Data), "Continue after failing to read checkpoint file. Device allocation info may NOT be up-to-date")
		} else {
			f.problem(SeverityError, "", fix, "kubelet v1.37.2 cannot read the file (%v); the device manager starts without its allocation data", err)
		}
	} else {
		f.KubeletAccepts = true
	}
	if f.Format == FormatV1 {
		f.problem(SeverityError, "/Data/PodDeviceEntries", fix,
			"this is a v1 device checkpoint (flat DeviceIDs, kubelet ≤1.19); kubelet v1.37.2 cannot read it and drops its data")
	}
	for i, e := range f.Device.PodDeviceEntries {
		if err := checkAllocResp(e.AllocResp); err != nil {
			f.problem(SeverityWarning, pointer("Data", "PodDeviceEntries", strconv.Itoa(i), "AllocResp"),
				"the container keeps running, but the kubelet cannot give it its devices' settings after a restart: restart the pod",
				"AllocResp of container %s in pod %s (resource %s) is not a valid ContainerAllocateResponse (%v); the kubelet skips this entry", qname(e.ContainerName), qname(e.PodUID), bname(e.ResourceName), err)
		}
		for _, numa := range sortedIntKeys(e.DeviceIDs) {
			if numa < -1 {
				f.problem(SeverityWarning, pointer("Data", "PodDeviceEntries", strconv.Itoa(i), "DeviceIDs", strconv.FormatInt(numa, 10)),
					"device plugins report NUMA ids ≥ 0, or no topology (stored under -1)", "NUMA node %d is not a valid NUMA id", numa)
			}
		}
		if _, ok := f.Device.RegisteredDevices[e.ResourceName]; !ok && f.Device.RegisteredDevices != nil {
			f.problem(SeverityInfo, pointer("Data", "PodDeviceEntries", strconv.Itoa(i), "ResourceName"),
				"usually harmless: the plugin was unregistered while pods still held its devices",
				"resource %s is allocated to container %s in pod %s but is not among RegisteredDevices", bname(e.ResourceName), qname(e.ContainerName), qname(e.PodUID))
		}
	}
	_ = fmt.Sprint
}
