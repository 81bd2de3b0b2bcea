// Package cpulist parses Linux CPU lists ("0-3,8,10-11", the form of
// cpuset.Parse, sysfs cpulist files, kubelet flags and checkpoints) with
// bounds, so that no input can make numascope hang or run out of memory.
//
// k8s.io/utils/cpuset.Parse expands a range CPU by CPU and loops forever on a
// range that ends at the largest int; Parse here checks every id and the
// total number of CPUs before anything is expanded.
package cpulist

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/utils/cpuset"
)

// MaxCPUID is the largest CPU id Parse accepts by default. Linux builds with
// at most NR_CPUS CPUs, and no architecture allows NR_CPUS above 8192; 65535
// leaves room for any future kernel while keeping every expansion small.
const MaxCPUID = 1<<16 - 1

// MaxCPUs is the default cap on the number of CPUs one list expands to.
const MaxCPUs = 1 << 16

// ErrTooLarge is wrapped by every error about an id or a list over the bounds.
var ErrTooLarge = errors.New("CPU list over numascope's bounds")

// Limits bounds one Parse call. The zero value means MaxCPUID and MaxCPUs.
type Limits struct {
	// MaxID is the largest CPU id accepted.
	MaxID int
	// MaxCPUs caps the number of CPUs the list expands to.
	MaxCPUs int
}

func (l Limits) withDefaults() Limits {
	if l.MaxID <= 0 {
		l.MaxID = MaxCPUID
	}
	if l.MaxCPUs <= 0 {
		l.MaxCPUs = MaxCPUs
	}
	return l
}

// Parse parses a CPU list with the default limits.
func Parse(s string) (cpuset.CPUSet, error) { return ParseWithLimits(s, Limits{}) }

// ParseWithLimits parses a CPU list: comma-separated ids and inclusive
// ranges, the empty string being the empty set. It accepts exactly what
// cpuset.Parse accepts, except that an id above l.MaxID or a list that
// expands to more than l.MaxCPUs CPUs is refused with an error wrapping
// ErrTooLarge. Errors quote the offending element.
func ParseWithLimits(s string, l Limits) (cpuset.CPUSet, error) {
	l = l.withDefaults()
	if s == "" {
		return cpuset.New(), nil
	}
	total := 0
	var ids []int
	for _, r := range strings.Split(s, ",") {
		lo, hi, err := parseRange(r, l.MaxID)
		if err != nil {
			return cpuset.New(), err
		}
		// hi-lo cannot overflow (both are non-negative); checking it before
		// adding keeps the running total from overflowing.
		if hi-lo >= l.MaxCPUs || total+(hi-lo+1) > l.MaxCPUs {
			return cpuset.New(), fmt.Errorf("CPU list %s: more than %d CPUs in all: %w", quote(s), l.MaxCPUs, ErrTooLarge)
		}
		total += hi - lo + 1
		for id := lo; ; id++ { // no id <= hi test: hi may be the largest int
			ids = append(ids, id)
			if id == hi {
				break
			}
		}
	}
	return cpuset.New(ids...), nil
}

// Count returns how many CPUs a valid list names without expanding it, or an
// error as ParseWithLimits gives it (without the MaxCPUs cap). A count that
// does not fit an int is reported as the largest int.
func Count(s string, maxID int) (int, error) {
	if maxID <= 0 {
		maxID = MaxCPUID
	}
	if s == "" {
		return 0, nil
	}
	n := 0
	for _, r := range strings.Split(s, ",") {
		lo, hi, err := parseRange(r, maxID)
		if err != nil {
			return 0, err
		}
		if w := hi - lo + 1; w <= 0 || n > math.MaxInt-w {
			n = math.MaxInt
		} else {
			n += w
		}
	}
	return n, nil
}

func parseRange(r string, maxID int) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(r, "-")
	lo, err = parseID(a, r, maxID)
	if err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	hi, err = parseID(b, r, maxID)
	if err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("CPU range %s: the start is after the end (write low-high, e.g. 0-3)", quote(r))
	}
	return lo, hi, nil
}

func parseID(s, elem string, maxID int) (int, error) {
	// cpuset.Parse uses strconv.Atoi: a sign is allowed, spaces are not.
	n, err := strconv.Atoi(s)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("CPU id %s in %s: above the largest CPU id %d: %w", quote(s), quote(elem), maxID, ErrTooLarge)
		}
		return 0, fmt.Errorf("CPU list element %s: %s is not a CPU id (a list looks like 0-3,8)", quote(elem), quote(s))
	}
	if n < 0 {
		return 0, fmt.Errorf("CPU list element %s: CPU ids are not negative", quote(elem))
	}
	if n > maxID {
		return 0, fmt.Errorf("CPU id %d in %s: above the largest CPU id %d: %w", n, quote(elem), maxID, ErrTooLarge)
	}
	return n, nil
}

// quote quotes s for an error, cut to a readable length.
func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
