package statefile

import (
	"strings"
	"unsafe"

	"k8s.io/utils/cpuset"
)

// unsafeString views b as a string without copying; the caller must not
// keep it, unless nothing writes to b again (the builder's string arena).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// cpusetLayout is the layout of k8s.io/utils/cpuset.CPUSet: one map. The
// package offers no way to size a set's map ahead, so sets built from a
// counted cpuset go through this view; presizedOK checks once that the
// layout still is this one, and newCPUSet falls back to cpuset.New if not.
type cpusetLayout struct {
	elems map[int]struct{}
}

var presizedOK = func() bool {
	if unsafe.Sizeof(cpuset.CPUSet{}) != unsafe.Sizeof(cpusetLayout{}) {
		return false
	}
	probe := cpuset.New(3, 5, 7)
	v := (*cpusetLayout)(unsafe.Pointer(&probe))
	if len(v.elems) != 3 {
		return false
	}
	for _, c := range []int{3, 5, 7} {
		if _, ok := v.elems[c]; !ok {
			return false
		}
	}
	l := cpusetLayout{elems: map[int]struct{}{2: {}, 9: {}}}
	built := *(*cpuset.CPUSet)(unsafe.Pointer(&l))
	return built.Equals(cpuset.New(2, 9)) && built.String() == "2,9"
}()

// newCPUSet builds the set of the n CPUs of s, a cpuset that cpuCount
// walked without a bad element, in a map sized once.
func newCPUSet(n int, s string) cpuset.CPUSet {
	if !presizedOK {
		ids := make([]int, 0, n)
		eachCPU(s, func(cpu int) { ids = append(ids, cpu) })
		return cpuset.New(ids...)
	}
	m := make(map[int]struct{}, n)
	for rest, more := s, s != ""; more; {
		var r string
		r, rest, more = strings.Cut(rest, ",")
		lo, hi, _, ok := kubeletRange(r)
		if !ok {
			break
		}
		for c := lo; ; c++ { // hi may be the largest int (one id)
			m[c] = struct{}{}
			if c == hi {
				break
			}
		}
	}
	l := cpusetLayout{elems: m}
	return *(*cpuset.CPUSet)(unsafe.Pointer(&l))
}
