package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Kind says what the kubelet does with an entry's text.
type Kind string

// The kinds of entries.
const (
	KindLog   Kind = "log"   // a klog or logr call prints it (or the kubelet writes it to stderr)
	KindError Kind = "error" // an error value's text: fmt.Errorf, errors.New, an Error method
	KindEvent Kind = "event" // an event the kubelet records (its reason is Entry.Reason)
	KindAdmit Kind = "admit" // a pod admission result (Reason and Message of a rejected pod)
	KindFlag  Kind = "flag"  // an error of the command-line flag parser (spf13/pflag)
)

// Level is the severity an entry is printed at.
type Level string

// The levels. An event of type Warning is LevelWarning, Normal is
// LevelInfo; errors, flag errors and admission rejections are LevelError.
const (
	LevelInfo    Level = "info"
	LevelWarning Level = "warning"
	LevelError   Level = "error"
	LevelFatal   Level = "fatal" // klog's Fatal and Exit families: the kubelet stops
)

// Form is how a log call lays its text out.
type Form string

// The forms.
const (
	FormPrintf     Form = "printf"     // Format is printed as fmt prints it
	FormStructured Form = "structured" // Format is the message of InfoS, ErrorS or logr, followed by Keys
)

// Entry is one text the kubelet can print, as its source says it: a format
// string with its verbs, the structured keys that follow it, and where and
// in which releases it exists. Entries are read only: the slices they hold
// are shared.
type Entry struct {
	// ID is a short hash of Kind, Level, Form, Format, Keys and Reason:
	// it does not change when the call moves to another line or file.
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Level is the severity; V the smallest klog verbosity (V(n)) it is
	// logged at, 0 for an unconditional call.
	Level Level `json:"level"`
	V     int   `json:"v,omitempty"`
	Form  Form  `json:"form"`
	// Managers are the kubelet parts whose code prints it (cpumanager,
	// memorymanager, devicemanager, topologymanager, dra, containermanager,
	// checkpointmanager, lifecycle, kubelet, kubelet-app, kubelet-config,
	// kuberuntime, component-base, pflag), sorted.
	Managers []string `json:"managers"`
	// Format is a fmt format string: the kubelet's own for printf calls
	// and errors, and the message (with % doubled) for structured calls,
	// events without arguments and constant texts.
	Format string `json:"format"`
	// Keys are the structured keys in the order they follow the message;
	// "err" comes first when the call logs an error, "?" stands for a key
	// the source computes.
	Keys []string `json:"keys,omitempty"`
	// Reason is an event's or an admission result's reason.
	Reason string `json:"reason,omitempty"`
	// Errs are the indexes (from 0) of Format's verbs whose operand is an
	// error, whose text is itself a kubelet text to match (every %w is one).
	Errs []int `json:"errs,omitempty"`
	// Dynamic is set when part of the text is computed at run time: each
	// such part is a %v of Format that no argument of the source fills.
	Dynamic bool `json:"dynamic,omitempty"`
	// Releases are the kubelet releases whose sources hold the entry.
	Releases Ranges `json:"releases"`
	// Sites are the calls that print it.
	Sites []Site `json:"sites"`
}

// Site is one call in the sources: the file (relative to its module;
// prefixed with the module path outside k8s.io/kubernetes), the enclosing
// function ("(*manager).Allocate", "NewManager", "var ErrX"), the call
// ("klog.Errorf", "logger.Error", "fmt.Errorf", "recorder.Eventf",
// "PodAdmitResult", "Error()") and the releases that have it there.
type Site struct {
	File     string `json:"file"`
	Func     string `json:"func"`
	Call     string `json:"call"`
	Releases Ranges `json:"releases"`
}

// Newest is the newest release that holds the entry, as its minor number
// (37 for 1.37), or 0 when the entry names none.
func (e *Entry) Newest() int { return e.Releases.Newest() }

// Range is a span of kubelet minor releases of 1.x, both ends included.
type Range struct{ First, Last int }

// Ranges is a sorted set of release spans, written "1.16-1.20,1.22,1.24-1.37".
type Ranges []Range

// RangesOf returns the ranges covering the given minor releases.
func RangesOf(minors []int) Ranges {
	m := append([]int(nil), minors...)
	sort.Ints(m)
	var out Ranges
	for _, v := range m {
		if n := len(out); n > 0 && v <= out[n-1].Last+1 {
			if v > out[n-1].Last {
				out[n-1].Last = v
			}
			continue
		}
		out = append(out, Range{v, v})
	}
	return out
}

// Contains reports whether release 1.minor is in the set.
func (r Ranges) Contains(minor int) bool {
	for _, x := range r {
		if minor >= x.First && minor <= x.Last {
			return true
		}
	}
	return false
}

// Newest is the largest minor release in the set, 0 when it is empty.
func (r Ranges) Newest() int {
	if len(r) == 0 {
		return 0
	}
	return r[len(r)-1].Last
}

// Oldest is the smallest minor release in the set, 0 when it is empty.
func (r Ranges) Oldest() int {
	if len(r) == 0 {
		return 0
	}
	return r[0].First
}

// Minors lists the minor releases of the set in order.
func (r Ranges) Minors() []int {
	var out []int
	for _, x := range r {
		for v := x.First; v <= x.Last; v++ {
			out = append(out, v)
		}
	}
	return out
}

// String writes the set as "1.16-1.20,1.22".
func (r Ranges) String() string {
	var b strings.Builder
	for i, x := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "1.%d", x.First)
		if x.Last != x.First {
			fmt.Fprintf(&b, "-1.%d", x.Last)
		}
	}
	return b.String()
}

// ParseRanges reads the String form back.
func ParseRanges(s string) (Ranges, error) {
	if s == "" {
		return nil, nil
	}
	var out Ranges
	for _, part := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(part, "-")
		first, err := parseMinor(lo)
		if err != nil {
			return nil, fmt.Errorf("release range %q: %w", s, err)
		}
		last := first
		if found {
			if last, err = parseMinor(hi); err != nil {
				return nil, fmt.Errorf("release range %q: %w", s, err)
			}
		}
		if last < first || len(out) > 0 && first <= out[len(out)-1].Last+1 {
			return nil, fmt.Errorf("release range %q is not sorted and disjoint", s)
		}
		out = append(out, Range{first, last})
	}
	return out, nil
}

func parseMinor(s string) (int, error) {
	m, ok := strings.CutPrefix(s, "1.")
	if !ok {
		return 0, fmt.Errorf("%q is not a 1.x release", s)
	}
	v, err := strconv.Atoi(m)
	if err != nil || v < 0 || v > 999 {
		return 0, fmt.Errorf("%q is not a 1.x release", s)
	}
	return v, nil
}

// MarshalText writes the String form.
func (r Ranges) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads the String form.
func (r *Ranges) UnmarshalText(b []byte) error {
	v, err := ParseRanges(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
