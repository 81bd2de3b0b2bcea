package topomgr

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKubeletConfigTableIsSorted keeps kubeletConfigType's binary search
// right: the generated table is sorted by name, each name once.
func TestKubeletConfigTableIsSorted(t *testing.T) {
	assert.True(t, sort.SliceIsSorted(kubeletConfigTable[:], func(i, j int) bool { return kubeletConfigTable[i].Name < kubeletConfigTable[j].Name }))
	for i := 1; i < len(kubeletConfigTable); i++ {
		assert.NotEqual(t, kubeletConfigTable[i-1].Name, kubeletConfigTable[i].Name)
	}
	for _, tt := range []struct {
		name string
		want bool
	}{{"address", true}, {"topologyManagerPolicy", true}, {"kind", true}, {"TopologyManagerPolicy", false}, {"", false}, {"zzz", false}} {
		_, ok := kubeletConfigType(tt.name)
		assert.Equal(t, tt.want, ok, tt.name)
	}
}
