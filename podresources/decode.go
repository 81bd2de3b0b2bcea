package podresources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// DecodeError is one problem found in JSON input.
type DecodeError struct {
	// File names the file when the input came from LoadDir or LoadFS.
	File string
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is the
	// whole document.
	Pointer string
	// Msg says what is wrong and what to do.
	Msg string
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Pointer == "" {
		b.WriteString("(document)")
	} else {
		b.WriteString(e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// maxProblems bounds how many problems one decode reports, so that a broken
// 10,000-pod file gives a readable error.
const maxProblems = 20

// maxID bounds CPU and NUMA ids.
const maxID = math.MaxInt32

type decoder struct {
	file  string
	probs []error
	more  int
}

func (d *decoder) errf(ptr, format string, args ...any) {
	if len(d.probs) >= maxProblems {
		d.more++
		return
	}
	d.probs = append(d.probs, &DecodeError{File: d.file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) err() error {
	if len(d.probs) == 0 {
		return nil
	}
	errs := d.probs
	if d.more > 0 {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("... and %d more problems", d.more))
	}
	return errors.Join(errs...)
}

// Decode reads a List answer or a whole snapshot: numascope's JSON form
// ({"pods":[…],"allocatable":{…}}) or protobuf-JSON of a
// ListPodResourcesResponse ({"podResources":[…]} or {"pod_resources":[…]}).
// Errors name the JSON pointer of every problem (at most 20).
func Decode(data []byte) (*Snapshot, error) { return decodeSnapshot(data, "") }

// DecodeAllocatable reads a GetAllocatableResources answer in numascope's JSON
// form or protobuf-JSON, bare or wrapped as {"allocatable":{…}}.
func DecodeAllocatable(data []byte) (*Allocatable, error) { return decodeAllocatable(data, "") }

// DecodePod reads a Get answer: protobuf-JSON of a GetPodResourcesResponse
// ({"podResources":{…}}) or one pod in either JSON form.
func DecodePod(data []byte) (*Pod, error) { return decodePod(data, "") }

func parse(d *decoder, data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			d.errf("", "the file is empty: expected a JSON object")
			return nil, false
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte itself.
			line, col := position(data, se.Offset-1)
			d.errf("", "not valid JSON at line %d, column %d: %v", line, col, se)
			return nil, false
		}
		d.errf("", "not valid JSON: %v", err)
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, dec.InputOffset())
		d.errf("", "unexpected data after the JSON value at line %d, column %d: save one answer per file", line, col)
		return nil, false
	}
	return v, true
}

func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	line, col = 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func decodeSnapshot(data []byte, file string) (*Snapshot, error) {
	d := &decoder{file: file}
	v, ok := parse(d, data)
	if !ok {
		return nil, d.err()
	}
	s := d.snapshot(v)
	if err := d.err(); err != nil {
		return nil, err
	}
	return s, nil
}

func decodeAllocatable(data []byte, file string) (*Allocatable, error) {
	d := &decoder{file: file}
	v, ok := parse(d, data)
	if !ok {
		return nil, d.err()
	}
	var a *Allocatable
	if m, ok := v.(map[string]any); ok && len(m) == 1 && normKey(firstKey(m)) == "allocatable" {
		k := firstKey(m)
		a = d.allocatable("/"+escape(k), m[k])
		if a == nil && d.err() == nil {
			d.errf("/"+escape(k), "allocatable is null: expected an object")
		}
	} else {
		a = d.allocatable("", v)
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	return a, nil
}

func decodePod(data []byte, file string) (*Pod, error) {
	d := &decoder{file: file}
	v, ok := parse(d, data)
	if !ok {
		return nil, d.err()
	}
	var p Pod
	if m, ok := v.(map[string]any); ok && hasKey(m, "podresources") {
		f := d.fields("", v, map[string]string{"podresources": "podResources"})
		pv := f["podresources"]
		if _, isList := pv.val.([]any); isList {
			d.errf(pv.ptr, "this is a List answer (podResources is an array): load it with Decode or name it list.json")
		} else if pv.val == nil {
			d.errf(pv.ptr, "podResources is null: the Get answer holds no pod")
		} else {
			p = d.pod(pv.ptr, pv.val)
		}
	} else {
		p = d.pod("", v)
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	return &p, nil
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

func hasKey(m map[string]any, norm string) bool {
	for k := range m {
		if normKey(k) == norm {
			return true
		}
	}
	return false
}

// normKey makes "cpu_ids", "cpuIds" and "CpuIds" the same key: protojson
// writes camelCase, encoding/json of the generated types writes the proto
// names, and encoding/json reads keys case-insensitively.
func normKey(k string) string {
	return strings.ToLower(strings.ReplaceAll(k, "_", ""))
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

type field struct {
	key string
	ptr string
	val any
}

// fields checks that v is an object whose keys are all known (after
// normalization) and returns them by normalized name. known maps normalized
// names to the spelling used in messages.
func (d *decoder) fields(ptr string, v any, known map[string]string) map[string]field {
	m, ok := v.(map[string]any)
	if !ok {
		d.errf(ptr, "expected an object, found %s", kind(v))
		return nil
	}
	out := make(map[string]field, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := normKey(k)
		p := ptr + "/" + escape(k)
		if _, ok := known[n]; !ok {
			d.errf(p, "unknown field %q: expected %s", k, expected(known))
			continue
		}
		if prev, dup := out[n]; dup {
			d.errf(p, "field %q repeats %q: keep one", k, prev.key)
			continue
		}
		out[n] = field{key: k, ptr: p, val: m[k]}
	}
	return out
}

func expected(known map[string]string) string {
	names := make([]string, 0, len(known))
	seen := map[string]bool{}
	for _, v := range known {
		if !seen[v] {
			seen[v] = true
			names = append(names, v)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", clip(v))
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprintf("%t", v)
	}
	return fmt.Sprintf("%T", v)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// one returns the first of the alternative names that is present; conflict
// reports when more than one is.
func one(f map[string]field, names ...string) (field, bool) {
	for _, n := range names {
		if v, ok := f[n]; ok {
			return v, true
		}
	}
	return field{}, false
}

func (d *decoder) conflict(f map[string]field, names ...string) {
	var present []string
	var last string
	for _, n := range names {
		if v, ok := f[n]; ok {
			present = append(present, strconv.Quote(v.key))
			last = v.ptr
		}
	}
	if len(present) > 1 {
		d.errf(last, "%s give the same value twice: keep one", strings.Join(present, " and "))
	}
}

func (d *decoder) str(fl field) string {
	switch v := fl.val.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	d.errf(fl.ptr, "expected a string, found %s", kind(fl.val))
	return ""
}

func (d *decoder) array(fl field) []any {
	switch v := fl.val.(type) {
	case nil:
		return nil
	case []any:
		return v
	}
	d.errf(fl.ptr, "expected an array, found %s", kind(fl.val))
	return nil
}

// integer reads a JSON number or a decimal string (protojson writes int64 and
// uint64 as strings).
func (d *decoder) integer(ptr string, v any, what string, max uint64) (uint64, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		d.errf(ptr, "%s: expected a non-negative integer, found %s", what, kind(v))
		return 0, false
	}
	if strings.HasPrefix(s, "-") {
		d.errf(ptr, "%s %s is negative", what, s)
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		d.errf(ptr, "%s: %q is not a non-negative integer", what, clip(s))
		return 0, false
	}
	if n > max {
		d.errf(ptr, "%s %d is out of range (at most %d)", what, n, max)
		return 0, false
	}
	return n, true
}

func (d *decoder) ids(fl field, what string) []int {
	arr := d.array(fl)
	if len(arr) == 0 {
		return nil
	}
	out := make([]int, 0, len(arr))
	seen := make(map[int]int, len(arr))
	for i, v := range arr {
		p := fl.ptr + "/" + strconv.Itoa(i)
		n, ok := d.integer(p, v, what, maxID)
		if !ok {
			continue
		}
		if j, dup := seen[int(n)]; dup {
			d.errf(p, "%s %d is listed twice (also at index %d)", what, n, j)
			continue
		}
		seen[int(n)] = i
		out = append(out, int(n))
	}
	return out
}

var snapshotKeys = map[string]string{"pods": "pods", "podresources": "podResources", "allocatable": "allocatable", "notes": "notes"}

func (d *decoder) snapshot(v any) *Snapshot {
	if m, ok := v.(map[string]any); ok {
		if !hasKey(m, "pods") && !hasKey(m, "podresources") && (hasKey(m, "cpuids") || hasKey(m, "devices") || hasKey(m, "memory")) {
			d.errf("", "this looks like a GetAllocatableResources answer, not a List answer: load it with DecodeAllocatable or name it allocatable.json")
			return nil
		}
		if pr, ok := m[firstKey(m)].(map[string]any); ok && len(m) == 1 && normKey(firstKey(m)) == "podresources" && pr != nil {
			d.errf("/"+escape(firstKey(m)), "this looks like a Get answer (podResources is one object): load it with DecodePod or name it get-<namespace>-<name>.json")
			return nil
		}
	}
	f := d.fields("", v, snapshotKeys)
	if f == nil {
		return nil
	}
	d.conflict(f, "pods", "podresources")
	s := &Snapshot{}
	if fl, ok := one(f, "pods", "podresources"); ok {
		arr := d.array(fl)
		s.Pods = make([]Pod, 0, len(arr))
		where := make(map[string]int, len(arr))
		for i, pv := range arr {
			p := fl.ptr + "/" + strconv.Itoa(i)
			pod := d.pod(p, pv)
			ref := pod.Ref()
			if j, dup := where[ref]; dup && pod.Name != "" {
				d.errf(p, "pod %s is listed twice (also at index %d)", ref, j)
				continue
			}
			where[ref] = i
			s.Pods = append(s.Pods, pod)
		}
	}
	if fl, ok := f["allocatable"]; ok && fl.val != nil {
		s.Allocatable = d.allocatable(fl.ptr, fl.val)
	}
	if fl, ok := f["notes"]; ok {
		for i, nv := range d.array(fl) {
			s.Notes = append(s.Notes, d.str(field{ptr: fl.ptr + "/" + strconv.Itoa(i), val: nv}))
		}
	}
	return s
}

var podKeys = map[string]string{
	"name": "name", "namespace": "namespace", "containers": "containers",
	"cpuids": "cpuIds", "memory": "memory", "qosclass": "qosClass", "qosclassinferred": "qosClassInferred",
}

func (d *decoder) pod(ptr string, v any) Pod {
	var p Pod
	f := d.fields(ptr, v, podKeys)
	if f == nil {
		return p
	}
	p.Name = d.str(f["name"])
	p.Namespace = d.str(f["namespace"])
	if p.Name == "" {
		d.errf(ptr, "the pod has no name: every PodResources answer names its pods")
	}
	if p.Namespace == "" {
		d.errf(ptr, "pod %q has no namespace: every PodResources answer gives the namespace", p.Name)
	}
	if fl, ok := f["qosclass"]; ok {
		q := QOSClass(d.str(fl))
		if !q.Valid() {
			d.errf(fl.ptr, "qosClass %q is not Guaranteed, Burstable or BestEffort", q)
		}
		p.QOSClass = q
	}
	if fl, ok := f["qosclassinferred"]; ok {
		inferred, isBool := fl.val.(bool)
		if !isBool && fl.val != nil {
			d.errf(fl.ptr, "expected true or false, found %s", kind(fl.val))
		}
		if inferred {
			// numascope wrote the class it inferred; leave it to be inferred
			// again so that the pod reads back as it was.
			p.QOSClass = ""
		}
	}
	if fl, ok := f["containers"]; ok {
		arr := d.array(fl)
		p.Containers = make([]Container, 0, len(arr))
		seen := make(map[string]int, len(arr))
		for i, cv := range arr {
			cp := fl.ptr + "/" + strconv.Itoa(i)
			c := d.container(cp, cv)
			if j, dup := seen[c.Name]; dup && c.Name != "" {
				d.errf(cp, "container %q is listed twice in pod %s (also at index %d)", c.Name, p.Ref(), j)
			}
			seen[c.Name] = i
			p.Containers = append(p.Containers, c)
		}
	}
	if fl, ok := f["cpuids"]; ok {
		p.CPUIDs = d.ids(fl, "CPU id")
	}
	if fl, ok := f["memory"]; ok {
		p.Memory = d.memories(fl)
	}
	return p
}

var containerKeys = map[string]string{
	"name": "name", "cpuids": "cpuIds", "memory": "memory", "devices": "devices",
	"dynamicresources": "dynamicResources", "cpuidsstatus": "cpuIdsStatus", "memorystatus": "memoryStatus",
}

func (d *decoder) container(ptr string, v any) Container {
	var c Container
	f := d.fields(ptr, v, containerKeys)
	if f == nil {
		return c
	}
	c.Name = d.str(f["name"])
	if c.Name == "" {
		d.errf(ptr, "the container has no name")
	}
	if fl, ok := f["cpuids"]; ok {
		c.CPUIDs = d.ids(fl, "CPU id")
	}
	if fl, ok := f["memory"]; ok {
		c.Memory = d.memories(fl)
	}
	if fl, ok := f["devices"]; ok {
		c.Devices = d.devices(fl)
	}
	if fl, ok := f["dynamicresources"]; ok {
		for i, rv := range d.array(fl) {
			c.DynamicResources = append(c.DynamicResources, d.dynamic(fl.ptr+"/"+strconv.Itoa(i), rv))
		}
	}
	// cpuIdsStatus and memoryStatus are derived from the lists and the QoS
	// class; they are checked for type only.
	for _, k := range []string{"cpuidsstatus", "memorystatus"} {
		if fl, ok := f[k]; ok {
			d.str(fl)
		}
	}
	return c
}

var memoryKeys = map[string]string{"type": "type", "memorytype": "memoryType", "size": "size", "numanodes": "numaNodes", "topology": "topology"}

func (d *decoder) memories(fl field) []Memory {
	arr := d.array(fl)
	if len(arr) == 0 {
		return nil
	}
	out := make([]Memory, 0, len(arr))
	for i, mv := range arr {
		ptr := fl.ptr + "/" + strconv.Itoa(i)
		f := d.fields(ptr, mv, memoryKeys)
		if f == nil {
			continue
		}
		var m Memory
		d.conflict(f, "type", "memorytype")
		if t, ok := one(f, "type", "memorytype"); ok {
			m.Type = d.str(t)
		}
		if m.Type == "" {
			d.errf(ptr, "the memory block has no type: expected \"memory\" or \"hugepages-<size>\"")
		}
		if s, ok := f["size"]; ok && s.val != nil {
			m.Size, _ = d.integer(s.ptr, s.val, "size", math.MaxUint64)
		}
		m.NUMANodes = d.numa(f)
		out = append(out, m)
	}
	return out
}

var deviceKeys = map[string]string{"resourcename": "resourceName", "deviceids": "deviceIds", "numanodes": "numaNodes", "topology": "topology"}

func (d *decoder) devices(fl field) []Device {
	arr := d.array(fl)
	if len(arr) == 0 {
		return nil
	}
	out := make([]Device, 0, len(arr))
	for i, dv := range arr {
		ptr := fl.ptr + "/" + strconv.Itoa(i)
		f := d.fields(ptr, dv, deviceKeys)
		if f == nil {
			continue
		}
		var dev Device
		dev.ResourceName = d.str(f["resourcename"])
		if dev.ResourceName == "" {
			d.errf(ptr, "the device has no resourceName")
		}
		if ids, ok := f["deviceids"]; ok {
			for j, iv := range d.array(ids) {
				dev.DeviceIDs = append(dev.DeviceIDs, d.str(field{ptr: ids.ptr + "/" + strconv.Itoa(j), val: iv}))
			}
		}
		dev.NUMANodes = d.numa(f)
		out = append(out, dev)
	}
	return out
}

var topologyKeys = map[string]string{"nodes": "nodes"}
var nodeKeys = map[string]string{"id": "ID"}

// numa reads numascope's numaNodes list or the API's topology object. In the
// topology form a node object without "ID" is node 0: encoding/json with
// omitempty drops a zero ID and leaves {}.
func (d *decoder) numa(f map[string]field) []int {
	d.conflict(f, "numanodes", "topology")
	if fl, ok := f["numanodes"]; ok {
		return d.ids(fl, "NUMA node")
	}
	fl, ok := f["topology"]
	if !ok || fl.val == nil {
		return nil
	}
	tf := d.fields(fl.ptr, fl.val, topologyKeys)
	nodes, ok := tf["nodes"]
	if !ok {
		return nil
	}
	arr := d.array(nodes)
	if len(arr) == 0 {
		return nil
	}
	out := make([]int, 0, len(arr))
	seen := make(map[int]bool, len(arr))
	for i, nv := range arr {
		p := nodes.ptr + "/" + strconv.Itoa(i)
		nf := d.fields(p, nv, nodeKeys)
		if nf == nil {
			continue
		}
		id := uint64(0)
		if idf, ok := nf["id"]; ok && idf.val != nil {
			var good bool
			if id, good = d.integer(idf.ptr, idf.val, "NUMA node", maxID); !good {
				continue
			}
		}
		if seen[int(id)] {
			d.errf(p, "NUMA node %d is listed twice", id)
			continue
		}
		seen[int(id)] = true
		out = append(out, int(id))
	}
	return out
}

var dynamicKeys = map[string]string{"claimname": "claimName", "claimnamespace": "claimNamespace", "claimresources": "claimResources"}
var claimKeys = map[string]string{
	"drivername": "driverName", "poolname": "poolName", "devicename": "deviceName",
	"shareid": "shareId", "cdidevices": "cdiDevices",
}
var cdiKeys = map[string]string{"name": "name"}

func (d *decoder) dynamic(ptr string, v any) DynamicResource {
	var r DynamicResource
	f := d.fields(ptr, v, dynamicKeys)
	if f == nil {
		return r
	}
	r.ClaimName = d.str(f["claimname"])
	r.ClaimNamespace = d.str(f["claimnamespace"])
	if r.ClaimName == "" {
		d.errf(ptr, "the dynamic resource has no claimName")
	}
	if fl, ok := f["claimresources"]; ok {
		for i, cv := range d.array(fl) {
			cp := fl.ptr + "/" + strconv.Itoa(i)
			cf := d.fields(cp, cv, claimKeys)
			if cf == nil {
				continue
			}
			c := ClaimResource{
				DriverName: d.str(cf["drivername"]),
				PoolName:   d.str(cf["poolname"]),
				DeviceName: d.str(cf["devicename"]),
				ShareID:    d.str(cf["shareid"]),
			}
			if cd, ok := cf["cdidevices"]; ok {
				for j, dv := range d.array(cd) {
					dp := cd.ptr + "/" + strconv.Itoa(j)
					// numascope writes CDI names as strings, the API as
					// {"name": …} objects.
					if _, isObj := dv.(map[string]any); isObj {
						nf := d.fields(dp, dv, cdiKeys)
						c.CDIDevices = append(c.CDIDevices, d.str(nf["name"]))
						continue
					}
					c.CDIDevices = append(c.CDIDevices, d.str(field{ptr: dp, val: dv}))
				}
			}
			r.ClaimResources = append(r.ClaimResources, c)
		}
	}
	return r
}

var allocatableKeys = map[string]string{"cpuids": "cpuIds", "memory": "memory", "devices": "devices"}

func (d *decoder) allocatable(ptr string, v any) *Allocatable {
	if m, ok := v.(map[string]any); ok && (hasKey(m, "podresources") || hasKey(m, "pods")) {
		d.errf(ptr, "this looks like a List or Get answer, not a GetAllocatableResources answer: name it list.json")
		return nil
	}
	f := d.fields(ptr, v, allocatableKeys)
	if f == nil {
		return nil
	}
	a := &Allocatable{}
	if fl, ok := f["cpuids"]; ok {
		a.CPUIDs = d.ids(fl, "CPU id")
	}
	if fl, ok := f["memory"]; ok {
		a.Memory = d.memories(fl)
	}
	if fl, ok := f["devices"]; ok {
		a.Devices = d.devices(fl)
	}
	return a
}
