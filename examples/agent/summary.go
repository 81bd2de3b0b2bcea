package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

// Caps of the summary form. Whatever the node holds, a summary line stays
// under summaryMaxBytes (TestSummaryIsBounded writes one from a round whose
// every list and string is over its cap).
const (
	summaryFindings = 50  // finding headlines, and rows of findingCounts
	summaryProblems = 20  // problems of one rejected checkpoint
	summaryRows     = 256 // rows of memory and of cpus
	summaryGroup    = 64  // NUMA ids in the group of one memory row
	summaryErrors   = 20  // entries of errors
	summaryText     = 512 // bytes of one string
	summaryMaxBytes = 512 << 10
)

// FindingCount is how many findings of one code and severity a round has.
type FindingCount struct {
	Code     string             `json:"code"`
	Severity statefile.Severity `json:"severity"`
	Count    int                `json:"count"`
}

// Omitted counts what the summary form left out of its capped lists, and
// says how to get all of it.
type Omitted struct {
	Findings      int `json:"findings,omitempty"`
	Problems      int `json:"problems,omitempty"` // over every checkpoint
	Memory        int `json:"memory,omitempty"`
	CPUs          int `json:"cpus,omitempty"`
	Errors        int `json:"errors,omitempty"`
	FindingCounts int `json:"findingCounts,omitempty"`
	// Note says it in words: "2450 more findings, 2496 more problems not in
	// this summary: --report full lists every one".
	Note string `json:"note"`
}

// summary returns a copy of r bounded in size whatever the node: no per-NUMA
// holders, evidence list, checksum layouts, problems of accepted files, nor
// the explanation, evidence and remedy of findings; each list capped (the
// findings to summaryFindings headlines that keep the first finding and
// one of every code and severity, errors first), each string clipped, and
// what was left out counted in Omitted and FindingCounts.
func (r *Report) summary() *Report {
	s := *r
	var om Omitted
	s.NUMA = nil
	s.Evidence = []evidence.Item{}
	s.Checkpoints = make([]Checkpoint, len(r.Checkpoints))
	for i, c := range r.Checkpoints {
		c.Error, c.Reason, c.OnReject = clip(c.Error), clip(c.Reason), clip(c.OnReject)
		if c.Checksum != nil {
			sum := *c.Checksum
			sum.Layouts = nil
			sum.Matched, sum.Era = clip(sum.Matched), clip(sum.Era)
			c.Checksum = &sum
		}
		if c.KubeletAccepts != nil && *c.KubeletAccepts {
			c.Problems = nil
		}
		if len(c.Problems) > 0 {
			n := min(len(c.Problems), summaryProblems)
			ps := make([]statefile.Problem, n)
			for j, p := range c.Problems[:n] {
				ps[j] = statefile.Problem{Path: clip(p.Path), Message: clip(p.Message), Remedy: clip(p.Remedy), Severity: p.Severity}
			}
			c.ProblemsOmitted = len(c.Problems) - n
			om.Problems += c.ProblemsOmitted
			c.Problems = ps
		}
		s.Checkpoints[i] = c
	}

	s.Memory, om.Memory = capped(r.Memory, summaryRows)
	for i, m := range s.Memory {
		if len(m.Group) > summaryGroup {
			s.Memory[i].Group = m.Group[:summaryGroup:summaryGroup]
			s.Memory[i].GroupOmitted = len(m.Group) - summaryGroup
		}
		s.Memory[i].Resource = clip(m.Resource)
	}
	s.CPUs, om.CPUs = capped(r.CPUs, summaryRows)

	s.PodResources.Socket, s.PodResources.Snapshot = clip(r.PodResources.Socket), clip(r.PodResources.Snapshot)
	s.PodResources.Error = clip(r.PodResources.Error)
	s.PodResources.Notes = make([]string, len(r.PodResources.Notes)) // already at most maxNotes + 1
	for i, n := range r.PodResources.Notes {
		s.PodResources.Notes[i] = clip(n)
	}
	if r.PodResources.Notes == nil {
		s.PodResources.Notes = nil
	}

	errs, more := capped(r.Errors, summaryErrors)
	s.Errors, om.Errors = make([]RoundError, len(errs)), more
	for i, e := range errs {
		s.Errors[i] = RoundError{Source: e.Source, File: clip(e.File), Message: clip(e.Message)}
	}

	keep := headlines(r.Findings, summaryFindings)
	s.Findings = make([]diagnose.Finding, len(keep))
	for i, j := range keep {
		f := r.Findings[j]
		s.Findings[i] = diagnose.Finding{Code: clip(f.Code), Severity: f.Severity, Title: clip(f.Title), Pod: clip(f.Pod), Evidence: []diagnose.Ref{}}
	}
	om.Findings = len(r.Findings) - len(keep)
	s.FindingCounts, om.FindingCounts = capped(findingCounts(r.Findings), summaryFindings)
	for i, c := range s.FindingCounts {
		s.FindingCounts[i].Code = clip(c.Code)
	}

	s.StateDir, s.Node = clip(r.StateDir), clip(r.Node)
	for i := range s.Checkpoints {
		s.Checkpoints[i].File = clip(s.Checkpoints[i].File)
	}
	if note := om.note(); note != "" {
		om.Note = note
		s.Omitted = &om
	}
	return &s
}

// note says what was left out, or "" when nothing was.
func (o Omitted) note() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{o.Findings, "finding"}, {o.Problems, "problem"}, {o.Memory, "memory row"}, {o.CPUs, "CPU row"},
		{o.Errors, "error"}, {o.FindingCounts, "finding code"},
	} {
		if p.n > 0 {
			parts = append(parts, words.Count(p.n, "more "+p.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " not in this summary: --report full lists every one"
}

// capped returns the first n of list (a copy) and how many it left out.
func capped[T any](list []T, n int) ([]T, int) {
	if list == nil {
		return nil, 0
	}
	k := min(len(list), n)
	return append([]T{}, list[:k]...), len(list) - k
}

// headlines picks at most n of the findings, as indices in order: the first
// finding (the verdict's), then one of each code and severity, then the
// rest, errors before warnings before infos, each in the report's order.
func headlines(findings []diagnose.Finding, n int) []int {
	order := make([]int, len(findings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return rank(findings[order[a]].Severity) < rank(findings[order[b]].Severity)
	})
	picked := make(map[int]bool, n)
	seen := map[[2]string]bool{}
	pick := func(i int) {
		if len(picked) < n && !picked[i] {
			picked[i] = true
			seen[[2]string{findings[i].Code, string(findings[i].Severity)}] = true
		}
	}
	if len(findings) > 0 {
		pick(0)
	}
	for _, i := range order {
		if !seen[[2]string{findings[i].Code, string(findings[i].Severity)}] {
			pick(i)
		}
	}
	for _, i := range order {
		pick(i)
	}
	keep := make([]int, 0, len(picked))
	for i := range picked {
		keep = append(keep, i)
	}
	sort.Ints(keep)
	return keep
}

// findingCounts counts the findings by code and severity: errors first,
// then the largest counts, then by code.
func findingCounts(findings []diagnose.Finding) []FindingCount {
	idx := map[[2]string]int{}
	var out []FindingCount
	for _, f := range findings {
		k := [2]string{f.Code, string(f.Severity)}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, FindingCount{Code: f.Code, Severity: f.Severity})
		}
		out[i].Count++
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		switch {
		case rank(x.Severity) != rank(y.Severity):
			return rank(x.Severity) < rank(y.Severity)
		case x.Count != y.Count:
			return x.Count > y.Count
		}
		return x.Code < y.Code
	})
	if out == nil {
		out = []FindingCount{}
	}
	return out
}

// clip shortens s to summaryText bytes (on a character boundary) and says
// how much it cut.
func clip(s string) string {
	if len(s) <= summaryText {
		return s
	}
	cut := summaryText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}
