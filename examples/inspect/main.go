// Command inspect decodes and verifies kubelet checkpoint files
// (cpu_manager_state, memory_manager_state, kubelet_internal_checkpoint,
// dra_manager_state), says first whether the kubelet would accept each, and
// then who holds what on which NUMA node.
//
//	go run ./examples/inspect [-o text|json|yaml|markdown|wide] [-v] [--topology FILE|DIR]
//	    [--policy NAME] [--kind KIND] [--kubelet-version X.Y] [FILE...]
//
// FILE "-" is standard input, and with no FILE a piped file is read
// (cat cpu_manager_state | inspect). With no FILE and nothing piped it
// inspects an embedded sample: the memory_manager_state shown on the
// upstream "Topology Management troubleshooting" page.
//
// Each file's text report starts with its verdict, one line:
//
//	✗ memory_manager_state (memory, v1, policy Static): kubelet v1.37.2 refuses to start — checkpoint is corrupted
//	✓ cpu_manager_state (cpu, v4, policy static): kubelet v1.37.2 restores it
//
// then the problems (worst first, each with what to do), the checksum (one
// line when it is valid; every layout tried when it is not, or with -v), and
// the content: who holds which memory blocks, CPUs and devices per NUMA node
// (CPUs are placed on NUMA nodes with --topology), the DRA claims, and for
// memory the per-node accounting. Text shows sizes in binary units and
// shortened pod UIDs and lists at most 30 holders per NUMA node; -o wide adds
// the exact bytes, the full UIDs and every holder; -o json (or --json) prints
// one complete object per file and line, -o yaml the same documents,
// -o markdown a report to paste into an issue.
//
// Exit status: 0 when every FILE would be restored by the kubelet, and always
// for the embedded sample (a demonstration: the output explains why the
// kubelet would reject it); 1 when any FILE is rejected by the kubelet or
// cannot be decoded; 2 on a usage error (a flag value inspect does not know,
// or a --topology it cannot read).
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/kubeversion"
	"github.com/numascope/numascope/internal/version"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

//go:embed memory_manager_state.sample.json
var sample []byte

// sampleName is the "file" of the embedded sample in JSON; in text the
// sample is called memory_manager_state, with one line saying where it is from.
const sampleName = "(embedded sample: memory_manager_state from the upstream troubleshooting page)"

const usageText = `usage: inspect [flags] [FILE|DIRECTORY...]

Decode and verify kubelet checkpoint files (cpu_manager_state, memory_manager_state,
device-plugins/kubelet_internal_checkpoint, dra_manager_state): the first line of each
report says whether the kubelet restores the file or what it does instead, then come the
problems and who holds which CPUs, memory and devices on which NUMA node. With no FILE,
inspect shows the memory_manager_state of the upstream troubleshooting page.

A DIRECTORY stands for the checkpoints the kubelet keeps in it (its root directory, or
device-plugins): inspect reads those four names there and nothing else.

Examples:
  # every checkpoint of a node (run as root: /var/lib/kubelet is root's)
  sudo inspect /var/lib/kubelet

  # CPUs with their NUMA node: give the node's topology (a copy of /sys, or cAdvisor machine info)
  inspect --topology /sys cpu_manager_state
  inspect --topology machine-info.json -o wide cpu_manager_state

  # the verdict of the node's own kubelet release, for scripts
  inspect -o json --kubelet-version "$(kubelet --version)" /var/lib/kubelet \
    | jq -r 'select(.kubeletAccepts | not) | .file'

  # a report to paste into an issue
  inspect -o markdown memory_manager_state

Exit status: 0 every file is restored by the kubelet (always for the embedded sample),
1 a file is rejected or cannot be decoded, 2 wrong flags or an unreadable --topology.

Flags:
`

// options are the flags, checked before any file is read.
type options struct {
	out      *cliout.Output
	verbose  bool
	policy   string
	kind     statefile.Kind
	version  string
	topology string
	machine  *topomgr.Machine
	// verdictOf names the kubelet whose verdict is printed.
	verdictOf string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.out = cliout.Register(fs, cliout.JSON, cliout.YAML, cliout.Markdown, cliout.Wide)
	fs.BoolVar(&o.verbose, "v", false, "verbose: show every checksum layout tried and which kubelets write it, also for a valid file")
	fs.StringVar(&o.topology, "topology", "", "the node's topology, to place CPUs on NUMA nodes: `PATH` of cAdvisor machine-info JSON (a file) or of a copy of /sys (a directory; /sys itself on the node)")
	fs.StringVar(&o.policy, "policy", "", "the `POLICY` the kubelet is configured with (cpu: none|static, memory: None|Static); default: the policy named in the file")
	kind := fs.String("kind", "", "force the checkpoint `KIND` (cpu, memory, device, dra); default: detect from content")
	fs.StringVar(&o.version, "kubelet-version", "", "the release of the node's kubelet, `X.Y` ("+kubeversion.Range()+", e.g. 1.30, v1.30.4 or the output of kubelet --version): the verdict is that release's; default: the newest, "+kubeversion.NewestRelease())
	showVersion := version.Flag(fs)
	fs.Usage = func() {} // -h prints the usage to stdout below; a wrong flag gets one line pointing at --help
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "run 'inspect --help' for the flags and examples")
		return 2
	}
	if *showVersion {
		version.Print(stdout, "inspect")
		return 0
	}
	o.kind = statefile.Kind(*kind)
	// the flags' values are checked once, before any file is read
	switch o.policy {
	case "", "none", "static", "None", "Static":
	default:
		fmt.Fprintf(stderr, "inspect: --policy %q: give the kubelet's policy name, none or static for cpu_manager_state, None or Static for memory_manager_state (the case is the kubelet's), or leave it out for the policy named in the file\n", o.policy)
		return 2
	}
	switch o.kind {
	case "", statefile.KindCPU, statefile.KindMemory, statefile.KindDevice, statefile.KindDRA:
	default:
		fmt.Fprintf(stderr, "inspect: --kind %q: give cpu, memory, device or dra, or leave it out to detect the kind from the content\n", *kind)
		return 2
	}
	if _, err := statefile.Decode([]byte(`{}`), statefile.Options{Name: "--kubelet-version", Kind: statefile.KindCPU, KubeletVersion: o.version}); err != nil {
		fmt.Fprintln(stderr, "inspect:", err)
		return 2
	}
	o.verdictOf = kubeletName(o.version)
	if o.topology != "" {
		m, err := topomgr.ReadMachine(nil, o.topology)
		if err != nil {
			fmt.Fprintf(stderr, "inspect: --topology %s: %v\nwhat to do: give cAdvisor machine-info JSON (a file) or a copy of the node's /sys (a directory, e.g. --topology /sys on the node), or leave --topology out to list CPU ids without NUMA nodes\n", o.topology, err)
			return 2
		}
		if m.Source == "" {
			m.Source = o.topology
		}
		o.machine = m
	}
	// each file is reported as soon as it is read, and then let go: twenty
	// large checkpoints take the memory of one
	status, n := 0, 0
	emit := func(r fileReport) bool {
		if err := r.write(stdout, &o, n); err != nil {
			fmt.Fprintf(stderr, "inspect: writing the report of %s: %v\n", r.line.File, err)
			return false
		}
		n++
		if !r.line.KubeletAccepts && !r.isSample {
			status = 1
		}
		return true
	}
	paths := fs.Args()
	if len(paths) == 0 {
		// cat cpu_manager_state | inspect reads the pipe; an empty or no
		// stdin (a terminal, /dev/null) is nothing given: the sample
		data, err := input.Piped(stdin, input.MaxCheckpoint)
		switch {
		case err != nil || len(data) > 0:
			f, ferr := decodeStdin(data, err, &o)
			if !emit(newReport(input.StdinName, input.StdinName, f, ferr, &o, false)) {
				return 1
			}
			return status
		default:
			f, err := statefile.Decode(sample, statefile.Options{Name: "memory_manager_state", Policy: o.policy, Kind: o.kind, KubeletVersion: o.version})
			if !emit(newReport(sampleName, "memory_manager_state", f, err, &o, true)) {
				return 1
			}
		}
	}
	files, err := expandDirs(paths, o.kind)
	if err != nil {
		fmt.Fprintln(stderr, "inspect:", err)
		return 2
	}
	// a directory is a node: its first line says whether the kubelet
	// starts with what it holds, before each file's report
	decoded := map[string]*statefile.File{}
	if f := o.out.Format(); f != cliout.JSON && f != cliout.YAML {
		for _, line := range nodeLines(files, &o, decoded) {
			if _, err := fmt.Fprintln(stdout, line); err != nil {
				return 1
			}
		}
	}
	for _, in := range files {
		if in.path == "-" {
			data, rerr := input.Piped(stdin, input.MaxCheckpoint)
			f, err := decodeStdin(data, rerr, &o)
			if !emit(newReport(input.StdinName, input.StdinName, f, err, &o, false)) {
				return 1
			}
			continue
		}
		if in.err != nil {
			if !emit(newReport(in.path, in.path, nil, in.err, &o, false)) {
				return 1
			}
			continue
		}
		kind, policy := o.kind, o.policy
		if in.kind != "" {
			kind, policy = in.kind, policyFor(in.kind, o.policy)
		}
		f, err := decoded[in.path], error(nil)
		if f == nil {
			f, err = statefile.ReadFile(in.path, statefile.Options{Name: in.path, Policy: policy, Kind: kind, KubeletVersion: o.version})
		}
		delete(decoded, in.path)
		if !emit(newReport(in.path, in.path, f, err, &o, false)) {
			return 1
		}
	}
	return status
}

// stdin is where "-" (or a command with no FILE and piped input) is read
// from; tests replace it.
var stdin = input.Stdin

// decodeStdin decodes the checkpoint read from standard input.
func decodeStdin(data []byte, err error, o *options) (*statefile.File, error) {
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("- means standard input, but nothing was piped: cat the file into the command (cat cpu_manager_state | inspect -) or give its path")
	}
	return statefile.Decode(data, statefile.Options{Name: input.StdinName, Policy: o.policy, Kind: o.kind, KubeletVersion: o.version})
}

// argFile is one file to inspect; kind is set for a file found in a
// directory argument (known from its name), err when the directory holds
// no checkpoint.
type argFile struct {
	path string
	kind statefile.Kind
	err  error
	dir  string // the directory argument it was found in, if any
}

// errNoCheckpoint is a directory argument without a checkpoint in it.
var errNoCheckpoint = errors.New("no kubelet checkpoint in this directory")

// expandDirs replaces each directory among args by the checkpoints the
// kubelet keeps there: the kubelet's root directory (/var/lib/kubelet or
// its --root-dir) or its device-plugins directory. Only those names are
// read; anything else in the directory is left alone.
func expandDirs(args []string, kind statefile.Kind) ([]argFile, error) {
	var out []argFile
	for _, a := range args {
		if a == "-" {
			out = append(out, argFile{path: a})
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, argFile{path: a}) // ReadFile reports what is wrong
			continue
		}
		if kind != "" {
			return nil, fmt.Errorf("--kind %s with the directory %s: a directory holds a checkpoint of each kind, each known by its name; give --kind with a file, or leave it out", kind, a)
		}
		if _, err := os.ReadDir(a); err != nil {
			// a directory the user may not list (root's /var/lib/kubelet)
			out = append(out, argFile{path: a, err: err})
			continue
		}
		// the door's checkpoint names, each stat'ed before any open: a
		// name that is a FIFO, a device or a link to one is refused
		// without opening it
		found := evidence.StateFiles(a)
		for _, c := range found {
			switch {
			case c.Err != nil:
				out = append(out, argFile{path: c.Path, err: c.Err, dir: a})
			case !c.Info.Mode().IsRegular():
				out = append(out, argFile{path: c.Path, err: fmt.Errorf("%s: %w: it is %s", c.Path, statefile.ErrNotRegular, fileType(c.Info.Mode())), dir: a})
			default:
				out = append(out, argFile{path: c.Path, kind: c.Kind, dir: a})
			}
		}
		if len(found) == 0 {
			out = append(out, argFile{path: a, err: fmt.Errorf("%s: %w", a, errNoCheckpoint)})
		}
	}
	return out, nil
}

// nodeLines returns the first line of each directory argument: whether the
// kubelet starts with the checkpoints it holds ("✗ /var/lib/kubelet: 1 of 3
// checkpoints would stop kubelet v1.37.2: memory_manager_state"). The files
// it decodes are left in decoded for their own reports.
func nodeLines(files []argFile, o *options, decoded map[string]*statefile.File) []string {
	type node struct {
		total              int
		stop, drop, unread []string
	}
	var order []string
	nodes := map[string]*node{}
	for _, in := range files {
		if in.dir == "" {
			continue
		}
		n := nodes[in.dir]
		if n == nil {
			n = &node{}
			nodes[in.dir] = n
			order = append(order, in.dir)
		}
		n.total++
		name := filepath.Base(in.path)
		if in.err != nil {
			n.unread = append(n.unread, name)
			continue
		}
		f, err := statefile.ReadFile(in.path, statefile.Options{Name: in.path, Policy: policyFor(in.kind, o.policy), Kind: in.kind, KubeletVersion: o.version})
		switch {
		case err != nil:
			n.unread = append(n.unread, name)
			continue
		case !f.KubeletAccepts && f.OnReject == statefile.DiscardsData:
			n.drop = append(n.drop, name)
		case !f.KubeletAccepts:
			n.stop = append(n.stop, name)
		}
		decoded[in.path] = f
	}
	var lines []string
	for _, dir := range order {
		n := nodes[dir]
		if dir == "." {
			dir = "this directory"
		}
		var of string
		switch {
		case len(n.stop) > 0:
			of = fmt.Sprintf("%d of %s", len(n.stop), words.Count(n.total, "checkpoint", "checkpoints"))
			lines = append(lines, fmt.Sprintf("✗ %s: %s would stop %s: %s", dir, of, o.verdictOf, strings.Join(n.stop, ", ")))
		case len(n.unread) > 0:
			of = fmt.Sprintf("%d of %s", len(n.unread), words.Count(n.total, "checkpoint", "checkpoints"))
			lines = append(lines, fmt.Sprintf("✗ %s: %s cannot be read: %s", dir, of, strings.Join(n.unread, ", ")))
		case len(n.drop) > 0:
			lines = append(lines, fmt.Sprintf("! %s: %s starts, and drops the device allocations of %s", dir, o.verdictOf, strings.Join(n.drop, ", ")))
		default:
			lines = append(lines, fmt.Sprintf("✓ %s: %s restores %s", dir, o.verdictOf, allOf(n.total)))
		}
		if len(n.stop) > 0 && len(n.unread) > 0 {
			lines = append(lines, fmt.Sprintf("  and %d cannot be read: %s", len(n.unread), strings.Join(n.unread, ", ")))
		}
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return lines
}

// allOf is "its checkpoint" or "all 3 checkpoints".
func allOf(n int) string {
	if n == 1 {
		return "its checkpoint"
	}
	return fmt.Sprintf("all %d checkpoints", n)
}

// fileType names what a path that is no regular file is.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// policyFor is --policy for a file of kind found in a directory: the CPU
// manager's policies are lower case (none, static), the memory manager's
// capitalised (None, Static), so one --policy names one of them and the
// other file is read with the policy it names itself.
func policyFor(kind statefile.Kind, policy string) string {
	switch {
	case policy == "":
		return ""
	case kind == statefile.KindCPU && (policy == "none" || policy == "static"):
		return policy
	case kind == statefile.KindMemory && (policy == "None" || policy == "Static"):
		return policy
	}
	return ""
}

// kubeletName names the kubelet whose verdict is printed, as the user gave
// its release: "kubelet v1.37.2" by default, "kubelet v1.30" for
// --kubelet-version 1.30 or "Kubernetes v1.30".
func kubeletName(version string) string {
	v := strings.TrimSpace(version)
	if v == "" {
		return "kubelet v1.37.2"
	}
	if len(v) > 11 && strings.EqualFold(v[:11], "Kubernetes ") {
		v = strings.TrimSpace(v[11:])
	}
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return "kubelet " + v
}

// readRemedy says what to do about a file that could not be decoded at
// all, in the CLI's terms.
func readRemedy(err error) string {
	switch {
	case errors.Is(err, errNoCheckpoint):
		return "give the kubelet's root directory (/var/lib/kubelet, or the kubelet's --root-dir), which holds cpu_manager_state, memory_manager_state, dra_manager_state and device-plugins/kubelet_internal_checkpoint, or the checkpoint files themselves"
	case errors.Is(err, fs.ErrNotExist):
		return "check the path: the kubelet keeps cpu_manager_state, memory_manager_state and dra_manager_state in /var/lib/kubelet (or its --root-dir) and kubelet_internal_checkpoint in /var/lib/kubelet/device-plugins; a file that is absent is not corrupt (the kubelet starts empty)"
	case errors.Is(err, fs.ErrPermission):
		return "run inspect as root (sudo): /var/lib/kubelet is readable by root only"
	case errors.Is(err, statefile.ErrNotRegular):
		return "give the path of a regular file: copy the checkpoint into a file first (inspect never reads pipes or devices)"
	case errors.Is(err, statefile.ErrTooLarge):
		return "check that this is a kubelet checkpoint: kubelets write far smaller files"
	case errors.Is(err, statefile.ErrUnknownKind):
		return "check that this is a kubelet checkpoint, or name its kind with --kind cpu|memory|device|dra"
	}
	return "check that this is a kubelet checkpoint file; if it is the node's own file, the kubelet cannot read it either"
}
