package evidence

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// versionMark is one line's evidence of the kubelet release: a range of
// minor versions of 1.x (0 for an open end) or an exact version.
type versionMark struct {
	min, max int
	exact    string
	line     int
	why      string
}

// logRelease is the kubelet release a log implies (evidence-formats.md §0
// fingerprints): a range of 1.x minor versions, or the exact version of the
// start-up line.
type logRelease struct {
	// Min and Max are minor versions of 1.x; 0 means no bound.
	Min int `json:"min,omitempty"`
	Max int `json:"max,omitempty"`
	// Exact is the version the kubelet printed at start-up ("v1.29.6").
	Exact string `json:"exact,omitempty"`
	// Line is the line of the evidence that narrowed the range most.
	Line int `json:"line,omitempty"`
	// Evidence lists the lines used, "line 3: 64-digit binary masks (1.16 or 1.17)".
	Evidence []string `json:"evidence,omitempty"`
}

// String renders "v1.29.6", "1.21-1.27", "1.20", "1.28 or later",
// "1.20 or older", or "" when the log says nothing about the release.
func (r logRelease) String() string {
	switch {
	case r.Exact != "":
		return r.Exact
	case r.Min != 0 && r.Min == r.Max:
		return fmt.Sprintf("1.%d", r.Min)
	case r.Min != 0 && r.Max != 0:
		return fmt.Sprintf("1.%d-1.%d", r.Min, r.Max)
	case r.Min != 0:
		return fmt.Sprintf("1.%d or later", r.Min)
	case r.Max != 0:
		return fmt.Sprintf("1.%d or older", r.Max)
	}
	return ""
}

var reVersion = regexp.MustCompile(`^v?1\.(\d+)(?:\.(\d+))?`)

// minorPatch returns the minor and patch of the exact version, or -1.
func (r logRelease) minorPatch() (int, int) {
	m := reVersion.FindStringSubmatch(r.Exact)
	if m == nil {
		return -1, -1
	}
	minor, _ := strconv.Atoi(m[1])
	patch := 0
	if m[2] != "" {
		patch, _ = strconv.Atoi(m[2])
	}
	return minor, patch
}

// hasFix tells whether a kubelet fix released in 1.minor.patch is in the
// kubelet that wrote the log: known is false when the log does not say
// (no exact version and a range that straddles the fix).
func (r logRelease) hasFix(minor, patch int) (has, known bool) {
	if m, p := r.minorPatch(); m >= 0 {
		return m > minor || m == minor && p >= patch, true
	}
	switch {
	case r.Max != 0 && r.Max < minor:
		return false, true
	case r.Min != 0 && (r.Min > minor || r.Min == minor && patch == 0):
		return true, true
	}
	return false, false
}

// release returns the kubelet release the log implies, with its evidence
// lines: for findings such as "a known kubelet bug fixed in 1.X.Y".
func (l *Log) release() logRelease {
	return l.Release
}

// releaseInference intersects the marks in line order, one at a time (a
// log keeps no marks: the state is a few numbers and at most 8 evidence
// lines); a mark that contradicts the range so far is reported as a
// warning and left out (a log that mixes kubelets, or a fingerprint
// numascope has wrong).
type releaseInference struct {
	r         logRelease
	lo, hi    int
	narrowest int // width of the narrowest range so far, +1 (0: none yet)
	conflicts int
	warning   string // the first contradiction
}

func (ri *releaseInference) add(m versionMark) {
	r := &ri.r
	lo, hi := ri.lo, ri.hi
	mlo, mhi := m.min, m.max
	if m.exact != "" {
		v := logRelease{Exact: m.exact}
		minor, _ := v.minorPatch()
		if minor < 0 {
			return
		}
		mlo, mhi = minor, minor
	}
	nlo, nhi := lo, hi
	if mlo > nlo {
		nlo = mlo
	}
	if mhi != 0 && (nhi == 0 || mhi < nhi) {
		nhi = mhi
	}
	if nhi != 0 && nlo > nhi {
		ri.conflicts++
		if ri.conflicts == 1 {
			ri.warning = fmt.Sprintf("line %d: %s contradicts the release the earlier lines imply (%s): the log may mix kubelets; the earlier lines are kept",
				m.line, m.why, logRelease{Min: lo, Max: hi}.String())
		}
		return
	}
	changed := nlo != lo || nhi != hi || m.exact != "" && r.Exact == ""
	ri.lo, ri.hi = nlo, nhi
	if m.exact != "" && r.Exact == "" {
		r.Exact = m.exact
	}
	if changed {
		width := 1000
		if nhi != 0 {
			width = nhi - nlo
		}
		if ri.narrowest == 0 || width < ri.narrowest-1 || m.exact != "" {
			ri.narrowest = width + 1
			r.Line = m.line
		}
		if len(r.Evidence) < 8 {
			r.Evidence = append(r.Evidence, fmt.Sprintf("line %d: %s", m.line, m.why))
		}
	}
}

// result is the release the marks imply; the first contradiction, if any,
// is added to l's warnings.
func (ri *releaseInference) result(l *Log) logRelease {
	if ri.warning != "" {
		l.Warnings = append(l.Warnings, ri.warning)
	}
	r := ri.r
	r.Min, r.Max = ri.lo, ri.hi
	if r.Exact != "" && !strings.HasPrefix(r.Exact, "v") {
		r.Exact = "v" + r.Exact
	}
	return r
}
