package statefile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/utils/cpuset"
)

// The kubelet reads a cpuset with cpuset.Parse, which adds a range CPU by CPU
// and never ends on a range that ends at the largest int. numascope scans
// every cpuset first, without building anything, and expands it only within
// two bounds: the width of one range, and the CPUs of all the cpusets of one
// file taken together. Both are 2^20 CPUs, far above any real node (Linux
// builds for at most 8192 CPUs), and the file's bound is no narrower than the
// range's, so a file of one range that fits the range's bound fits the
// file's.

// maxParsedCPUs bounds the CPUs numascope expands from one cpuset range.
const maxParsedCPUs = 1 << 20

// MaxFileCPUs is the largest number of CPUs numascope expands from all the
// cpusets of one cpu_manager_state taken together (a CPU named twice counts
// twice, as the kubelet adds it twice). A file over it is reported as one the
// kubelet cannot restore, at the cpuset that goes over it. Decoding a file
// at the bound takes under a second and 150 MB at its peak (inspect).
const MaxFileCPUs = 1 << 20

// tooManyCPUs says why a cpuset over numascope's bounds cannot be a real
// node's. The static policy's validateState
// (pkg/kubelet/cm/cpumanager/policy_static.go) refuses to start when the
// default set and the assignments together are not the node's available
// CPUs ("current set of available CPUs ... doesn't match with CPUs in
// state ...").
const tooManyCPUs = "no node has that many (Linux builds for at most 8192 CPUs), and the kubelet's static CPU policy refuses at start a state that names CPUs the node does not have (its validateState requires the CPUs in the state to match the node's available CPUs)"

// errHugeCPUSet reports a range over maxParsedCPUs, or one that ends at the
// largest int.
var errHugeCPUSet = errors.New("numascope does not expand it")

// errCPUBudget reports a cpuset that takes its file over MaxFileCPUs.
var errCPUBudget = fmt.Errorf("the cpusets of the file name more than %d CPUs in all (a CPU counts once for each set that names it), and numascope does not expand more than %d CPUs from one file: %s", MaxFileCPUs, MaxFileCPUs, tooManyCPUs)

// errCPUSkipped is returned for the cpusets after the one that went over
// the budget: they are not looked at.
var errCPUSkipped = errors.New("not expanded: the file is over numascope's CPU budget")

// cpuBudget counts the CPUs expanded from the cpusets of one file in one
// walk over them. The zero value is a full budget.
type cpuBudget struct {
	used int
	over bool
}

// parse is cpuset.Parse with the bounds: it returns the same sets and the
// same errors for every cpuset the kubelet can read in reasonable time and
// memory, and errHugeCPUSet or errCPUBudget instead of expanding the others.
// A nil budget gives the cpuset a budget of its own.
func (b *cpuBudget) parse(s string) (cpuset.CPUSet, error) {
	if b == nil {
		b = &cpuBudget{}
	}
	if b.over {
		return cpuset.New(), errCPUSkipped
	}
	n, bad, err := cpuCount(s, MaxFileCPUs-b.used)
	if errors.Is(err, errCPUBudget) {
		b.over = true
	}
	if err != nil {
		return cpuset.New(), err
	}
	b.used += n
	if bad {
		// cpuset.Parse stops at the bad element, after at most n CPUs:
		// its error is the kubelet's own text.
		return cpuset.Parse(s)
	}
	// cpuCount walked every element of s as cpuset.Parse does and found
	// none bad: the set is the CPUs of its ranges, built in one sized map
	return newCPUSet(n, s), nil
}

// check is parse without building the set: the same error, the same charge
// to the budget.
func (b *cpuBudget) check(s string) error {
	_, err := b.checkN(s)
	return err
}

// checkN is check that also returns the CPUs of s when it has no error.
func (b *cpuBudget) checkN(s string) (int, error) {
	if b.over {
		return 0, errCPUSkipped
	}
	n, bad, err := cpuCount(s, MaxFileCPUs-b.used)
	if errors.Is(err, errCPUBudget) {
		b.over = true
	}
	if err != nil {
		return 0, err
	}
	b.used += n
	if bad {
		_, err := cpuset.Parse(s) // the kubelet's own text
		return 0, err
	}
	return n, nil
}

// charge is checkN for a set of n CPUs that checkN accepted before (under
// another budget): the same error and the same charge as checking it again.
// The count of a set grows range by range, so it goes over the room left
// exactly when its whole count does.
func (b *cpuBudget) charge(n int) error {
	if b.over {
		return errCPUSkipped
	}
	if n > MaxFileCPUs-b.used {
		b.over = true
		return errCPUBudget
	}
	b.used += n
	return nil
}

// eachCPU calls fn for every CPU of a cpuset that check accepted, range by
// range, without building the set.
func eachCPU(s string, fn func(cpu int)) {
	for rest, more := s, s != ""; more; {
		var r string
		r, rest, more = strings.Cut(rest, ",")
		lo, hi, _, ok := kubeletRange(r)
		if !ok {
			return
		}
		for c := lo; ; c++ { // hi may be the largest int (one id)
			fn(c)
			if c == hi {
				break
			}
		}
	}
}

// parseCPUSet parses one cpuset with a budget of its own.
func parseCPUSet(s string) (cpuset.CPUSet, error) { return (*cpuBudget)(nil).parse(s) }

// cpuCount walks s as cpuset.Parse does and returns how many CPUs it adds
// before it ends or stops at a bad element (bad is then true). It builds
// nothing; it refuses a range over maxParsedCPUs or ending at the largest int
// (errHugeCPUSet) and a count over room (errCPUBudget).
func cpuCount(s string, room int) (n int, bad bool, err error) {
	if s == "" {
		return 0, false, nil
	}
	for rest, more := s, true; more; {
		var r string
		r, rest, more = strings.Cut(rest, ",")
		lo, hi, isRange, ok := kubeletRange(r)
		if !ok {
			return n, true, nil
		}
		if isRange && hi == math.MaxInt {
			return 0, false, fmt.Errorf("cpuset range %s ends at the largest integer, where the kubelet's loop over it never ends; %w", quoteShort(r), errHugeCPUSet)
		}
		if uint64(hi-lo) >= maxParsedCPUs {
			return 0, false, fmt.Errorf("cpuset range %s names %d CPUs, more than %d; %w: %s", quoteShort(r), uint64(hi-lo)+1, maxParsedCPUs, errHugeCPUSet, tooManyCPUs)
		}
		n += hi - lo + 1
		if n > room {
			return 0, false, errCPUBudget
		}
	}
	return n, false, nil
}

// kubeletRange reads one element of a cpuset the way cpuset.Parse does
// ("34" or "0-5", strconv.Atoi for each end). ok is false where cpuset.Parse
// returns an error. A single id (isRange false) is added without a loop.
func kubeletRange(r string) (lo, hi int, isRange, ok bool) {
	// the kubelet's own spelling, "34" or "0-5" with at most 18 digits
	// each, read without strconv; anything else as the kubelet reads it
	if v, i := leadDigits(r, 0); i > 0 {
		if i == len(r) {
			return v, v, false, true
		}
		if r[i] == '-' {
			if w, j := leadDigits(r, i+1); j > i+1 && j == len(r) {
				if v > w {
					return 0, 0, true, false
				}
				return v, w, true, true
			}
		}
	}
	a, b, isRange := strings.Cut(r, "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false, false
	}
	if !isRange {
		return lo, lo, false, true
	}
	hi, err = strconv.Atoi(b)
	if err != nil || lo > hi {
		return 0, 0, true, false
	}
	return lo, hi, true, true
}

// leadDigits reads up to 18 decimal digits of s from i: their value and
// the index after them (i when there is none).
func leadDigits(s string, i int) (int, int) {
	v, start := 0, i
	for i < len(s) && i-start < 18 && s[i]-'0' <= 9 {
		v = v*10 + int(s[i]-'0')
		i++
	}
	return v, i
}

// quoteShort quotes a cpuset or one of its ranges for a message, cut to a
// readable length as a long name is cut: "0-1,3-4,…" (81920 bytes).
func quoteShort(s string) string { return quoteCut(s, 80, 72) }

// count charges a pod entry's set to the budget without expanding it.
func (b *cpuBudget) count(e cpuPodEntry) error {
	if !e.decoded {
		b.used += e.CPUSet.Size()
		return nil
	}
	if b.over {
		return errCPUSkipped
	}
	n, _, err := cpuCount(e.text, MaxFileCPUs-b.used)
	if errors.Is(err, errCPUBudget) {
		b.over = true
	}
	b.used += n
	return err
}

// setText quotes a cpuset for the kubelet's error text: in full, as the
// kubelet does, unless numascope refused it for its bounds (the kubelet has
// no text for those), where a long set is cut.
func setText(s string, err error) string {
	if errors.Is(err, errCPUBudget) || errors.Is(err, errHugeCPUSet) {
		return quoteShort(s)
	}
	return strconv.Quote(s)
}
