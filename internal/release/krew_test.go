package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// krewVersion is the krew whose manifest validator and installer check the
// manifest, built from its Go module.
const krewVersion = "v0.4.3"

func fakeArchives(version string) []krewArchive {
	var out []krewArchive
	for i, t := range defaultTargets {
		ts, _ := parseTargets(t)
		out = append(out, krewArchive{t: ts[0], name: ts[0].archiveName(version), sha256: strings.Repeat(string("0123456789abcdef"[i]), 64)})
	}
	return out
}

// TestKrewManifest: one platform per archive of linux, darwin and windows
// (amd64 and arm64 each), with its address, SHA-256, the program and the
// LICENSE; refused for a version krew does not take.
func TestKrewManifest(t *testing.T) {
	archives := append(fakeArchives("v0.4.0"), krewArchive{t: target{"linux", "s390x"}, name: "numascope-v0.4.0-linux-s390x.tar.gz", sha256: strings.Repeat("f", 64)})
	m, err := krewManifest("v0.4.0", archives)
	require.NoError(t, err)
	var p struct {
		APIVersion, Kind string
		Metadata         struct{ Name string }
		Spec             struct {
			Version, ShortDescription, Homepage, Description, Caveats string
			Platforms                                                 []struct {
				Selector         struct{ MatchLabels map[string]string }
				URI, Sha256, Bin string
				Files            []struct{ From, To string }
			}
		}
	}
	require.NoError(t, yaml.UnmarshalStrict(m, &p), "%s", m)
	assert.Equal(t, "numascope", p.Metadata.Name)
	assert.Equal(t, "v0.4.0", p.Spec.Version)
	var got []string
	for _, pl := range p.Spec.Platforms {
		got = append(got, pl.Selector.MatchLabels["os"]+"/"+pl.Selector.MatchLabels["arch"])
	}
	assert.Empty(t, cmp.Diff([]string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}, got), "every krew platform, and not linux/s390x, which krew does not know")
	w := p.Spec.Platforms[4]
	assert.Equal(t, "https://github.com/numascope/numascope/releases/download/v0.4.0/numascope-v0.4.0-windows-amd64.zip", w.URI)
	assert.Equal(t, strings.Repeat("4", 64), w.Sha256)
	assert.Equal(t, "kubectl-numascope.exe", w.Bin)
	assert.Empty(t, cmp.Diff([]struct{ From, To string }{{"numascope-v0.4.0-windows-amd64/kubectl-numascope.exe", "."}, {"numascope-v0.4.0-windows-amd64/LICENSE", "."}}, w.Files))

	for _, tc := range []struct {
		version  string
		archives []krewArchive
		want     string
	}{
		{"dev", archives, `version "dev": krew takes vMAJOR.MINOR.PATCH`},
		{"v0.4", archives, "krew takes vMAJOR.MINOR.PATCH"},
		{"0.4.0", archives, "krew takes vMAJOR.MINOR.PATCH"},
		{"v0.4.0", archives[6:], "no archive for a platform krew installs on"},
		{"v0.4.0", []krewArchive{{t: target{"linux", "amd64"}, name: "a.tar.gz", sha256: "x"}}, `"x" is not a SHA-256`},
	} {
		_, err := krewManifest(tc.version, tc.archives)
		assert.ErrorContains(t, err, tc.want, tc.version)
	}
	_, err = krewManifest("v0.4.0-rc.1+build.5", archives)
	assert.NoError(t, err, "a pre-release and a build")
}

// krewTools builds krew and its manifest validator from krew's Go module
// into a directory of their own; the test skips when they cannot be built
// here, and fails in CI.
func krewTools(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "sigs.k8s.io/krew/cmd/validate-krew-manifest@"+krewVersion, "sigs.k8s.io/krew/cmd/krew@"+krewVersion)
	cmd.Env = append(buildEnv(os.Environ()), "GOBIN="+bin, "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("building krew %s: %v\n%s", krewVersion, err, out)
		}
		t.Skipf("krew %s cannot be built here (%v): %s", krewVersion, err, out)
	}
	return bin
}

// TestKrewValidatesTheManifest: krew's own validator accepts the manifest
// for every platform; and, but under -short, krew installs a real archive
// of this checkout through it, and the kubectl-numascope it links runs.
func TestKrewValidatesTheManifest(t *testing.T) {
	bin := krewTools(t)
	dir := t.TempDir()
	m, err := krewManifest("v0.4.0", fakeArchives("v0.4.0"))
	require.NoError(t, err)
	manifest := filepath.Join(dir, krewManifestName)
	require.NoError(t, os.WriteFile(manifest, m, 0o644))
	out, err := exec.Command(filepath.Join(bin, "validate-krew-manifest"), "-manifest", manifest, "-skip-install").CombinedOutput()
	require.NoError(t, err, "krew's validator: %s", out)
	assert.Contains(t, string(out), "structural validation OK")
	out, err = exec.Command(filepath.Join(bin, "validate-krew-manifest"), "-manifest", goldenManifest, "-skip-install").CombinedOutput()
	require.NoError(t, err, "krew's validator on %s: %s", goldenManifest, out)

	if testing.Short() {
		t.Skip("builds kubectl-numascope for this machine (a minute or more cold): skipped under -short")
	}
	ctx := context.Background()
	dist := filepath.Join(dir, "dist")
	r, err := newRelease(ctx, dist, "v0.4.0-test", []target{{runtime.GOOS, runtime.GOARCH}}, false, io.Discard)
	require.NoError(t, err)
	r.commands = []string{"kubectl-numascope"}
	bs, err := r.build(ctx)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	manifest = filepath.Join(dist, krewManifestName)
	out, err = exec.Command(filepath.Join(bin, "validate-krew-manifest"), "-manifest", manifest, "-skip-install").CombinedOutput()
	require.NoError(t, err, "krew's validator on the release's own manifest: %s", out)

	root := filepath.Join(dir, "krew")
	install := exec.Command(filepath.Join(bin, "krew"), "install", "--manifest="+manifest, "--archive="+filepath.Join(dist, bs[0].name))
	install.Env = append(os.Environ(), "KREW_ROOT="+root, "KREW_OS="+runtime.GOOS, "KREW_ARCH="+runtime.GOARCH)
	out, err = install.CombinedOutput()
	require.NoError(t, err, "krew install: %s", out)
	assert.Contains(t, string(out), `Installed plugin: numascope`)
	var stdout bytes.Buffer
	run := exec.Command(filepath.Join(root, "bin", r.targets[0].exe("kubectl-numascope")), "version")
	run.Stdout = &stdout
	require.NoError(t, run.Run())
	assert.True(t, strings.HasPrefix(stdout.String(), "kubectl-numascope "), stdout.String())
	_, err = os.Stat(filepath.Join(root, "store", "numascope", "v0.4.0-test", "LICENSE"))
	assert.NoError(t, err, "the LICENSE is installed beside the program")
}

// goldenManifest is examples/kubectl-numascope/krew/numascope.yaml: the
// manifest a release writes, for version v0.0.0 and with zeros for sums,
// kept equal to what krewManifest writes (NUMASCOPE_UPDATE_KREW=1 rewrites
// it), and validated by krew in TestKrewValidatesTheManifest.
const goldenManifest = "../../examples/kubectl-numascope/krew/numascope.yaml"

const goldenHeader = `# The form of the krew manifest every release writes beside its archives
# (go run ./internal/release -out dist/ -version vX.Y.Z writes dist/numascope.yaml
# with that release's addresses and SHA-256 sums, to publish as a release asset).
# This copy is for version v0.0.0 with zeros for sums: krew refuses to install
# from it. internal/release's TestKrewManifestGolden keeps it equal to the
# generator's output, and krew's validator checks it.
`

func goldenArchives() []krewArchive {
	var out []krewArchive
	for _, s := range defaultTargets {
		ts, _ := parseTargets(s)
		out = append(out, krewArchive{t: ts[0], name: ts[0].archiveName("v0.0.0"), sha256: strings.Repeat("0", 64)})
	}
	return out
}

func TestKrewManifestGolden(t *testing.T) {
	m, err := krewManifest("v0.0.0", goldenArchives())
	require.NoError(t, err)
	want := goldenHeader + string(m)
	if os.Getenv("NUMASCOPE_UPDATE_KREW") == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenManifest), 0o755))
		require.NoError(t, os.WriteFile(goldenManifest, []byte(want), 0o644))
	}
	got, err := os.ReadFile(goldenManifest)
	require.NoError(t, err, "run NUMASCOPE_UPDATE_KREW=1 go test -run TestKrewManifestGolden ./internal/release")
	assert.Empty(t, cmp.Diff(want, string(got)), "%s is not what the release writes: NUMASCOPE_UPDATE_KREW=1 go test -run TestKrewManifestGolden ./internal/release", goldenManifest)
}
