package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// MemoryCases are the memory manager golden files.
func MemoryCases() []Case {
	var cs []Case
	add := func(name, format, policy, writer, tamper string, data []byte) {
		cs = append(cs, Case{Name: name, Kind: KindMemory, Format: format, Policy: policy, Writer: writer, Tamper: tamper, Data: data})
	}
	w := map[string]string{"v1": writerName("*state.MemoryManagerCheckpointV1"), "v2": writerName("*state.MemoryManagerCheckpointV2"), "v3": writerName("*state.MemoryManagerCheckpoint")}

	static1 := randomStaticMemory(201, false)
	static2 := randomStaticMemory(202, true)
	static3 := randomStaticMemory(203, true)
	none := RandomMemoryData(Rand(204), "None", SmallSize, false)
	for _, f := range []string{"v1", "v2", "v3"} {
		add(f+"-static", f, "Static", w[f], "", must(MarshalMemory(map[string]memstate.MemoryManagerCheckpointData{"v1": static1, "v2": static2, "v3": static3}[f], f)))
		add(f+"-none", f, "None", w[f], "", must(MarshalMemory(none, f)))
	}
	for i := uint64(0); i < 3; i++ {
		d := RandomMemoryData(Rand(210+i), "Static", Size{Pods: 4, Containers: 3, NUMANodes: 8}, true)
		add(fmt.Sprintf("v3-random-%d", i), "v3", "Static", w["v3"], "", must(MarshalMemory(d, "v3")))
	}
	v1 := must(MarshalMemory(static1, "v1"))
	v2 := must(MarshalMemory(static2, "v2"))
	v3 := must(MarshalMemory(static3, "v3"))

	add("v2-checksum-typename-v2", "v2", "Static", "kubelet "+KubeletVersion+" checksum.New(*state.MemoryManagerCheckpointV2)", "checksum hashes the type name MemoryManagerCheckpointV2", func() []byte {
		cp := &memstate.MemoryManagerCheckpointV2{PolicyName: static2.PolicyName, MachineState: static2.MachineState, Entries: static2.Entries, PodEntries: static2.PodEntries}
		cp.Checksum = checksum.New(cp)
		return must(json.Marshal(*cp))
	}())

	// v1 tampers.
	add("v1-checksum-flipped", "v1", "Static", w["v1"], "checksum xor 1", flipNumber(v1, "checksum"))
	add("v1-checksum-zero", "v1", "Static", w["v1"], "checksum set to 0", setNumber(v1, "checksum", "0"))
	add("v1-free-edited", "v1", "Static", w["v1"], "node 0 memory free changed, checksum kept", setNumber(v1, "free", "1"))
	add("v1-policy-mismatch", "v1", "None", w["v1"], "configured policy None, file says Static", v1)
	add("v1-cells-renamed-nodes", "v1", "Static", w["v1"], `"cells" renamed "nodes", checksum kept`, mustReplace(v1, `"cells":`, `"nodes":`, -1))
	add("v1-cells-renamed-nodes-checksum-zero", "v1", "Static", w["v1"], `"cells" renamed "nodes", checksum 0`, setNumber(mustReplace(v1, `"cells":`, `"nodes":`, -1), "checksum", "0"))
	add("v1-total-overflow", "v1", "Static", w["v1"], "total 2^64", setNumber(v1, "total", "18446744073709551616"))
	add("v1-total-negative", "v1", "Static", w["v1"], "total -1", setNumber(v1, "total", "-1"))
	add("v1-node-key-not-int", "v1", "Static", w["v1"], `machine state key "0" renamed "zero"`, mustReplace(v1, `"machineState":{"0":`, `"machineState":{"zero":`, 1))
	add("v1-keys-case-changed", "v1", "Static", w["v1"], "keys MachineState, MemoryMap, SystemReserved, CHECKSUM", mustReplace(mustReplace(mustReplace(mustReplace(v1, `"machineState"`, `"MachineState"`, 1), `"memoryMap"`, `"MemoryMap"`, -1), `"systemReserved"`, `"SystemReserved"`, -1), `"checksum"`, `"CHECKSUM"`, 1))
	add("v1-duplicate-checksum-last-valid", "v1", "Static", w["v1"], `a wrong "checksum":7 before the valid one`, insertAfterBrace(v1, `"checksum":7`))
	add("v1-unknown-fields", "v1", "Static", w["v1"], "extra members at the top level and in a table", mustReplace(appendMembers(v1, `"podEntries":null,"x":1`), `"free":`, `"hugeFree":3,"free":`, 1))
	add("v1-cells-null", "v1", "Static", w["v1"], "node cells set to null, checksum kept", regexp.MustCompile(`"cells":\[[0-9,]*\]`).ReplaceAll(v1, []byte(`"cells":null`)))
	add("v1-truncated", "v1", "Static", w["v1"], "cut in half", v1[:len(v1)/2])

	// v2 tampers.
	add("v2-checksum-flipped", "v2", "Static", w["v2"], "checksum xor 1", flipNumber(v2, "checksum"))
	add("v2-checksum-zero", "v2", "Static", w["v2"], "checksum set to 0", setNumber(v2, "checksum", "0"))
	add("v2-podentries-edited", "v2", "Static", w["v2"], "a pod-level block size changed, checksum kept", regexp.MustCompile(`("memoryBlocks":\[\{"numaAffinity":\[[0-9,]*\],"type":"[^"]*","size":)[0-9]+`).ReplaceAll(v2, []byte(`${1}4096`)))

	// v3 tampers.
	add("v3-datachecksum-flipped", "v3", "Static", w["v3"], "dataChecksum xor 1", flipNumber(v3, "dataChecksum"))
	add("v3-datachecksum-zero", "v3", "Static", w["v3"], "dataChecksum set to 0", setNumber(v3, "dataChecksum", "0"))
	add("v3-data-edited", "v3", "Static", w["v3"], "a free value inside data changed, dataChecksum kept", editData(v3, func(s string) string {
		return regexp.MustCompile(`"free":[0-9]+`).ReplaceAllLiteralString(s, `"free":0`)
	}))
	add("v3-outer-edited", "v3", "Static", w["v3"], "outer policyName and free values changed, data intact", regexp.MustCompile(`("reserved":[0-9]+,)"free":[0-9]+`).ReplaceAll(mustReplace(v3, `{"policyName":"Static"`, `{"policyName":"None"`, 1), []byte(`${1}"free":12`)))
	add("v3-outer-checksum-flipped", "v3", "Static", w["v3"], "outer checksum xor 1, data intact", flipNumber(v3, "checksum"))
	add("v3-data-removed", "v3", "Static", w["v3"], "data and dataChecksum dropped, the outer v1 copy kept", regexp.MustCompile(`,"data":".*","dataChecksum":[0-9]+`).ReplaceAll(v3, nil))
	add("v3-policy-mismatch", "v3", "None", w["v3"], "configured policy None, file says Static", v3)
	add("v3-data-not-json", "v3", "Static", "hand-written", "data is not JSON, dataChecksum matches it", recomputeDataChecksum(editData(v3, func(s string) string { return s[:len(s)-3] })))
	add("v3-data-keys-case-changed", "v3", "Static", w["v3"], "keys inside data in other case, dataChecksum recomputed", recomputeDataChecksum(editData(v3, func(s string) string {
		return strings.Replace(strings.Replace(s, `"machineState"`, `"MACHINESTATE"`, 1), `"numaAffinity"`, `"NumaAffinity"`, -1)
	})))
	add("v3-data-unknown-fields", "v3", "Static", w["v3"], "unknown members inside data, dataChecksum recomputed", recomputeDataChecksum(editData(v3, func(s string) string {
		return s[:len(s)-1] + `,"version":3,"nodes":[0,1]}`
	})))
	add("v3-data-size-float", "v3", "Static", w["v3"], "a block size written 1.5 inside data, dataChecksum recomputed", recomputeDataChecksum(editData(v3, func(s string) string {
		return regexp.MustCompile(`"size":[0-9]+`).ReplaceAllLiteralString(s, `"size":1.5`)
	})))
	add("v3-data-duplicate-node-merge", "v3", "Static", w["v3"], `a first "machineState" object inside data with NUMA node 7 (merged into one map), dataChecksum recomputed`, recomputeDataChecksum(editData(v3, func(s string) string {
		return `{"machineState":{"7":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":1073741824,"systemReserved":0,"allocatable":1073741824,"reserved":0,"free":1073741824}},"cells":[7]}},` + s[1:]
	})))
	add("v3-data-duplicate-node-last-wins", "v3", "Static", w["v3"], `node 0 written twice inside data, a bogus first copy with cells [0,5] then the real one, dataChecksum recomputed`, recomputeDataChecksum(editData(v3, func(s string) string {
		return strings.Replace(s, `"machineState":{`, `"machineState":{"0":{"numberOfAssignments":9,"memoryMap":null,"cells":[0,5]},`, 1)
	})))
	add("v3-data-affinity-null", "v3", "Static", w["v3"], "numaAffinity null inside data, dataChecksum recomputed", recomputeDataChecksum(editData(v3, func(s string) string {
		return regexp.MustCompile(`"numaAffinity":\[[0-9,]*\]`).ReplaceAllLiteralString(s, `"numaAffinity":null`)
	})))
	return cs
}

// DeviceCases are the device manager golden files.
func DeviceCases() []Case {
	var cs []Case
	add := func(name, format, writer, tamper string, data []byte) {
		cs = append(cs, Case{Name: name, Kind: KindDevice, Format: format, Writer: writer, Tamper: tamper, Data: data})
	}
	w := writerName("*checkpoint.Data")
	var base []byte
	var baseEntries []devcheckpoint.PodDevicesEntry
	for i := uint64(0); i < 4; i++ {
		for s := 300 + i; ; s += 1000 {
			entries, reg := RandomDeviceData(Rand(s), SmallSize)
			if i > 0 && len(entries) == 0 {
				continue
			}
			b := must(MarshalDevice(entries, reg))
			add(fmt.Sprintf("v2-random-%d", i), "v2", w, "", b)
			if i == 1 {
				base, baseEntries = b, entries
			}
			break
		}
	}
	add("v2-empty", "v2", w, "", must(MarshalDevice([]devcheckpoint.PodDevicesEntry{}, map[string][]string{})))
	add("v2-nil", "v2", writerName("*checkpoint.Data")+" of nil entries and devices", "", must(MarshalDevice(nil, nil)))
	add("v2-no-topology", "v2", w, "", must(MarshalDevice([]devcheckpoint.PodDevicesEntry{{PodUID: "8f7a5d1e-0000-4000-8000-000000000001", ContainerName: "app", ResourceName: "example.com/fpga", DeviceIDs: devcheckpoint.DevicesPerNUMA{-1: {"fpga-0", "fpga-1"}}, AllocResp: []byte{0x0a, 0x00}}}, map[string][]string{"example.com/fpga": {"fpga-0", "fpga-1"}})))

	add("v2-checksum-flipped", "v2", w, "checksum xor 1", flipNumber(base, "Checksum"))
	add("v2-checksum-zero", "v2", w, "checksum set to 0", setNumber(base, "Checksum", "0"))
	add("v2-deviceids-edited", "v2", w, "a device ID renamed, checksum kept", mustReplace(base, fmt.Sprintf("%q", firstDevice(baseEntries)), `"renamed-device"`, 1))
	add("v2-allocresp-edited", "v2", w, "AllocResp replaced, checksum kept", regexp.MustCompile(`"AllocResp":("[^"]*"|null)`).ReplaceAll(base, []byte(`"AllocResp":"AAEC"`)))
	add("v2-allocresp-bad-base64", "v2", w, "AllocResp is not base64", regexp.MustCompile(`"AllocResp":("[^"]*"|null)`).ReplaceAll(base, []byte(`"AllocResp":"%%%"`)))
	add("v2-deviceids-list", "v2", w, "DeviceIDs written as a list, the 1.19 layout, checksum kept", regexp.MustCompile(`"DeviceIDs":\{"-?[0-9]+":(\[[^\]]*\])[^}]*\}`).ReplaceAll(base, []byte(`"DeviceIDs":$1`)))
	add("v2-numa-key-not-int", "v2", w, `a NUMA key "x"`, regexp.MustCompile(`"DeviceIDs":\{"-?[0-9]+":`).ReplaceAll(base, []byte(`"DeviceIDs":{"x":`)))
	add("v2-bootid-outside", "v2", w, "BootID member outside Data", appendMembers(base, `"BootID":"d8e1c8a0-1111-4222-8333-444455556666"`))
	add("v2-keys-case-changed", "v2", w, "keys data, checksum, podDeviceEntries, deviceids", mustReplace(mustReplace(mustReplace(mustReplace(base, `"Data"`, `"data"`, 1), `"Checksum"`, `"checksum"`, 1), `"PodDeviceEntries"`, `"podDeviceEntries"`, 1), `"DeviceIDs"`, `"deviceids"`, -1))
	add("v2-duplicate-checksum-last-wrong", "v2", w, `a wrong "Checksum":1 after the valid one`, appendMembers(base, `"Checksum":1`))
	add("v2-registered-null", "v2", w, "RegisteredDevices null, checksum kept", regexp.MustCompile(`"RegisteredDevices":\{[^}]*\}`).ReplaceAll(base, []byte(`"RegisteredDevices":null`)))
	add("v2-truncated", "v2", w, "cut in half", base[:len(base)/2])
	add("v2-empty-file", "v2", "hand-written", "the file is empty", []byte{})
	add("v2-empty-object", "v2", "hand-written", "the file is {}", []byte(`{}`))
	return cs
}

func firstDevice(entries []devcheckpoint.PodDevicesEntry) string {
	for _, e := range entries {
		for _, ids := range e.DeviceIDs {
			if len(ids) > 0 {
				return ids[0]
			}
		}
	}
	panic("no device IDs")
}

// DRACases are the DRA manager golden files.
func DRACases() []Case {
	var cs []Case
	add := func(name, format, writer, tamper string, data []byte) {
		cs = append(cs, Case{Name: name, Kind: KindDRA, Format: format, Writer: writer, Tamper: tamper, Data: data})
	}
	w := fmt.Sprintf("kubelet %s state.NewCheckpoint + (*state.Checkpoint).MarshalCheckpoint", KubeletVersion)
	var base []byte
	for i := uint64(0); i < 3; i++ {
		for s := 400 + i; ; s += 1000 {
			list := RandomDRAData(Rand(s), SmallSize)
			if len(list) == 0 {
				continue
			}
			b := must(MarshalDRA(list))
			add(fmt.Sprintf("crc32-random-%d", i), "crc32", w, "", b)
			if i == 0 {
				base = b
			}
			break
		}
	}
	add("crc32-empty", "crc32", w, "", must(MarshalDRA(nil)))
	add("crc32-checksum-flipped", "crc32", w, "Checksum xor 1", flipNumber(base, "Checksum"))
	add("crc32-checksum-zero", "crc32", w, "Checksum set to 0", setNumber(base, "Checksum", "0"))
	add("crc32-checksum-over-uint32", "crc32", w, "Checksum 2^32", setNumber(base, "Checksum", "4294967296"))
	add("crc32-data-edited", "crc32", w, "a claim name inside Data changed, Checksum kept", editDRAData(base, false, func(s string) string { return strings.Replace(s, `"ClaimName":"claim-0"`, `"ClaimName":"claim-9"`, 1) }))
	add("crc32-data-not-json", "crc32", w, "Data is not JSON, Checksum matches it", editDRAData(base, true, func(s string) string { return s[:len(s)/2] }))
	add("crc32-data-empty", "crc32", "hand-written", `Data "" with Checksum 0 (its CRC32)`, []byte(`{"Data":"","Checksum":0}`))
	add("crc32-data-unknown-fields", "crc32", w, "unknown members inside Data, Checksum recomputed", editDRAData(base, true, func(s string) string { return s[:len(s)-1] + `,"extra":{"x":1}}` }))
	add("crc32-data-other-kind", "crc32", w, "kind and apiVersion inside Data changed, Checksum recomputed", editDRAData(base, true, func(s string) string {
		return strings.Replace(strings.Replace(s, `"DRACheckpoint"`, `"Other"`, 1), "checkpoint.dra.kubelet.k8s.io/v1", "example.com/v9", 1)
	}))
	add("crc32-data-poduids-list", "crc32", w, "PodUIDs written as a list inside Data, Checksum recomputed", editDRAData(base, true, func(s string) string {
		return editMembers(s, func(m map[string]json.RawMessage) {
			var list []map[string]json.RawMessage
			_ = json.Unmarshal(m["ClaimInfoStateList"], &list)
			list[0]["PodUIDs"] = json.RawMessage(`["a"]`)
			m["ClaimInfoStateList"] = must(json.Marshal(list))
		})
	}))
	add("crc32-only-checksum", "crc32", "hand-written", "only a Checksum member, equal to the CRC32 of an empty checkpoint's Data", func() []byte {
		cp, err := drastate.NewCheckpoint(nil)
		if err != nil {
			panic(err)
		}
		return []byte(fmt.Sprintf(`{"Checksum":%d}`, cp.Checksum))
	}())
	add("crc32-keys-case-changed", "crc32", w, "keys data and CHECKSUM", mustReplace(mustReplace(base, `"Data"`, `"data"`, 1), `"Checksum"`, `"CHECKSUM"`, 1))
	add("crc32-unknown-fields", "crc32", w, "extra members at the top level", appendMembers(base, `"version":"v1","entries":[]`))
	add("crc32-truncated", "crc32", w, "cut in half", base[:len(base)/2])
	add("crc32-spew-entries-without-checksum", "crc32", "hand-written from the upstream v1.30.0 spew-era vector", "spew-era members only, no Data and no Checksum member", []byte(`{"version":"v1","entries":[{"DriverName":"test-driver.cdi.k8s.io","ClassName":"class-name","ClaimUID":"067798be-454e-4be4-9047-1aa06aea63f7","ClaimName":"example","Namespace":"default","PodUIDs":{"139cdb46-f989-4f17-9561-ca10cfb509a6":{}},"CDIDevices":{"test-driver.cdi.k8s.io":["example.com/example=cdi-example"]}}]}`))
	add("crc32-empty-object", "crc32", "hand-written", "the file is {}", []byte(`{}`))
	add("crc32-base64-in-data", "crc32", "hand-written", "Data holds base64 text", []byte(`{"Data":"`+base64.StdEncoding.EncodeToString([]byte("{}"))+`","Checksum":0}`))
	return cs
}

// editDRAData rewrites the Data string; with fix it also sets Checksum to the
// CRC32 of the new Data, as the kubelet computes it.
func editDRAData(b []byte, fix bool, f func(string) string) []byte {
	var o struct{ Data string }
	if err := json.Unmarshal(b, &o); err != nil {
		panic(err)
	}
	oldEnc, _ := json.Marshal(o.Data)
	nd := f(o.Data)
	newEnc, _ := json.Marshal(nd)
	out := mustReplace(b, string(oldEnc), string(newEnc), 1)
	if fix {
		out = setNumber(out, "Checksum", fmt.Sprint(crc32IEEE(nd)))
	}
	return out
}
