package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/utils/cpuset"
)

// Case is one golden checkpoint file: its bytes, how they were made, and the
// policy the kubelet is configured with when it restores them.
type Case struct {
	Name   string // file name without .json, unique within Kind
	Kind   string
	Format string // the format the untampered file is in
	Policy string // configured policy (CPU, memory); "" for device and DRA
	Writer string // what produced the bytes
	Tamper string // what was changed after writing, "" for none
	Data   []byte
}

// File is the path of the golden file relative to statefile/testdata/kubelet.
func (c Case) File() string { return c.Kind + "/" + c.Name + ".json" }

func writerName(typ string) string {
	return fmt.Sprintf("kubelet %s (%s).MarshalCheckpoint", KubeletVersion, typ)
}

// tamper helpers: each returns the edited bytes or panics when the pattern
// it edits is missing (a generator bug, never an input property).

func mustReplace(data []byte, old, new string, n int) []byte {
	if !bytes.Contains(data, []byte(old)) {
		panic(fmt.Sprintf("tamper: %q not found in %s", old, data))
	}
	return bytes.Replace(data, []byte(old), []byte(new), n)
}

var numberAfter = map[string]*regexp.Regexp{}

// setNumber replaces the value of the first "key":<number>.
func setNumber(data []byte, key, value string) []byte {
	re, ok := numberAfter[key]
	if !ok {
		re = regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `":(-?[0-9]+)`)
		numberAfter[key] = re
	}
	loc := re.FindSubmatchIndex(data)
	if loc == nil {
		panic(fmt.Sprintf("tamper: no number for %q in %s", key, data))
	}
	out := append([]byte{}, data[:loc[2]]...)
	out = append(out, value...)
	return append(out, data[loc[3]:]...)
}

func getNumber(data []byte, key string) string {
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `":(-?[0-9]+)`)
	m := re.FindSubmatch(data)
	if m == nil {
		panic(fmt.Sprintf("tamper: no number for %q in %s", key, data))
	}
	return string(m[1])
}

func flipNumber(data []byte, key string) []byte {
	var v uint64
	fmt.Sscan(getNumber(data, key), &v)
	return setNumber(data, key, fmt.Sprint(v^1))
}

// editData rewrites the JSON string value of "data" with f.
func editData(data []byte, f func(string) string) []byte {
	var outer struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(data, &outer); err != nil {
		panic(err)
	}
	oldEnc, _ := json.Marshal(outer.Data)
	newEnc, _ := json.Marshal(f(outer.Data))
	return mustReplace(data, string(oldEnc), string(newEnc), 1)
}

// insertAfterBrace adds members right after the opening brace.
func insertAfterBrace(data []byte, members string) []byte {
	return append([]byte("{"+members+","), data[1:]...)
}

// appendMembers adds members before the closing brace.
func appendMembers(data []byte, members string) []byte {
	out := append([]byte{}, data[:len(data)-1]...)
	return append(out, []byte(","+members+"}")...)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func cloneCPU(d cpustate.CPUManagerCheckpointData) cpustate.CPUManagerCheckpointData {
	var out cpustate.CPUManagerCheckpointData
	if err := json.Unmarshal(must(json.Marshal(d)), &out); err != nil {
		panic(err)
	}
	if out.Entries == nil {
		out.Entries = map[string]map[string]string{}
	}
	if out.PodEntries == nil {
		out.PodEntries = cpustate.PodCPUAssignments{}
	}
	if out.Baselines == nil {
		out.Baselines = map[string]map[string]cpustate.ContainerCPUs{}
	}
	return out
}

func cloneMemory(d memstate.MemoryManagerCheckpointData) memstate.MemoryManagerCheckpointData {
	var out memstate.MemoryManagerCheckpointData
	if err := json.Unmarshal(must(json.Marshal(d)), &out); err != nil {
		panic(err)
	}
	if out.Entries == nil {
		out.Entries = memstate.ContainerMemoryAssignments{}
	}
	if out.PodEntries == nil {
		out.PodEntries = memstate.PodMemoryAssignments{}
	}
	if out.MachineState == nil {
		out.MachineState = memstate.NUMANodeMap{}
	}
	return out
}

func firstEntry(entries map[string]map[string]string) (pod, ctr string, ok bool) {
	for _, p := range sortedKeys(entries) {
		for _, c := range sortedKeys(entries[p]) {
			return p, c, true
		}
	}
	return "", "", false
}

// randomStatic draws CPU states until one has assignments (for tampers that
// edit one).
func randomStaticCPU(seed uint64, baselines, podEntries bool) cpustate.CPUManagerCheckpointData {
	for s := seed; ; s += 1000 {
		d := RandomCPUData(Rand(s), "static", SmallSize, baselines, podEntries)
		if _, _, ok := firstEntry(d.Entries); ok && (!baselines || len(d.Baselines) > 0) && (!podEntries || len(d.PodEntries) > 0) {
			return d
		}
	}
}

func randomStaticMemory(seed uint64, podEntries bool) memstate.MemoryManagerCheckpointData {
	for s := seed; ; s += 1000 {
		d := RandomMemoryData(Rand(s), "Static", SmallSize, podEntries)
		if len(d.Entries) > 0 && (!podEntries || len(d.PodEntries) > 0) {
			return d
		}
	}
}

// CPUCases are the CPU manager golden files.
func CPUCases() []Case {
	var cs []Case
	add := func(name, format, policy, writer, tamper string, data []byte) {
		cs = append(cs, Case{Name: name, Kind: KindCPU, Format: format, Policy: policy, Writer: writer, Tamper: tamper, Data: data})
	}
	w := map[string]string{"v2": writerName("*state.CPUManagerCheckpointV2"), "v3": writerName("*state.CPUManagerCheckpointV3"), "v4": writerName("*state.CPUManagerCheckpoint")}

	static2 := randomStaticCPU(101, false, false)
	static3 := randomStaticCPU(102, false, true)
	static4 := randomStaticCPU(103, true, true)
	none := RandomCPUData(Rand(104), "none", SmallSize, false, false)
	none.DefaultCPUSet = "0-7"
	empty := RandomCPUData(Rand(105), "static", Size{}, false, false)

	// Untampered files in every format the kubelet reads.
	for _, f := range []string{"v2", "v3", "v4"} {
		add(f+"-static", f, "static", w[f], "", must(MarshalCPU(map[string]cpustate.CPUManagerCheckpointData{"v2": static2, "v3": static3, "v4": static4}[f], f)))
		add(f+"-none", f, "none", w[f], "", must(MarshalCPU(none, f)))
		add(f+"-static-no-pods", f, "static", w[f], "", must(MarshalCPU(empty, f)))
	}
	for i := uint64(0); i < 3; i++ {
		d := RandomCPUData(Rand(110+i), "static", SmallSize, true, true)
		add(fmt.Sprintf("v4-random-%d", i), "v4", "static", w["v4"], "", must(MarshalCPU(d, "v4")))
	}
	v2 := must(MarshalCPU(static2, "v2"))
	v3 := must(MarshalCPU(static3, "v3"))
	v4 := must(MarshalCPU(static4, "v4"))
	pod, ctr, _ := firstEntry(static2.Entries)

	// Checksum layouts the kubelet accepts besides its own output.
	add("v2-checksum-typename-v2", "v2", "static", "kubelet "+KubeletVersion+" checksum.New(*state.CPUManagerCheckpointV2)", "checksum hashes the type name CPUManagerCheckpointV2", must(CPUV2WithTypeNameChecksum(static2)))
	add("v3-checksum-typename-v3", "v3", "static", "kubelet "+KubeletVersion+" checksum.New(*state.CPUManagerCheckpointV3)", "checksum hashes the type name CPUManagerCheckpointV3", must(CPUV3WithTypeNameChecksum(static3)))

	// v2 tampers.
	add("v2-checksum-flipped", "v2", "static", w["v2"], "checksum xor 1", flipNumber(v2, "checksum"))
	add("v2-checksum-zero", "v2", "static", w["v2"], "checksum set to 0", setNumber(v2, "checksum", "0"))
	add("v2-checksum-null", "v2", "static", w["v2"], "checksum set to null", mustReplace(v2, `"checksum":`+getNumber(v2, "checksum"), `"checksum":null`, 1))
	add("v2-checksum-overflow", "v2", "static", w["v2"], "checksum 2^64", setNumber(v2, "checksum", "18446744073709551616"))
	add("v2-checksum-negative", "v2", "static", w["v2"], "checksum -1", setNumber(v2, "checksum", "-1"))
	add("v2-checksum-float", "v2", "static", w["v2"], "checksum written as a float", mustReplace(v2, `"checksum":`+getNumber(v2, "checksum"), `"checksum":`+getNumber(v2, "checksum")+".0", 1))
	add("v2-checksum-string", "v2", "static", w["v2"], "checksum as a JSON string", mustReplace(v2, `"checksum":`+getNumber(v2, "checksum"), `"checksum":"`+getNumber(v2, "checksum")+`"`, 1))
	add("v2-entry-edited", "v2", "static", w["v2"], "one container's cpuset changed, checksum kept", mustReplace(v2, fmt.Sprintf("%q:%q", ctr, static2.Entries[pod][ctr]), fmt.Sprintf("%q:%q", ctr, "0"), 1))
	add("v2-policy-mismatch", "v2", "none", w["v2"], "configured policy none, file says static", v2)
	{
		d := cloneCPU(static2)
		d.DefaultCPUSet = "0-3,x"
		add("v2-bad-default-cpuset", "v2", "static", w["v2"], "defaultCpuSet 0-3,x written with a valid checksum", must(MarshalCPU(d, "v2")))
		d = cloneCPU(static2)
		d.Entries[pod][ctr] = "5-2"
		add("v2-bad-entry-cpuset", "v2", "static", w["v2"], "a container cpuset 5-2 written with a valid checksum", must(MarshalCPU(d, "v2")))
	}
	add("v2-truncated", "v2", "static", w["v2"], "cut in half", v2[:len(v2)/2])
	add("v2-keys-case-changed", "v2", "static", w["v2"], "keys PolicyName, DEFAULTCPUSET, Entries, CheckSum", mustReplace(mustReplace(mustReplace(mustReplace(v2, `"policyName"`, `"PolicyName"`, 1), `"defaultCpuSet"`, `"DEFAULTCPUSET"`, 1), `"entries"`, `"Entries"`, 1), `"checksum"`, `"CheckSum"`, 1))
	add("v2-duplicate-checksum-last-valid", "v2", "static", w["v2"], `a wrong "checksum":1 before the valid one`, insertAfterBrace(v2, `"checksum":1`))
	add("v2-duplicate-checksum-last-wrong", "v2", "static", w["v2"], `a wrong "checksum":1 after the valid one`, appendMembers(v2, `"checksum":1`))
	add("v2-duplicate-policy-last-wins", "v2", "static", w["v2"], `"policyName":"none" before the real one`, insertAfterBrace(v2, `"policyName":"none"`))
	add("v2-unknown-fields", "v2", "static", w["v2"], "extra members at the top level", appendMembers(v2, `"bootID":"5e4f","extra":{"a":[1,2,null]}`))
	add("v2-entries-null", "v2", "static", w["v2"], "entries set to null", regexp.MustCompile(`"entries":\{.*?\}\},`).ReplaceAll(v2, []byte(`"entries":null,`)))
	add("v2-empty-object", "v2", "static", "hand-written", "the file is {}", []byte(`{}`))
	add("v2-empty-object-policy-empty", "v2", "", "hand-written", "the file is {}, configured policy empty", []byte(`{}`))
	add("v2-empty-file", "v2", "static", "hand-written", "the file is empty", []byte{})
	add("v2-not-json", "v2", "static", "hand-written", "the file is text", []byte("cpu_manager_state\n"))
	add("v2-array", "v2", "static", "hand-written", "the file is a JSON array", []byte(`[]`))
	add("v2-trailing-garbage", "v2", "static", w["v2"], "bytes after the JSON value", append(append([]byte{}, v2...), []byte(" x")...))
	add("v2-trailing-newline", "v2", "static", w["v2"], "a newline after the JSON value", append(append([]byte{}, v2...), '\n'))
	add("v2-bom", "v2", "static", w["v2"], "UTF-8 byte order mark before the JSON", append([]byte("\xef\xbb\xbf"), v2...))

	// v3 tampers.
	add("v3-checksum-flipped", "v3", "static", w["v3"], "checksum xor 1", flipNumber(v3, "checksum"))
	add("v3-checksum-zero", "v3", "static", w["v3"], "checksum set to 0", setNumber(v3, "checksum", "0"))
	add("v3-podentries-edited", "v3", "static", w["v3"], "a pod-level cpuSet changed, checksum kept", regexp.MustCompile(`"cpuSet":"[^"]*"`).ReplaceAll(v3, []byte(`"cpuSet":"0"`)))
	{
		d := cloneCPU(static3)
		for p := range d.PodEntries {
			d.PodEntries[p] = cpustate.PodEntry{CPUSet: cpuset.New()}
		}
		b := must(MarshalCPU(d, "v3"))
		add("v3-podentries-cpuset-bad", "v3", "static", w["v3"], "a pod-level cpuSet x-1, checksum kept", regexp.MustCompile(`"podEntries":\{"([^"]*)":\{\}`).ReplaceAll(b, []byte(`"podEntries":{"$1":{"cpuSet":"x-1"}`)))
	}

	// v4 tampers.
	add("v4-datachecksum-flipped", "v4", "static", w["v4"], "dataChecksum xor 1", flipNumber(v4, "dataChecksum"))
	add("v4-datachecksum-zero", "v4", "static", w["v4"], "dataChecksum set to 0", setNumber(v4, "dataChecksum", "0"))
	add("v4-data-edited", "v4", "static", w["v4"], "defaultCpuSet inside data changed, dataChecksum kept", editData(v4, func(s string) string {
		return strings.Replace(s, `"defaultCpuSet":"`+static4.DefaultCPUSet+`"`, `"defaultCpuSet":"0"`, 1)
	}))
	add("v4-outer-edited", "v4", "static", w["v4"], "outer defaultCpuSet and policyName changed, data intact", mustReplace(mustReplace(v4, `{"policyName":"static"`, `{"policyName":"none"`, 1), `"defaultCpuSet":"`+static4.DefaultCPUSet+`","entries"`, `"defaultCpuSet":"0","entries"`, 1))
	add("v4-outer-checksum-flipped", "v4", "static", w["v4"], "outer checksum xor 1, data intact", flipNumber(v4, "checksum"))
	add("v4-outer-removed", "v4", "static", w["v4"], "only data and dataChecksum kept", []byte(fmt.Sprintf(`{"data":%s,"dataChecksum":%s}`, must(json.Marshal(func() string {
		var o struct{ Data string }
		_ = json.Unmarshal(v4, &o)
		return o.Data
	}())), getNumber(v4, "dataChecksum"))))
	add("v4-data-removed", "v4", "static", w["v4"], "data and dataChecksum dropped, the outer v2 copy kept", regexp.MustCompile(`,"data":".*","dataChecksum":[0-9]+`).ReplaceAll(v4, nil))
	add("v4-data-not-json", "v4", "static", "hand-written", "data is not JSON, dataChecksum matches it", func() []byte {
		cp := &cpustate.CPUManagerCheckpoint{CheckpointData: cloneCPU(static4)}
		b := must(cp.MarshalCheckpoint())
		return editData(b, func(s string) string { return s[:len(s)/2] })
	}())
	add("v4-data-empty-string", "v4", "static", "hand-written", `data is "" and dataChecksum its checksum`, []byte(`{"policyName":"static","defaultCpuSet":"0-3","checksum":0,"data":"","dataChecksum":`+fmt.Sprint(uint64(checksumOfString("")))+`}`))
	add("v4-policy-mismatch", "v4", "none", w["v4"], "configured policy none, file says static", v4)
	{
		d := cloneCPU(static4)
		bp := sortedKeys(d.Baselines)[0]
		d.Baselines[bp][sortedKeys(d.Baselines[bp])[0]] = cpustate.ContainerCPUs{Baseline: "not-a-cpuset"}
		add("v4-bad-baseline-cpuset", "v4", "static", w["v4"], "a baseline not-a-cpuset with valid checksums", must(MarshalCPU(d, "v4")))
		d = cloneCPU(static4)
		p, c, _ := firstEntry(d.Entries)
		d.Entries[p][c] = "1,,2"
		add("v4-bad-entry-cpuset", "v4", "static", w["v4"], "a container cpuset 1,,2 with valid checksums", must(MarshalCPU(d, "v4")))
		d = cloneCPU(static4)
		d.DefaultCPUSet = "-1"
		add("v4-bad-default-cpuset", "v4", "static", w["v4"], "defaultCpuSet -1 with valid checksums", must(MarshalCPU(d, "v4")))
	}
	add("v4-data-keys-case-changed", "v4", "static", w["v4"], "keys inside data in other case, dataChecksum recomputed", recomputeDataChecksum(editData(v4, func(s string) string {
		return strings.Replace(strings.Replace(s, `"policyName"`, `"POLICYNAME"`, 1), `"entries"`, `"Entries"`, 1)
	})))
	add("v4-data-unknown-fields", "v4", "static", w["v4"], "unknown members inside data, dataChecksum recomputed", recomputeDataChecksum(editData(v4, func(s string) string {
		return s[:len(s)-1] + `,"cpuManagerVersion":2,"zz":null}`
	})))
	add("v4-data-duplicate-default", "v4", "static", w["v4"], `a second "defaultCpuSet":"0-1" at the end of data, dataChecksum recomputed`, recomputeDataChecksum(editData(v4, func(s string) string {
		return s[:len(s)-1] + `,"defaultCpuSet":"0-1"}`
	})))
	add("v4-data-null-members", "v4", "static", w["v4"], "entries and baselines null inside data, dataChecksum recomputed", recomputeDataChecksum(editData(v4, func(s string) string {
		return editMembers(s, func(m map[string]json.RawMessage) {
			m["entries"] = json.RawMessage("null")
			m["baselines"] = json.RawMessage("null")
		})
	})))
	add("v4-data-duplicate-entries-merge", "v4", "static", w["v4"], `a first "entries" object inside data with another pod (encoding/json merges both into one map), dataChecksum recomputed`, recomputeDataChecksum(editData(v4, func(s string) string {
		return `{"entries":{"00000000-0000-4000-8000-00000000d0d0":{"dup":"1"}},` + s[1:]
	})))
	add("v2-duplicate-entries-merge-checksum-zero", "v2", "static", w["v2"], `a first "entries" object with another pod (merged into one map), checksum 0`, insertAfterBrace(setNumber(v2, "checksum", "0"), `"entries":{"00000000-0000-4000-8000-00000000d0d0":{"dup":"1"}}`))
	add("v2-duplicate-entries-merge", "v2", "static", w["v2"], `a first "entries" object with another pod (merged into one map), checksum kept`, insertAfterBrace(v2, `"entries":{"00000000-0000-4000-8000-00000000d0d0":{"dup":"1"}}`))
	add("v4-datachecksum-overflow", "v4", "static", w["v4"], "dataChecksum 2^64", setNumber(v4, "dataChecksum", "18446744073709551616"))
	return cs
}

// recomputeDataChecksum sets dataChecksum to the kubelet's checksum of data.
func recomputeDataChecksum(b []byte) []byte {
	var o struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		panic(err)
	}
	return setNumber(b, "dataChecksum", fmt.Sprint(uint64(checksumOfString(o.Data))))
}

// editMembers rewrites the members of a JSON object text with f. Members are
// written back in sorted order.
func editMembers(s string, f func(map[string]json.RawMessage)) string {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	f(m)
	return string(must(json.Marshal(m)))
}
