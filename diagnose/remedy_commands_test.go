package diagnose_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reNoSuchCommand is a command numascope does not ship: the commands are
// inspect, diagnose, admit, podresources, agent (examples/*, the release
// archives) and kubectl numascope; there is no "numascope" binary.
// It is matched where a text runs it: in a code span or after "run".
var reNoSuchCommand = regexp.MustCompile("(?:`|\\b[Rr]un |运行 )numascope (?:inspect|diagnose|admit|podresources|agent)\\b")

// TestRemediesNameRealCommands reads every remedy numascope can print, in
// both languages (the scenarios' reports, the classification table's
// templates, the page's Chinese texts), and fails on a command that does
// not exist.
func TestRemediesNameRealCommands(t *testing.T) {
	var files []string
	scen, err := filepath.Glob(filepath.Join("testdata", "*", "expected.*"))
	require.NoError(t, err)
	require.NotEmpty(t, scen)
	files = append(files, scen...)
	files = append(files, filepath.Join("evidence", "catalog", "classes.jsonl"),
		filepath.Join("..", "playground", "web", "findings-zh.js"), filepath.Join("..", "playground", "web", "i18n.js"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range reNoSuchCommand.FindAllString(string(b), 3) {
			assert.Fail(t, "a command that does not exist", "%s: %q", f, m)
		}
	}
}
