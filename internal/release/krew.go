package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The krew plugin manifest the release writes beside the archives
// (krewManifestName): kubectl numascope installed by
//
//	kubectl krew install --manifest-url=https://github.com/numascope/numascope/releases/download/VERSION/numascope.yaml
//
// one platform per archive of a platform krew knows (linux, darwin and
// windows on amd64 and arm64 by default), each with
// the archive's address and SHA-256, kubectl-numascope as the program krew
// links onto PATH, and the LICENSE beside it.

// krewManifestName is the manifest's file name: krew wants PLUGIN.yaml.
const krewManifestName = "numascope.yaml"

// releaseURL is where a release's archives are downloaded from.
const releaseURL = "https://github.com/numascope/numascope/releases/download/"

// krewPlatforms are the OS/arch pairs krew's manifest validator accepts
// (validate-krew-manifest refuses a platform outside them): linux/s390x
// and linux/ppc64le archives are left out of the manifest.
var krewPlatforms = map[string]bool{
	"linux/386": true, "linux/amd64": true, "linux/arm": true, "linux/arm64": true,
	"darwin/386": true, "darwin/amd64": true, "darwin/arm64": true,
	"windows/386": true, "windows/amd64": true, "windows/arm64": true,
}

// reSemver is the form of version krew accepts in spec.version: v, then
// MAJOR.MINOR.PATCH, then an optional pre-release and build.
var reSemver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// krewArchive is one archive of the release as the manifest names it.
type krewArchive struct {
	t      target
	name   string // the archive's file name
	sha256 string
}

// krewManifest is the plugin manifest for version's archives; it needs a
// version krew accepts and at least one archive for a krew OS.
func krewManifest(version string, archives []krewArchive) ([]byte, error) {
	if !reSemver.MatchString(version) {
		return nil, fmt.Errorf("version %q: krew takes vMAJOR.MINOR.PATCH (v0.4.0, v0.4.0-rc.1); give -version", version)
	}
	var b strings.Builder
	b.WriteString(`# kubectl numascope as a krew plugin, written by go run ./internal/release.
#   kubectl krew install --manifest-url=` + releaseURL + version + "/" + krewManifestName + `
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: numascope
spec:
  version: ` + version + `
  homepage: https://github.com/numascope/numascope
  shortDescription: Explain the kubelet's Topology Manager and NUMA admission
  description: |
    Explains what the kubelet's Topology Manager did to a pod or a node:
    why a pod was rejected with TopologyAffinityError, which CPUs, memory
    and devices sit on which NUMA node, and whether the kubelet's checkpoint
    files would be restored. diagnose pod/NAME gathers the evidence from the
    cluster (events, the kubelet's configuration and log, and, from a
    short-lived pod on the node, its checkpoint files), gather node/NAME
    saves it, nodes lists every node's last agent report.
  caveats: |
    The short-lived pod on the node runs the numascope agent image and needs
    the RBAC of examples/kubectl-numascope/rbac.yaml and the agent DaemonSet
    of examples/agent/daemonset.yaml; --no-node-access goes without it.
    Shell completion: kubectl numascope completion bash|zsh|fish, and put
    kubectl_complete-numascope (in the repository) on PATH for kubectl's own.
  platforms:
`)
	n := 0
	for _, a := range archives {
		if !krewPlatforms[a.t.String()] {
			continue
		}
		if !reSHA256.MatchString(a.sha256) {
			return nil, fmt.Errorf("%s: %q is not a SHA-256", a.name, a.sha256)
		}
		dir := strings.TrimSuffix(strings.TrimSuffix(a.name, ".zip"), ".tar.gz")
		exe := a.t.exe("kubectl-numascope")
		fmt.Fprintf(&b, "    - selector:\n        matchLabels:\n          os: %s\n          arch: %s\n", a.t.goos, a.t.goarch)
		fmt.Fprintf(&b, "      uri: %s%s/%s\n      sha256: \"%s\"\n", releaseURL, version, a.name, a.sha256) // quoted: all digits would read as a number
		fmt.Fprintf(&b, "      bin: %s\n      files:\n", exe)
		fmt.Fprintf(&b, "        - from: %s/%s\n          to: .\n", dir, exe)
		fmt.Fprintf(&b, "        - from: %s/LICENSE\n          to: .\n", dir)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no archive for a platform krew installs on (linux, darwin or windows on amd64 or arm64): krew has nothing to install")
	}
	return []byte(b.String()), nil
}

var reSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)
