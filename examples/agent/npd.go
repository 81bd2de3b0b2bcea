package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/numascope/numascope/statefile"
)

// Exit codes of a node-problem-detector custom plugin.
const (
	npdOK      = 0
	npdNonOK   = 1
	npdUnknown = 2
)

// npdMaxMessage is the default max_output_length of NPD's custom plugin
// monitor: NPD cuts longer messages there, so the cause comes first.
const npdMaxMessage = 80

// npdLine is `--once --report npd`: the round as node-problem-detector's
// custom plugin contract wants it, one short line on stdout and the status
// as the exit code (0 OK, 1 NonOK: a checkpoint the kubelet rejects or a
// finding of severity error, 2 Unknown: the round did not finish).
func npdLine(r *Report) (string, int) {
	if r == nil {
		return "numascope: the round was interrupted", npdUnknown
	}
	var problems []string
	for _, c := range r.Checkpoints {
		if c.KubeletAccepts != nil && !*c.KubeletAccepts {
			problems = append(problems, filepath.Base(c.File)+" rejected by the kubelet")
		}
	}
	for _, f := range r.Findings {
		if f.Severity == statefile.SeverityError {
			problems = append(problems, f.Code)
		}
	}
	if len(problems) == 0 {
		accepted := 0
		for _, c := range r.Checkpoints {
			if c.KubeletAccepts != nil && *c.KubeletAccepts {
				accepted++
			}
		}
		return cutMessage(fmt.Sprintf("numascope: %d checkpoints accepted, no error finding", accepted)), npdOK
	}
	problems = dedupe(problems)
	return cutMessage("numascope: " + strings.Join(problems, ", ")), npdNonOK
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// cutMessage keeps a message within npdMaxMessage bytes, on a rune boundary.
func cutMessage(s string) string {
	if len(s) <= npdMaxMessage {
		return s
	}
	cut := npdMaxMessage - len("...")
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
