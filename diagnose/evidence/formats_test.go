package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryFormatHasAFixture: every row of the formats table has a
// fixture, testdata/formats/KIND--NAME.txt, that its Looks recognises and
// that the kind's reader reads; no fixture is left without its row.
func TestEveryFormatHasAFixture(t *testing.T) {
	rows := map[string]bool{}
	for _, f := range Formats() {
		name := f.Kind + "--" + f.Name
		require.False(t, rows[name], "two rows named %s", name)
		rows[name] = true
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "formats", name+".txt"))
			require.NoError(t, err, "the row needs a fixture: write testdata/formats/%s.txt in the format", name)
			why, ok := f.Looks(data)
			assert.True(t, ok, "Looks recognises its fixture")
			assert.NotEmpty(t, why, "Looks says why")
			cands, _ := sniff(data, nil)
			assert.Contains(t, kindsOf(cands), f.Kind, "the table offers the kind")
			var ev Set
			it := ev.Add(name, f.Kind, data)
			assert.True(t, it.Used(), "the %s reader reads the fixture: %+v", f.Kind, it)
			assert.True(t, strings.HasPrefix(it.Kind, f.Kind), "read as %s, not %s", f.Kind, it.Kind)
		})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "formats", "*.txt"))
	require.NoError(t, err)
	for _, p := range files {
		assert.True(t, rows[strings.TrimSuffix(filepath.Base(p), ".txt")], "%s has no row in the formats table", p)
	}
}
