package catalog

import (
	"strconv"
	"strings"
)

// Releases are the k8s.io/kubernetes versions the catalogue is read from:
// one per minor release from 1.16 (the Topology Manager's first) to 1.37,
// the newest patch of each that the module proxy serves (1.37.2 for 1.37, the
// release the conformance module builds). A new kubelet release is one line
// here and a regeneration.
var Releases = []string{
	"v1.16.15",
	"v1.17.17",
	"v1.18.20",
	"v1.19.16",
	"v1.20.15",
	"v1.21.14",
	"v1.22.17",
	"v1.23.17",
	"v1.24.17",
	"v1.25.16",
	"v1.26.15",
	"v1.27.16",
	"v1.28.15",
	"v1.29.15",
	"v1.30.14",
	"v1.31.14",
	"v1.32.13",
	"v1.33.13",
	"v1.34.12",
	"v1.35.8",
	"v1.36.5",
	"v1.37.2",
}

// Module paths read besides k8s.io/kubernetes.
const (
	Kubernetes    = "k8s.io/kubernetes"
	ComponentBase = "k8s.io/component-base"
	Pflag         = "github.com/spf13/pflag"
)

// minorOf returns the minor number of a v1.x.y version, 0 if it is not one.
func minorOf(version string) int {
	rest, ok := strings.CutPrefix(version, "v1.")
	if !ok {
		return 0
	}
	n := 0
	for i := 0; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
		if n > 999 {
			return 0
		}
	}
	return n
}

// previousPatch returns vX.Y.(Z-1), or "" for a .0 patch.
func previousPatch(version string) string {
	i := strings.LastIndexByte(version, '.')
	if i < 0 {
		return ""
	}
	n := 0
	for _, c := range version[i+1:] {
		if c < '0' || c > '9' {
			return ""
		}
		n = n*10 + int(c-'0')
	}
	if n == 0 {
		return ""
	}
	return version[:i+1] + strconv.Itoa(n-1)
}

// stagingVersion is the version under which a k8s.io/kubernetes release
// publishes its staging modules (k8s.io/component-base): v1.16.15 gives
// v0.16.15. The release's go.mod requires them as v0.0.0 and replaces them
// with ./staging/src/..., which the module zip leaves out.
func stagingVersion(version string) string {
	return "v0." + strings.TrimPrefix(version, "v1.")
}
