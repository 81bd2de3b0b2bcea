// Command podresources shows what the kubelet's PodResources API says about a
// node: which pod holds which CPUs, memory and devices on which NUMA node, and
// what is still free. It reads the live socket or a saved snapshot.
//
//	go run ./examples/podresources                          # live: /var/lib/kubelet/pod-resources/kubelet.sock
//	go run ./examples/podresources --socket unix:///host/pod-resources/kubelet.sock
//	go run ./examples/podresources --pod default/web        # Get for one pod
//	go run ./examples/podresources --from DIR               # list.json, allocatable.json, get-<ns>-<name>.json
//	go run ./examples/podresources -o json                  # the model JSON instead of the table (--json is the same)
//	go run ./examples/podresources -o wide                  # the table, then one row per container and NUMA node
//	go run ./examples/podresources -o markdown              # both tables for a ticket; -o yaml the model as YAML
//	go run ./examples/podresources --qos pods.json          # QoS classes from `kubectl get pods -A -o json`
//
// The table needs each CPU's NUMA node, which the API does not report: live,
// it is read from --sysfs (default /sys); offline, from DIR/sys when the
// snapshot directory holds a copy of /sys/devices/system/node, or from --sysfs
// when given. Without it, CPUs are listed under "no NUMA node".
//
// Files named by --from and --qos are opened without blocking and must be
// regular files: a FIFO, a device or a directory is refused with the flag's
// name, and so is a file over 64 MiB, a document over its value budget, or an
// answer naming more than 20,000 pods (podresources.MaxPods). Live answers
// have the same bounds (see podresources/client), and every call a deadline.
//
// Exit status: 0 on success, 1 when the node or the files cannot be read,
// 2 for wrong flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/numascope/numascope/internal/words"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/version"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("podresources", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", client.DefaultSocket, "kubelet PodResources `SOCKET`: unix://PATH or PATH")
	pod := fs.String("pod", "", "show one pod, `NAMESPACE/NAME`, with the Get method")
	from := fs.String("from", "", "read a saved snapshot from this `DIR` (or one numascope JSON file) instead of the socket")
	out := cliout.Register(fs, cliout.JSON, cliout.YAML, cliout.Markdown, cliout.Wide)
	sysfs := fs.String("sysfs", "", "sysfs `ROOT` for the CPU-to-NUMA map (default /sys live, DIR/sys offline)")
	qos := fs.String("qos", "", "`FILE` with kubectl get pods -A -o json output: the pods' QoS classes, which the API does not report")
	timeout := fs.Duration("timeout", client.DefaultCallTimeout, "deadline for each call, rate-limit retries included")
	showVersion := version.Flag(fs)
	fs.Usage = func() {} // -h prints the help on stdout, a wrong flag a hint (below)
	const short = "usage: podresources [--socket S | --from DIR] [--pod NAMESPACE/NAME] [-o text|json|yaml|markdown|wide] [--sysfs ROOT] [--qos PODS.json]   (podresources -h shows the flags and examples)"
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout, fs)
			return 0
		}
		fmt.Fprintln(stderr, short)
		return 2
	}
	if *showVersion {
		version.Print(stdout, "podresources")
		return 0
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "podresources: --timeout %s: give a positive duration such as 10s; every call needs a deadline\n", *timeout)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "podresources: unexpected argument %q: a snapshot directory goes with --from DIR, a pod with --pod NAMESPACE/NAME\n", fs.Arg(0))
		fmt.Fprintln(stderr, short)
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *from != "" && set["socket"] {
		fmt.Fprintln(stderr, "podresources: --from and --socket exclude each other: give the live socket or a saved snapshot")
		return 2
	}
	if *from != "" && set["timeout"] {
		fmt.Fprintln(stderr, "podresources: --timeout goes with the socket: reading a snapshot with --from makes no call; leave --timeout out")
		return 2
	}
	if set["from"] && *from == "" {
		fmt.Fprintln(stderr, "podresources: --from \"\": give a snapshot directory (list.json, allocatable.json) or a numascope JSON file")
		return 2
	}
	ns, name, err := splitPod(*pod)
	if err != nil {
		fmt.Fprintf(stderr, "podresources: %v\n", err)
		return 2
	}

	var snap *podresources.Snapshot
	if *sysfs != "" {
		if err := checkDir(*sysfs, "--sysfs"); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
	}
	if *from != "" {
		snap, err = offline(*from, ns, name)
		if err != nil {
			err = fmt.Errorf("--from: %w", err)
		}
	} else {
		snap, err = live(ctx, *socket, ns, name, *timeout)
		if err != nil {
			err = fmt.Errorf("--socket %s: %w", *socket, err)
		}
	}
	if err != nil {
		// the client's advice names its Go option; here it is a flag
		msg := strings.ReplaceAll(err.Error(), "raise the timeout with client.WithCallTimeout", "raise --timeout (now "+timeout.String()+")")
		msg = strings.ReplaceAll(msg, "or give the socket's path", "or give the socket's path with --socket PATH")
		msg = strings.Replace(msg, ": podresources: ", ": ", 1) // prefixed once, below
		fmt.Fprintf(stderr, "podresources: %s\n", strings.TrimPrefix(msg, "podresources: "))
		return 1
	}
	if *qos != "" {
		if err := setQOS(snap, *qos); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
	}

	switch out.Format() {
	case cliout.JSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(snap); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
		return 0
	case cliout.YAML:
		if err := cliout.Encode(stdout, cliout.YAML, snap); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
		return 0
	}

	root := *sysfs
	if root == "" {
		root = "/sys"
		if *from != "" {
			root = filepath.Join(*from, "sys")
		}
	}
	cpus, err := podresources.ReadSysfsCPUMap(root)
	switch {
	case err != nil && *from != "" && *sysfs == "":
		fmt.Fprintf(stderr, "podresources: CPUs are shown without NUMA node: %s has no sys/devices/system/node (a copy of the node's); pass --sysfs ROOT\n", *from)
	case err != nil:
		fmt.Fprintf(stderr, "podresources: CPUs are shown without NUMA node: %v\n", err)
	}
	source := "socket " + *socket
	if *from != "" {
		source = *from
	}
	view := snap.PerNUMA(cpus)
	if out.Is(cliout.Markdown) {
		fmt.Fprintf(stdout, "## PodResources: %s from %s\n", words.Count(len(snap.Pods), "pod"), source)
		for _, n := range snap.Notes {
			fmt.Fprintf(stdout, "\nNote: %s\n", n)
		}
		if err := writeTables(stdout, cliout.Markdown, view); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s from %s\n", words.Count(len(snap.Pods), "pod"), source)
	for _, n := range snap.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	if err := view.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "podresources: %v\n", err)
		return 1
	}
	if out.Is(cliout.Wide) {
		if err := writeTables(stdout, cliout.Wide, view); err != nil {
			fmt.Fprintf(stderr, "podresources: %v\n", err)
			return 1
		}
	}
	return 0
}

// splitPod reads --pod NAMESPACE/NAME ("" for every pod).
func splitPod(pod string) (ns, name string, err error) {
	if pod == "" {
		return "", "", nil
	}
	ns, name, ok := strings.Cut(pod, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--pod %q: give NAMESPACE/NAME, for example default/web", pod)
	}
	return ns, name, nil
}

func live(ctx context.Context, socket, ns, name string, timeout time.Duration) (*podresources.Snapshot, error) {
	c, err := client.Dial(ctx, socket, client.WithCallTimeout(timeout))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if name == "" {
		return c.Snapshot(ctx)
	}
	p, err := c.Get(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	snap := &podresources.Snapshot{Pods: []podresources.PodResources{*p}}
	a, err := c.GetAllocatableResources(ctx)
	switch {
	case errors.Is(err, client.ErrUnimplemented):
		snap.Notes = append(snap.Notes, err.Error())
	case err != nil:
		return nil, err
	default:
		snap.Allocatable = a
	}
	return snap, nil
}

// maxQOSFile bounds the --qos file: kubectl's JSON takes 5-30 KB a pod.
const maxQOSFile = input.MaxPodResources

// setQOS reads the --qos file without blocking, bounded in bytes and in
// values before it is decoded.
func setQOS(snap *podresources.Snapshot, file string) error {
	data, err := input.ReadFile(file, "--qos", maxQOSFile)
	if err != nil {
		return err
	}
	if err := input.CheckValues(data, "--qos "+file, podresources.PodsValueBudget); err != nil {
		return fmt.Errorf("%w: keep only this node's pods (kubectl get pods -A --field-selector spec.nodeName=NODE -o json)", err)
	}
	classes, err := evidence.PodQOSClasses(data)
	if err != nil {
		return fmt.Errorf("--qos %s: %w", file, err)
	}
	if err := snap.SetQOSClasses(classes); err != nil {
		return fmt.Errorf("--qos %s: %w", file, err)
	}
	return nil
}

// checkDir refuses a flag's path that is not a directory, so that a device
// or a FIFO given as a sysfs root is named before anything is read.
func checkDir(path, flag string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: not a directory: give the root of a sysfs tree (/sys, or a copy holding devices/system/node)", flag, path)
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func offline(dir, ns, name string) (*podresources.Snapshot, error) {
	snap, err := podresources.LoadDir(dir, podresources.WithPods(evidence.PodQOSClasses))
	if err != nil {
		return nil, err
	}
	if name == "" {
		return snap, nil
	}
	p := snap.Pod(ns, name)
	if p == nil {
		return nil, fmt.Errorf("pod %s/%s is not in %s (%s)", ns, name, dir, someNames(snap))
	}
	return &podresources.Snapshot{Pods: []podresources.PodResources{*p}, Allocatable: snap.Allocatable, Notes: snap.Notes}, nil
}

func someNames(s *podresources.Snapshot) string {
	if len(s.Pods) == 0 {
		return "it holds no pods"
	}
	var names []string
	for i := range s.Pods {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(s.Pods)-5))
			break
		}
		names = append(names, s.Pods[i].Ref())
	}
	return "it holds " + strings.Join(names, ", ")
}

// writeHelp prints the usage with examples (on stdout: it was asked for).
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: podresources [--socket S | --from DIR] [--pod NAMESPACE/NAME] [flags]

Shows what the kubelet's PodResources API says about a node: which pod holds
which CPUs, memory and devices on which NUMA node, and what is still free.

Examples:
  # the live node (needs access to the kubelet's socket)
  sudo podresources

  # a saved snapshot, one row per container and NUMA node
  podresources --from podresources/testdata/offline/numascope -o wide

  # one pod, as JSON for jq
  sudo podresources --pod default/web -o json | jq '.pods[0].containers'

  # with the pods' QoS classes, which the API does not report
  kubectl get pods -A --field-selector spec.nodeName=NODE -o json > pods.json
  sudo podresources --qos pods.json

Exit status: 0 the snapshot was read, 1 the socket or the files cannot be
read, 2 the command line is wrong.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
