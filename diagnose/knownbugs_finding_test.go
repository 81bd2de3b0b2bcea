package diagnose

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
