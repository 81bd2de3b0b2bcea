package main

import (
	"encoding/json"
	"fmt"
	"github.com/numascope/numascope/internal/words"
	"io"
	"strings"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/statefile"
)

// jsonLine is the JSON contract: one object per file (README "Command-line
// contracts"). Fields are added, never renamed or dropped.
type jsonLine struct {
	File           string                   `json:"file"`
	Kind           statefile.Kind           `json:"kind"`
	Format         statefile.Format         `json:"format"`
	Checksum       statefile.ChecksumReport `json:"checksum"`
	KubeletAccepts bool                     `json:"kubeletAccepts"`
	OnReject       string                   `json:"onReject"`
	Reason         string                   `json:"reason,omitempty"`
	Problems       []statefile.Problem      `json:"problems"`
	Groups         []statefile.Group        `json:"groups,omitempty"`
	// Verdict is the text report's first line after the file's name: what
	// the kubelet does with the file, in its terms.
	Verdict string `json:"verdict"`
	// Holders is who holds what per NUMA node (internal/holdings), complete.
	Holders *holdings.Holdings `json:"holders,omitempty"`
}

// fileReport is one file's answer, ready to print in any format.
type fileReport struct {
	line     jsonLine
	display  string // the file's name in text: the argument, or memory_manager_state for the sample
	file     *statefile.File
	err      error // the file could not be decoded at all
	remedy   string
	isSample bool
}

func newReport(jsonName, display string, f *statefile.File, err error, o *options, isSample bool) fileReport {
	r := fileReport{display: display, file: f, err: err, isSample: isSample}
	r.line.File = jsonName
	if err != nil {
		r.remedy = readRemedy(err)
		r.line.Problems = []statefile.Problem{{Message: err.Error(), Severity: statefile.SeverityError, Remedy: r.remedy}}
		r.line.Verdict = "cannot be inspected: " + err.Error()
		return r
	}
	r.line.Kind, r.line.Format, r.line.Checksum = f.Kind, f.Format, f.Checksum
	r.line.KubeletAccepts, r.line.OnReject, r.line.Reason, r.line.Problems = f.KubeletAccepts, f.OnReject, f.Reason, f.Problems
	if r.line.Problems == nil {
		r.line.Problems = []statefile.Problem{}
	}
	if f.Memory != nil {
		r.line.Groups = f.Memory.Groups()
	}
	r.line.Verdict = consequence(f, o.verdictOf)
	r.line.Holders = holdings.Build(f, o.machine)
	return r
}

// write prints the report in the chosen format; i is its index among the
// files (YAML separates documents).
func (r fileReport) write(w io.Writer, o *options, i int) error {
	switch o.out.Format() {
	case cliout.JSON:
		// one object per line: the contract scripts rely on (the encoder
		// writes the line without a second copy of it)
		return json.NewEncoder(w).Encode(r.line)
	case cliout.YAML:
		if i > 0 {
			if _, err := fmt.Fprintln(w, "---"); err != nil {
				return err
			}
		}
		return cliout.Encode(w, cliout.YAML, r.line)
	}
	p := newPrinter(w, o.out.Format())
	r.human(p, o)
	return p.err
}

// consequence says what the kubelet does with f, in its terms.
func consequence(f *statefile.File, kubelet string) string {
	if f.KubeletAccepts {
		s := kubelet + " restores it"
		if f.Checksum.ZeroSkipped {
			s += " (checksum 0: not checked)"
		}
		if n := errorCount(f); n > 0 {
			s += ", but " + words.Count(n, "error", "errors") + " below"
		}
		return s
	}
	why := clip(kubeletCause(f.Reason), 200)
	if f.OnReject == statefile.DiscardsData {
		return fmt.Sprintf("%s starts but discards the allocations in it — %s", kubelet, why)
	}
	return fmt.Sprintf("%s refuses to start — %s", kubelet, why)
}

// kubeletCause is the cause in the kubelet's error text, without the
// wrapping of its call chain and the advice to drain the node (the report
// gives the advice with the problems).
func kubeletCause(reason string) string {
	s := reason
	if i := strings.Index(s, ", please drain this node"); i >= 0 {
		s = s[:i]
	}
	for _, prefix := range []string{
		"could not restore state from checkpoint: ",
		"failed to create claimInfo cache: ",
		"create ResourceClaim cache: ",
		"error calling GetOrCreate() on checkpoint state: ",
		"GetOrCreate() on checkpoint state: ",
		"GetEntries() on checkpoint: ",
		"could not load v3 checkpoint: ",
		"could not load v4 checkpoint: ",
		"[memorymanager] ",
	} {
		s = strings.TrimPrefix(s, prefix)
	}
	// the DRA manager names its checkpoint file: "failed to get checkpoint NAME: "
	if rest, ok := strings.CutPrefix(s, "failed to get checkpoint "); ok {
		if i := strings.Index(rest, ": "); i >= 0 {
			s = rest[i+2:]
		}
	}
	if s == "" {
		return "the file cannot be restored"
	}
	return s
}

// errorCount counts the problems of severity error.
func errorCount(f *statefile.File) int {
	n := 0
	for _, p := range f.Problems {
		if p.Severity == statefile.SeverityError {
			n++
		}
	}
	return n
}

// policyOf is the policy the file names, for the verdict line.
func policyOf(f *statefile.File) string {
	switch {
	case f.CPU != nil:
		return f.CPU.PolicyName
	case f.Memory != nil:
		return f.Memory.PolicyName
	}
	return ""
}

// clip shortens s to at most n bytes (not inside a UTF-8 sequence), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
