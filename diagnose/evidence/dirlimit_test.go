package evidence

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSourcesFromDirIsBounded: a directory of more entries than any
// evidence set is refused.
func TestSourcesFromDirIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i <= maxDirEntries; i++ {
		f, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	_, err := SourcesFromDir(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 10000 entries")
}
