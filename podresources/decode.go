package podresources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
			d.errf(pv.P(), "this is a List answer (podResources is an array): load it with Decode or name it list.json")
		} else if pv.val == nil {
			d.errf(pv.P(), "podResources is null: the Get answer holds no pod")
		} else {
			p = d.pod(pv.P(), pv.val)
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

// field is one member of a JSON object. Its JSON pointer is built only when
// a message needs it.
type field struct {
	key    string
	parent string
	full   string
	val    any
}

// P returns the field's JSON pointer.
func (f field) P() string {
	if f.full != "" || f.key == "" {
		return f.full
	}
	return f.parent + "/" + escape(f.key)
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
	clean := true
	for k, val := range m {
		n, ok := lookupKey(k, known)
		if !ok {
			clean = false
			break
		}
		if _, dup := out[n]; dup {
			clean = false
			break
		}
		out[n] = field{key: k, parent: ptr, val: val}
	}
	if clean {
		return out
	}
	// Report every problem, in key order so that messages are stable.
	clear(out)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := normKey(k)
		fl := field{key: k, parent: ptr, val: m[k]}
		if _, ok := known[n]; !ok {
			d.errf(fl.P(), "unknown field %q: expected %s", k, expected(known))
			continue
		}
		if prev, dup := out[n]; dup {
			d.errf(fl.P(), "field %q repeats %q: keep one", k, prev.key)
			continue
		}
		out[n] = fl
	}
	return out
}

// lookupKey returns the normalized spelling of k as it is stored in known,
// without allocating for the usual short keys.
func lookupKey(k string, known map[string]string) (string, bool) {
	var buf [32]byte
	if len(k) > len(buf) {
		n := normKey(k)
		_, ok := known[n]
		return n, ok
	}
	b := buf[:0]
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c >= 0x80:
			n := normKey(k)
			_, ok := known[n]
			return n, ok
		}
		b = append(b, c)
	}
	for n := range known {
		if n == string(b) {
			return n, true
		}
	}
	return "", false
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
			last = v.P()
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
	d.errf(fl.P(), "expected a string, found %s", kind(fl.val))
	return ""
}

func (d *decoder) array(fl field) []any {
	switch v := fl.val.(type) {
	case nil:
		return nil
	case []any:
		return v
	}
	d.errf(fl.P(), "expected an array, found %s", kind(fl.val))
	return nil
}

// integer reads a JSON number or a decimal string (protojson writes int64 and
// uint64 as strings).
func (d *decoder) integer(ptr string, v any, what string, max uint64) (uint64, bool) {
	n, problem := parseUint(v, what, max)
	if problem != "" {
		d.errf(ptr, "%s", problem)
		return 0, false
	}
	return n, true
}

func parseUint(v any, what string, max uint64) (uint64, string) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		return 0, fmt.Sprintf("%s: expected a non-negative integer, found %s", what, kind(v))
	}
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Sprintf("%s %s is negative", what, s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("%s: %q is not a non-negative integer", what, clip(s))
	}
	if n > max {
		return 0, fmt.Sprintf("%s %d is out of range (at most %d)", what, n, max)
	}
	return n, ""
}

func (d *decoder) ids(fl field, what string) []int {
	arr := d.array(fl)
	if len(arr) == 0 {
		return nil
	}
	out := make([]int, 0, len(arr))
	elem := func(i int) string { return fl.P() + "/" + strconv.Itoa(i) }
	// Short lists (the usual case) are checked for repeats by scanning; long
	// ones with a set.
	var seen map[int]bool
	if len(arr) > 64 {
		seen = make(map[int]bool, len(arr))
	}
	for i, v := range arr {
		n, problem := parseUint(v, what, maxID)
		if problem != "" {
			d.errf(elem(i), "%s", problem)
			continue
		}
		dup := false
		if seen != nil {
			dup = seen[int(n)]
			seen[int(n)] = true
		} else {
			dup = slices.Contains(out, int(n))
		}
		if dup {
			d.errf(elem(i), "%s %d is listed twice", what, n)
			continue
		}
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
			p := fl.P() + "/" + strconv.Itoa(i)
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
		s.Allocatable = d.allocatable(fl.P(), fl.val)
	}
	if fl, ok := f["notes"]; ok {
		for i, nv := range d.array(fl) {
			s.Notes = append(s.Notes, d.str(field{full: fl.P() + "/" + strconv.Itoa(i), val: nv}))
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
			d.errf(fl.P(), "qosClass %q is not Guaranteed, Burstable or BestEffort", q)
		}
		p.QOSClass = q
	}
	if fl, ok := f["qosclassinferred"]; ok {
		inferred, isBool := fl.val.(bool)
		if !isBool && fl.val != nil {
			d.errf(fl.P(), "expected true or false, found %s", kind(fl.val))
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
			cp := fl.P() + "/" + strconv.Itoa(i)
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
			c.DynamicResources = append(c.DynamicResources, d.dynamic(fl.P()+"/"+strconv.Itoa(i), rv))
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
		ptr := fl.P() + "/" + strconv.Itoa(i)
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
			m.Size, _ = d.integer(s.P(), s.val, "size", math.MaxUint64)
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
		ptr := fl.P() + "/" + strconv.Itoa(i)
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
				dev.DeviceIDs = append(dev.DeviceIDs, d.str(field{full: ids.P() + "/" + strconv.Itoa(j), val: iv}))
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
	tf := d.fields(fl.P(), fl.val, topologyKeys)
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
		p := nodes.P() + "/" + strconv.Itoa(i)
		nf := d.fields(p, nv, nodeKeys)
		if nf == nil {
			continue
		}
		id := uint64(0)
		if idf, ok := nf["id"]; ok && idf.val != nil {
			var good bool
			if id, good = d.integer(idf.P(), idf.val, "NUMA node", maxID); !good {
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
			cp := fl.P() + "/" + strconv.Itoa(i)
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
					dp := cd.P() + "/" + strconv.Itoa(j)
					// numascope writes CDI names as strings, the API as
					// {"name": …} objects.
					if _, isObj := dv.(map[string]any); isObj {
						nf := d.fields(dp, dv, cdiKeys)
						c.CDIDevices = append(c.CDIDevices, d.str(nf["name"]))
						continue
					}
					c.CDIDevices = append(c.CDIDevices, d.str(field{full: dp, val: dv}))
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
