// Package version is what every numascope command prints for --version
// (and kubectl-numascope for its version command): the module and its
// version from the binary's build information, the commit it was built
// from, the Go release and platform, and the kubelet releases numascope
// models (internal/kubeversion). One format for all of them.
package version

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/numascope/numascope/internal/kubeversion"
)

// SDK is the path of numascope's root module.
const SDK = "github.com/numascope/numascope"

// Info is a command's version.
type Info struct {
	Program string `json:"program"`
	// Module is the main module's path and Version its version as the
	// build information has it: a release tag (v0.4.0) for go install
	// MODULE@VERSION, a pseudo-version stamped from the checkout's commit,
	// or "(devel)" when neither is known.
	Module  string `json:"module"`
	Version string `json:"version"`
	// SDKModule is the numascope module the program was built against,
	// when it is in a module of its own (examples/agent,
	// examples/kubectl-numascope).
	SDKModule *Module `json:"sdk,omitempty"`
	// Commit, CommitTime and Modified are the version control stamp (go
	// build in a checkout; none with -buildvcs=false).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
	Platform   string `json:"platform"`
	// Kubelets are the kubelet releases whose restore code and Topology
	// Manager numascope models.
	Kubelets Kubelets `json:"kubelets"`
}

// Module is a module the program depends on: its version, or the
// directory that replaced it (a replace directive: the checkout's own copy).
type Module struct {
	Version string `json:"version,omitempty"`
	Replace string `json:"replace,omitempty"`
}

func (m Module) String() string {
	if m.Replace != "" {
		return "=> " + m.Replace
	}
	return m.Version
}

// Kubelets is a range of kubelet releases, as 1.x.
type Kubelets struct {
	Oldest string `json:"oldest"`
	Newest string `json:"newest"`
}

// Get is the running program's version.
func Get(program string) Info {
	bi, _ := debug.ReadBuildInfo() // nil without build information
	return FromBuildInfo(program, bi)
}

// FromBuildInfo is the version of program built as bi says (nil: a binary
// without build information).
func FromBuildInfo(program string, bi *debug.BuildInfo) Info {
	i := Info{
		Program:  program,
		Module:   "unknown",
		Version:  "(devel)",
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Kubelets: Kubelets{Oldest: fmt.Sprintf("1.%d", kubeversion.Oldest), Newest: kubeversion.NewestRelease()},
	}
	if bi == nil {
		return i
	}
	if bi.GoVersion != "" {
		i.Go = bi.GoVersion
	}
	if bi.Main.Path != "" {
		i.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		i.Version = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path != SDK || bi.Main.Path == SDK {
			continue
		}
		m := &Module{Version: d.Version}
		if r := d.Replace; r != nil {
			m = &Module{Replace: strings.TrimSpace(r.Path + " " + strings.TrimPrefix(r.Version, "(devel)"))}
		}
		i.SDKModule = m
	}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			i.CommitTime = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" && goarch != "" {
		i.Platform = goos + "/" + goarch
	}
	return i
}

// Text is the version as the commands print it:
//
//	inspect v0.4.0
//	  module    github.com/numascope/numascope v0.4.0
//	  commit    0123456789ab... 2026-12-02T20:06:00Z
//	  go        go1.26.8 linux/amd64
//	  kubelets  1.28 to 1.37 (checkpoint restore and Topology Manager modelled)
func (i Info) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", i.Program, i.Version)
	fmt.Fprintf(&b, "  module    %s %s\n", i.Module, i.Version)
	if i.SDKModule != nil {
		fmt.Fprintf(&b, "  sdk       %s %s\n", SDK, i.SDKModule)
	}
	switch {
	case i.Commit == "":
		b.WriteString("  commit    unknown (built without version control information: -buildvcs=false, or outside a checkout)\n")
	default:
		commit := strings.TrimSpace(i.Commit + " " + i.CommitTime)
		if i.Modified {
			commit += " (with uncommitted changes)"
		}
		fmt.Fprintf(&b, "  commit    %s\n", commit)
	}
	fmt.Fprintf(&b, "  go        %s %s\n", i.Go, i.Platform)
	fmt.Fprintf(&b, "  kubelets  %s to %s (checkpoint restore and Topology Manager modelled)\n", i.Kubelets.Oldest, i.Kubelets.Newest)
	return b.String()
}

// Flag defines --version on fs (the flag package takes -version too).
func Flag(fs *flag.FlagSet) *bool {
	return fs.Bool("version", false, "print the version (module, commit, Go release, the kubelet releases modelled) and exit")
}

// Print writes program's version to w, for --version.
func Print(w io.Writer, program string) {
	io.WriteString(w, Get(program).Text())
}
