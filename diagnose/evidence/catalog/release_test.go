package catalog

import (
	"strconv"
	"testing"

	"github.com/numascope/numascope/internal/kubeversion"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCatalogueCoversTheSupportedReleases keeps the catalogue in step with
// the releases numascope answers for: when kubeversion.Newest is raised,
// this fails until the catalogue is mined again with the new release
// (go run ./cmd/kubelet-catalog in internal/conformance).
func TestCatalogueCoversTheSupportedReleases(t *testing.T) {
	h := Info()
	require.NotEmpty(t, h.Releases, "the catalogue lists no release it was read from")
	newest := h.Releases[len(h.Releases)-1].Release
	assert.Equal(t, kubeversion.NewestRelease(), newest, "the catalogue's newest release")
	seen := map[string]bool{}
	for _, r := range h.Releases {
		seen[r.Release] = true
	}
	for minor := kubeversion.Oldest; minor <= kubeversion.Newest; minor++ {
		r := "1." + strconv.Itoa(minor)
		assert.True(t, seen[r], "the catalogue was not read from kubelet %s, a supported release", r)
	}
}
