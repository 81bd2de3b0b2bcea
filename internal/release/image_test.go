package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseBuildsTheAgentImage: for a Linux target whose archive holds the
// agent, the release writes the agent's image (internal/image tests what is
// in it) and lists it in SHA256SUMS; -image=false leaves it out.
func TestReleaseBuildsTheAgentImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent and the image tool (a minute or more cold): skipped under -short")
	}
	ctx := context.Background()
	for _, image := range []bool{true, false} {
		out := filepath.Join(t.TempDir(), "dist")
		r, err := newRelease(ctx, out, "v0.0.0-test", []target{{"linux", runtime.GOARCH}}, false, io.Discard)
		require.NoError(t, err)
		r.commands, r.image = []string{"agent"}, image
		bs, err := r.build(ctx)
		require.NoError(t, err)
		sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		require.NoError(t, err)
		name := "numascope-agent-v0.0.0-test-linux-" + runtime.GOARCH + ".oci.tar"
		_, statErr := os.Stat(filepath.Join(out, name))
		if !image {
			assert.Len(t, bs, 1, "the archive only")
			assert.True(t, os.IsNotExist(statErr), "-image=false writes no image")
			assert.NotContains(t, string(sums), name)
			continue
		}
		require.Len(t, bs, 2, "the archive and the image")
		assert.Equal(t, name, bs[1].name)
		require.NoError(t, statErr)
		assert.Contains(t, string(sums), bs[1].sum+"  "+name+"\n")
		assert.Contains(t, string(sums), bs[0].sum+"  "+bs[0].name+"\n")
	}
}
