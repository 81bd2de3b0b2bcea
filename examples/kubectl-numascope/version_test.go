package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/kubeversion"
	"github.com/numascope/numascope/internal/version"
)

// TestVersion: version and --version print the build information, the Go
// release and the kubelet releases modelled, in each -o format, without a
// kubeconfig.
func TestVersion(t *testing.T) {
	noKubeconfig(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 0, run(context.Background(), args, &out, &errb), errb.String())
		assert.True(t, strings.HasPrefix(out.String(), "kubectl-numascope "), out.String())
		assert.Contains(t, out.String(), "  module    github.com/numascope/numascope/examples/kubectl-numascope")
		assert.Contains(t, out.String(), "  go        "+runtime.Version())
		assert.Contains(t, out.String(), "  kubelets  "+kubeversion.Range())
		assert.Empty(t, errb.String())
	}
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"version", "-o", "json"}, &out, &errb), errb.String())
	var v version.Info
	require.NoError(t, json.Unmarshal(out.Bytes(), &v), out.String())
	assert.Equal(t, "kubectl-numascope", v.Program)
	assert.Equal(t, kubeversion.NewestRelease(), v.Kubelets.Newest)

	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"--version", "-o", "jsonpath={.kubelets.oldest}-{.kubelets.newest}"}, &out, &errb), errb.String())
	assert.Equal(t, v.Kubelets.Oldest+"-"+v.Kubelets.Newest, out.String())
}
