package topomgr

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// maxNUMANodeID is the highest NUMA node ID a BitMask can hold, as in the
// kubelet, whose masks are 64-bit.
const maxNUMANodeID = 63

// BitMask is a set of NUMA node IDs (0 to 63): bit i stands for node i. It
// is an immutable value with the kubelet's bitmask semantics.
type BitMask uint64

// NewBitMask returns the mask with the given NUMA node IDs set. IDs outside
// 0 to 63 are an error, as in the kubelet.
func NewBitMask(ids ...int) (BitMask, error) {
	var m BitMask
	for _, i := range ids {
		if i < 0 || i > maxNUMANodeID {
			return 0, fmt.Errorf("NUMA node %d: bit number must be in range 0-63", i)
		}
		m |= 1 << uint(i)
	}
	return m, nil
}

// Count returns the number of NUMA nodes in the mask.
func (m BitMask) Count() int { return bits.OnesCount64(uint64(m)) }

// IsEmpty reports whether no NUMA node is set.
func (m BitMask) IsEmpty() bool { return m == 0 }

// IsSet reports whether NUMA node id is in the mask.
func (m BitMask) IsSet(id int) bool {
	if id < 0 || id > maxNUMANodeID {
		return false
	}
	return m&(1<<uint(id)) != 0
}

// AnySet reports whether any of the given NUMA nodes is in the mask.
func (m BitMask) AnySet(ids []int) bool {
	for _, id := range ids {
		if m.IsSet(id) {
			return true
		}
	}
	return false
}

// Bits returns the NUMA node IDs in the mask, ascending (the kubelet's GetBits).
func (m BitMask) Bits() []int {
	var out []int
	for v := uint64(m); v != 0; v &= v - 1 {
		out = append(out, bits.TrailingZeros64(v))
	}
	return out
}

// And returns the NUMA nodes present in m and in every one of masks.
func (m BitMask) And(masks ...BitMask) BitMask {
	for _, o := range masks {
		m &= o
	}
	return m
}

// Or returns the NUMA nodes present in m or in any of masks.
func (m BitMask) Or(masks ...BitMask) BitMask {
	for _, o := range masks {
		m |= o
	}
	return m
}

// IsLessThan compares the masks as unsigned integers, as the kubelet does: the
// mask with more low-numbered nodes is "less".
func (m BitMask) IsLessThan(o BitMask) bool { return m < o }

// IsGreaterThan compares the masks as unsigned integers.
func (m BitMask) IsGreaterThan(o BitMask) bool { return m > o }

// IsNarrowerThan reports whether m has fewer NUMA nodes than o or, with as
// many, is the smaller integer.
func (m BitMask) IsNarrowerThan(o BitMask) bool {
	if c, d := m.Count(), o.Count(); c != d {
		return c < d
	}
	return m < o
}

// String renders the mask in binary, most significant bit first, zero-padded
// to an even width exactly as the kubelet's BitMask.String does: node 0 is
// "01", node 1 is "10", nodes 0 and 2 are "0101".
func (m BitMask) String() string {
	const grouping = 2
	for shift := 64 - grouping; shift > 0; shift -= grouping {
		if uint64(m) > 1<<uint(shift) {
			return fmt.Sprintf("%0"+strconv.Itoa(shift+grouping)+"b", uint64(m))
		}
	}
	return fmt.Sprintf("%0"+strconv.Itoa(grouping)+"b", uint64(m))
}

// List renders the NUMA node IDs as a comma-separated list, e.g. "0,2".
func (m BitMask) List() string {
	b := m.Bits()
	s := make([]string, len(b))
	for i, v := range b {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// MarshalJSON writes the mask as a JSON array of NUMA node IDs.
func (m BitMask) MarshalJSON() ([]byte, error) {
	b := m.Bits()
	if b == nil {
		b = []int{}
	}
	return json.Marshal(b)
}

// UnmarshalJSON reads a JSON array of NUMA node IDs.
func (m *BitMask) UnmarshalJSON(data []byte) error {
	var ids []int
	if err := json.Unmarshal(data, &ids); err != nil {
		return fmt.Errorf("a NUMA mask is an array of node IDs: %w", err)
	}
	v, err := NewBitMask(ids...)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// IterateBitMasks calls fn for every non-empty subset of ids in the kubelet's
// order: by size, then lexicographically by position in ids. Callers pass
// sorted IDs, as the kubelet's hint providers do. IDs outside 0 to 63 are
// left out.
func IterateBitMasks(ids []int, fn func(BitMask)) {
	valid := make([]int, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id <= maxNUMANodeID {
			valid = append(valid, id)
		}
	}
	ids = valid
	var iterate func(rest []int, accum BitMask, need int)
	iterate = func(rest []int, accum BitMask, need int) {
		if need == 0 {
			fn(accum)
			return
		}
		for i := range rest {
			iterate(rest[i+1:], accum|1<<uint(rest[i]), need-1)
		}
	}
	for size := 1; size <= len(ids); size++ {
		iterate(ids, 0, size)
	}
}
