package diagnose

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/topomgr"
)

// TestKnownBugsREADME keeps the known-bug table in the root README.md the
// same as the Go table the findings use.
func TestKnownBugsREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	const start, end = "<!-- known-bugs:start -->\n", "<!-- known-bugs:end -->"
	s := string(readme)
	i, j := strings.Index(s, start), strings.Index(s, end)
	require.True(t, i >= 0 && j > i, "README.md lacks the %q ... %q markers", start, end)
	assert.Equal(t, knownBugsTable(), s[i+len(start):j], "README.md's known-bug table differs from knownBugs: paste knownBugsTable()'s output between the markers")
}

// TestKnownBugsTable holds every entry to the rules of the table: an
// upstream number, a summary, a way it was checked, and a workaround.
func TestKnownBugsTable(t *testing.T) {
	for _, b := range knownBugs {
		t.Run(b.ref(), func(t *testing.T) {
			assert.NotZero(t, b.issue+b.fix, "upstream number")
			assert.NotEmpty(t, b.summary)
			assert.NotEmpty(t, b.verified)
			assert.NotEmpty(t, b.workaround)
			assert.NotNil(t, b.match)
			if b.fixedIn != "" {
				assert.NotZero(t, b.fix, "a fixed bug names its fix")
			}
			if b.from > 0 && b.to > 0 {
				assert.LessOrEqual(t, b.from, b.to)
			}
			assert.NotContains(t, b.summary, "|", "breaks the Markdown table")
		})
	}
}

// TestKnownBugMatchers holds each entry's condition to the case it names
// and to a near miss.
func TestKnownBugMatchers(t *testing.T) {
	frac := &topomgr.Pod{Name: "p", QOSClass: "Guaranteed", Containers: []topomgr.Container{{Name: "c", Resources: topomgr.Resources{Requests: map[string]string{"cpu": "1500m"}}}}}
	whole := &topomgr.Pod{Name: "p", QOSClass: "Guaranteed", Containers: []topomgr.Container{{Name: "c", Resources: topomgr.Resources{Requests: map[string]string{"cpu": "2"}}}}}
	withInit := &topomgr.Pod{Name: "p", QOSClass: "Guaranteed", InitContainers: []topomgr.Container{{Name: "i", Resources: topomgr.Resources{Requests: map[string]string{"cpu": "2"}}}}}
	tae := &Finding{Code: CodeTopologyAffinityError}
	tests := []struct {
		bug       int // fix, or issue when there is no fix
		hit, miss bugContext
	}{
		{83697, bugContext{f: tae, policy: "single-numa-node"}, bugContext{f: tae, policy: "restricted"}},
		{83777, bugContext{f: tae, policy: "single-numa-node", pod: frac}, bugContext{f: tae, policy: "single-numa-node", pod: whole}},
		{118635, bugContext{f: &Finding{Code: CodeDevicesUnavailable}, restarted: true}, bugContext{f: &Finding{Code: CodeDevicesUnavailable}}},
		{125579, bugContext{f: &Finding{Cause: evidence.AllocDeviceUnhealthy, inner: uae("no healthy devices present; cannot allocate unhealthy devices a/b")}},
			bugContext{f: &Finding{Cause: evidence.AllocDeviceUnhealthy, inner: uae("previously allocated devices are no longer healthy; cannot allocate unhealthy devices a/b")}}},
		{123443, bugContext{f: &Finding{Code: CodeMemoryStateReplay}}, bugContext{f: &Finding{Code: CodeUnexplainedNUMAGroup}}},
		{127959, bugContext{f: &Finding{Code: CodeSMTAlignmentError, inner: msgSMTWrong}}, bugContext{f: &Finding{Code: CodeSMTAlignmentError, inner: msgSMTMulti}}},
		{129079, bugContext{f: &Finding{Code: CodeSMTAlignmentError, inner: msgSMTPhys}, restarted: true}, bugContext{f: &Finding{Code: CodeSMTAlignmentError, inner: msgSMTPhys}}},
		{112228, bugContext{f: &Finding{Cause: evidence.AllocCPUs}, pod: withInit}, bugContext{f: &Finding{Cause: evidence.AllocCPUs}, pod: whole}},
	}
	require.Len(t, tests, len(knownBugs), "a case per entry")
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.bug), func(t *testing.T) {
			var b *knownBug
			for i := range knownBugs {
				if knownBugs[i].fix == tc.bug || (knownBugs[i].fix == 0 && knownBugs[i].issue == tc.bug) {
					b = &knownBugs[i]
				}
			}
			require.NotNil(t, b, "entry %d", tc.bug)
			assert.True(t, b.match(tc.hit), "hit")
			assert.False(t, b.match(tc.miss), "miss")
		})
	}
}
