// Package kubeversion reads a kubelet release as people give it ("1.30",
// "v1.30.4", "v1.30.4-gke.100", or the kubelet's own "Kubernetes v1.30.4"
// as `kubelet --version` prints it) for the packages that answer per
// release: statefile (the restore code) and topomgr (the Topology
// Manager).
package kubeversion

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The kubelet releases whose restore code (statefile) and Topology Manager
// (topomgr) numascope follows, as minor numbers of 1.x. A new release
// starts here: raising Newest makes the tests say what else it needs (its
// verdict step, its conformance module, the message catalogue).
const (
	Oldest = 28
	Newest = 37
)

// Range is the supported releases as help texts write them: "1.28 to 1.37".
func Range() string { return fmt.Sprintf("1.%d to 1.%d", Oldest, Newest) }

// NewestRelease is the newest supported release: "1.37".
func NewestRelease() string { return fmt.Sprintf("1.%d", Newest) }

var reVersion = regexp.MustCompile(`^(?:Kubernetes )?v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?$`)

// Minor returns the minor number of the 1.x release s names, which must lie
// in [oldest, newest]; "" (or blanks) is newest. what names the code whose
// releases are known ("the restore code", "the Topology Manager") in the
// error, which says which releases are supported and how to give one.
func Minor(s string, oldest, newest int, what string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return newest, nil
	}
	supported := fmt.Sprintf("numascope knows %s of kubelet 1.%d to 1.%d: give the node's kubelet version as X.Y (for example 1.30 or v1.30.4, as `kubelet --version` prints it), or leave it empty for 1.%d",
		what, oldest, newest, newest)
	if len(s) > 64 {
		return 0, fmt.Errorf("kubelet version %s... (%d bytes) is not a version; %s", strconv.Quote(s[:32]), len(s), supported)
	}
	m := reVersion.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("kubelet version %q is not a version; %s", s, supported)
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || major != 1 || minor < oldest || minor > newest {
		return 0, fmt.Errorf("kubelet version %q is outside the supported range; %s", s, supported)
	}
	return minor, nil
}
