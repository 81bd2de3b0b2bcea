package diagnose

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// FuzzFindingMessage runs the message templates, the inner-error reader,
// the kubelet-range clues and the whole diagnosis on one kubelet message:
// never a panic, and a finding only for a message a template matches.
func FuzzFindingMessage(f *testing.F) {
	for _, m := range []string{msgTAE, msgSMTPhys1, msgSMTWrong, msgUpdatePlug,
		uae("no healthy devices present; cannot allocate unhealthy devices a/b"), uae("rpc error: code = Unknown desc = x")} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		fuzzbudget.Run(t, func() {
			reason := reasonFromMessage(msg)
			in := classifyInner(msg)
			assert.LessOrEqual(t, len(in.text), len(msg))
			var r kubeletRange
			messageRange(&r, "", msg, true, "events.txt")
			if r.min > 0 && r.max > 0 {
				assert.LessOrEqual(t, r.min, r.max, "range %s", r)
			}
			ev := &Events{Source: "events.txt", Format: "table", Events: []Event{{Line: 1, Type: "Warning", Object: "pod/p", Message: msg}}}
			rep, err := Run(context.Background(), &Evidence{Events: []*Events{ev}})
			if err != nil {
				t.Fatal(err)
			}
			if reason == "" {
				assert.Empty(t, rep.Findings, "no template matched %q", msg)
				return
			}
			for _, fd := range rep.Findings {
				assert.NotEmpty(t, fd.Code)
				assert.False(t, strings.Contains(fd.Title, "%!"), "format error in %q", fd.Title)
			}
		})
	})
}
