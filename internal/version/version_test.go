package version

import (
	"bytes"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/kubeversion"
)

func TestFromBuildInfo(t *testing.T) {
	kubelets := Kubelets{Oldest: fmt.Sprintf("1.%d", kubeversion.Oldest), Newest: kubeversion.NewestRelease()}
	here := runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want Info
		text string
	}{
		{"a release: go install MODULE@VERSION", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Path: SDK, Version: "v0.4.0"},
			Settings: []debug.BuildSetting{{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}}},
			Info{Program: "inspect", Module: SDK, Version: "v0.4.0", Go: "go1.26.8", Platform: "darwin/arm64", Kubelets: kubelets},
			"inspect v0.4.0\n" +
				"  module    github.com/numascope/numascope v0.4.0\n" +
				"  commit    unknown (built without version control information: -buildvcs=false, or outside a checkout)\n" +
				"  go        go1.26.8 darwin/arm64\n" +
				"  kubelets  " + kubeversion.Range() + " (checkpoint restore and Topology Manager modelled)\n"},
		{"a nested module built in a checkout with changes", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: SDK + "/examples/agent", Version: "v0.0.0-20261202200600-dbea168abcde+dirty"},
			Deps: []*debug.Module{{Path: "k8s.io/api", Version: "v0.37.2"},
				{Path: SDK, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../.."}}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "dbea168abcdef"}, {Key: "vcs.time", Value: "2026-12-02T20:06:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			Info{Program: "agent", Module: SDK + "/examples/agent", Version: "v0.0.0-20261202200600-dbea168abcde+dirty", SDKModule: &Module{Replace: "../.."},
				Commit: "dbea168abcdef", CommitTime: "2026-12-02T20:06:00Z", Modified: true, Go: "go1.26.8", Platform: here, Kubelets: kubelets},
			"agent v0.0.0-20261202200600-dbea168abcde+dirty\n" +
				"  module    github.com/numascope/numascope/examples/agent v0.0.0-20261202200600-dbea168abcde+dirty\n" +
				"  sdk       github.com/numascope/numascope => ../..\n" +
				"  commit    dbea168abcdef 2026-12-02T20:06:00Z (with uncommitted changes)\n" +
				"  go        go1.26.8 " + here + "\n" +
				"  kubelets  " + kubeversion.Range() + " (checkpoint restore and Topology Manager modelled)\n"},
		{"a nested module against a released SDK", &debug.BuildInfo{
			Main: debug.Module{Path: SDK + "/examples/kubectl-numascope", Version: "v0.4.0"},
			Deps: []*debug.Module{{Path: SDK, Version: "v0.4.0"}}},
			Info{Program: "kubectl-numascope", Module: SDK + "/examples/kubectl-numascope", Version: "v0.4.0", SDKModule: &Module{Version: "v0.4.0"},
				Go: runtime.Version(), Platform: here, Kubelets: kubelets}, ""},
		{"no build information", nil,
			Info{Program: "diagnose", Module: "unknown", Version: "(devel)", Go: runtime.Version(), Platform: here, Kubelets: kubelets}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromBuildInfo(tc.want.Program, tc.bi)
			assert.Empty(t, cmp.Diff(tc.want, got))
			if tc.text != "" {
				assert.Empty(t, cmp.Diff(tc.text, got.Text()))
			}
		})
	}
}

// TestFlag: --version and -version, printed from the test binary's own
// build information.
func TestFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version"} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		v := Flag(fs)
		require.NoError(t, fs.Parse([]string{arg}))
		assert.True(t, *v)
	}
	var b bytes.Buffer
	Print(&b, "inspect")
	assert.True(t, strings.HasPrefix(b.String(), "inspect "), b.String())
	assert.Contains(t, b.String(), "  go        "+runtime.Version())
	assert.Contains(t, b.String(), "  kubelets  "+kubeversion.Range())
}
