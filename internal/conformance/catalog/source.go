package catalog

import (
	"bufio"
	"bytes"
	"go/build/constraint"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Source is one module's files, read from its zip (or, in tests, from
// memory): the tree below "path@version/".
type Source struct {
	Path    string // module path
	Version string
	Sum     string // go.sum h1: hash, verified when it was downloaded
	FS      fs.FS
}

// Scope selects what the catalogue reads from a module: a directory, and
// with Tree the ones below it (leaving out testing, fake and testdata
// directories), optionally narrowed to some files, to calls inside some
// functions, or to some kinds of entries.
type Scope struct {
	Module  string
	Dir     string
	Tree    bool
	Files   []string // base names; all Go files when empty
	Skip    []string // base names left out
	Funcs   []string // enclosing functions ("NewMainKubelet", "(*Kubelet).Run"); all when empty
	Kinds   []string // entry kinds kept; all when empty
	Manager string   // the manager entries are attributed to; from the path when empty
}

// KubeletScopes are what the catalogue reads: the container manager and its
// managers, the checkpoint manager, the admission handlers, the kubelet
// command, the kubelet's start-up and admission code that wraps their
// errors, the configuration checks the command runs, the event of a failed
// DRA preparation, component-base's command runner, flag types and feature
// gates, and the flag parser.
var KubeletScopes = []Scope{
	{Module: Kubernetes, Dir: "pkg/kubelet/cm", Tree: true},
	{Module: Kubernetes, Dir: "pkg/kubelet/checkpointmanager", Tree: true},
	{Module: Kubernetes, Dir: "pkg/kubelet/lifecycle", Skip: []string{"handlers.go"}},
	{Module: Kubernetes, Dir: "cmd/kubelet", Tree: true},
	{Module: Kubernetes, Dir: "pkg/kubelet/apis/config/validation", Manager: "kubelet-config"},
	{Module: Kubernetes, Dir: "pkg/kubelet", Files: []string{"kubelet.go"}, Manager: "kubelet",
		Funcs: []string{"NewMainKubelet", "(*Kubelet).initializeModules", "(*Kubelet).initializeRuntimeDependentModules",
			"(*Kubelet).Run", "(*Kubelet).rejectPod", "(*Kubelet).canAdmitPod", "(*Kubelet).HandlePodAdditions"}},
	{Module: Kubernetes, Dir: "pkg/kubelet/allocation", Files: []string{"allocation_manager.go"}, Manager: "kubelet"},
	{Module: Kubernetes, Dir: "pkg/kubelet/kuberuntime", Files: []string{"kuberuntime_manager.go"}, Kinds: []string{"event"}, Manager: "kuberuntime"},
	{Module: ComponentBase, Dir: "cli", Tree: true, Manager: "component-base"},
	{Module: ComponentBase, Dir: "featuregate", Manager: "component-base"},
	{Module: Pflag, Dir: ".", Manager: "pflag"},
}

// managerOf names the kubelet part a file of k8s.io/kubernetes belongs to.
func managerOf(file string) string {
	for _, m := range []struct{ prefix, name string }{
		{"pkg/kubelet/cm/cpumanager/", "cpumanager"},
		{"pkg/kubelet/cm/cpuset/", "cpumanager"},
		{"pkg/kubelet/cm/memorymanager/", "memorymanager"},
		{"pkg/kubelet/cm/devicemanager/", "devicemanager"},
		{"pkg/kubelet/cm/topologymanager/", "topologymanager"},
		{"pkg/kubelet/cm/dra/", "dra"},
		{"pkg/kubelet/cm/", "containermanager"},
		{"pkg/kubelet/checkpointmanager/", "checkpointmanager"},
		{"pkg/kubelet/lifecycle/", "lifecycle"},
		{"cmd/kubelet/", "kubelet-app"},
	} {
		if strings.HasPrefix(file, m.prefix) {
			return m.name
		}
	}
	return "kubelet"
}

// skipDir is a directory of test doubles, not kubelet code.
func skipDir(name string) bool {
	return name == "testing" || name == "testdata" || strings.HasPrefix(name, "fake") || strings.HasPrefix(name, "testing")
}

// isDouble is a file of test doubles kept beside the code (fake_cpu_manager.go,
// container_manager_stub.go, device_plugin_stub.go): the kubelet does not
// run them.
func isDouble(name string) bool {
	return strings.HasPrefix(name, "fake") || strings.Contains(name, "_fake") || strings.Contains(name, "stub")
}

// scopeDirs lists the directories a scope reads, sorted.
func scopeDirs(fsys fs.FS, s Scope) []string {
	dir := path.Clean(s.Dir)
	if _, err := fs.Stat(fsys, dir); err != nil {
		return nil
	}
	if !s.Tree {
		return []string{dir}
	}
	var out []string
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return fs.SkipDir
		}
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out
}

// goFiles lists the non-test Go files of a directory that a linux/amd64
// build of the kubelet compiles, sorted.
func goFiles(fsys fs.FS, dir string) []string {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || !nameMatches(name) || isDouble(name) {
			continue
		}
		p := path.Join(dir, name)
		b, err := fs.ReadFile(fsys, p)
		if err != nil || !constraintsMatch(b) {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var knownOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true,
	"solaris": true, "wasip1": true, "windows": true, "zos": true}

var knownArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true,
	"arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true, "mips64p32": true,
	"mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true, "riscv": true, "riscv64": true, "s390": true,
	"s390x": true, "sparc": true, "sparc64": true, "wasm": true}

// nameMatches applies the _GOOS and _GOARCH file name suffixes for linux/amd64.
func nameMatches(name string) bool {
	parts := strings.Split(strings.TrimSuffix(name, ".go"), "_")
	n := len(parts)
	if n >= 2 && knownArch[parts[n-1]] {
		if parts[n-1] != "amd64" {
			return false
		}
		if n >= 3 && knownOS[parts[n-2]] {
			return parts[n-2] == "linux"
		}
		return true
	}
	if n >= 2 && knownOS[parts[n-1]] {
		return parts[n-1] == "linux"
	}
	return true
}

// constraintsMatch evaluates a file's //go:build (or // +build) lines for
// the kubelet's default linux/amd64 build: linux, amd64, unix, cgo, gc and
// go1.N hold; every other tag (providerless, dockerless, ignore) does not.
func constraintsMatch(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 4096), 1<<20)
	var exprs []constraint.Expr
	haveGoBuild := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "*") {
			continue
		}
		if !strings.HasPrefix(line, "//") {
			break // the package clause or code: constraints end here
		}
		if !constraint.IsGoBuild(line) && !constraint.IsPlusBuild(line) {
			continue
		}
		x, err := constraint.Parse(line)
		if err != nil {
			continue
		}
		if constraint.IsGoBuild(line) {
			if !haveGoBuild {
				exprs = exprs[:0]
			}
			haveGoBuild = true
			exprs = append(exprs, x)
		} else if !haveGoBuild {
			exprs = append(exprs, x)
		}
	}
	ok := func(tag string) bool {
		switch tag {
		case "linux", "amd64", "unix", "cgo", "gc":
			return true
		}
		return strings.HasPrefix(tag, "go1.")
	}
	for _, x := range exprs {
		if !x.Eval(ok) {
			return false
		}
	}
	return true
}
