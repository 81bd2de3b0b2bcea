// Command diagnose reads the evidence found on a Kubernetes node and explains
// what the kubelet's Topology Manager and resource managers did, why, and
// what to do about it.
//
//	go run ./examples/diagnose --log kubelet.log --pod pod.yaml --events describe.txt \
//	    --state-dir /var/lib/kubelet --kubelet-config /var/lib/kubelet/config.yaml \
//	    --topology machine-info.json --podresources snapshot.json [--kubelet-version X.Y] [-o text|json|yaml|markdown]
//	go run ./examples/diagnose [-o json] paste-1.txt paste-2.txt ...
//
// The first line of the text report is the headline: the most severe
// finding and the count of findings by severity. -o json prints the report
// (schema numascope.diagnose/v1; --json is the same), -o yaml the same
// document as YAML, -o markdown (or --markdown) a report for a ticket.
//
// Files given without a flag are read as what their content shows
// (diagnose FILE...); a file given with a flag is read as that kind first,
// and as what its content shows when that reader refuses it (with a
// warning). --dir DIR picks the evidence up from a directory by file name
// and sniffs the files whose names say nothing (see
// evidence.SourcesFromDir).
//
// A kubelet log larger than 16 MiB is streamed, gzip or not: read once with
// bounded memory, keeping only the lines the findings need; --log-limit
// SIZE (default 64GiB, "none" for no bound) caps what one such log may
// inflate to.
//
// A file that cannot be read does not stop the run: the report lists it,
// with the reason, near the top (and in "evidence" with --json; the report
// is always printed). The exit status is 0 when no finding has severity
// error, 1 when one does, and 2 when no input could be read at all (or the
// command line is wrong).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/kubeversion"
	"github.com/numascope/numascope/internal/units"
	buildversion "github.com/numascope/numascope/internal/version"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagnose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src evidence.Sources
	var logs, pods, events, states, configs list
	dir := fs.String("dir", "", "read every evidence file found in `DIR` by name")
	fs.StringVar(&src.StateDir, "state-dir", "", "kubelet root `DIR` with cpu_manager_state, memory_manager_state, device-plugins/, dra_manager_state")
	fs.Var(&states, "state", "a single kubelet checkpoint `FILE` (repeatable)")
	fs.StringVar(&src.PodResources, "podresources", "", "PodResources snapshot `FILE` or directory (list.json, allocatable.json)")
	fs.Var(&logs, "log", "kubelet log `FILE`: journalctl -u kubelet, klog text or JSON, gzip or not, of any size (repeatable)")
	logLimit := int64(64 << 30)
	fs.Var(units.Flag{N: &logLimit, None: true}, "log-limit", "read at most `SIZE` of each log larger than 16 MiB (streamed; after decompression): 512MiB, 200GB, or none")
	fs.Var(&pods, "pod", "`FILE` with kubectl get pod -o yaml|json (repeatable)")
	fs.Var(&events, "events", "`FILE` with kubectl describe pod, kubectl get events [-o yaml] (repeatable)")
	fs.Var(&configs, "kubelet-config", "KubeletConfiguration `FILE` (repeatable: later files are layered over earlier ones)")
	fs.StringVar(&src.Topology, "topology", "", "cAdvisor machine-info JSON `FILE` or sysfs snapshot directory")
	version := fs.String("kubelet-version", "", "the release of the node's kubelet, `X.Y` ("+kubeversion.Range()+", e.g. 1.30 or v1.30.4), for the verdicts on the checkpoint files; default: the release the evidence shows, else the newest")
	out := cliout.Register(fs, cliout.JSON, cliout.YAML, cliout.Markdown)
	showVersion := buildversion.Flag(fs)
	fs.Usage = func() {} // -h prints the help on stdout, a wrong flag a hint (below)
	// Files and flags may be mixed: parse up to each file, take it, go on.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				writeHelp(stdout, fs)
				return 0
			}
			fmt.Fprintln(stderr, "usage: diagnose [flags] [FILE...]   (diagnose -h shows the flags and examples)")
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		if n := len(rest) - fs.NArg(); n > 0 && rest[n-1] == "--" {
			files = append(files, fs.Args()...) // everything after "--" is a file
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *showVersion {
		buildversion.Print(stdout, "diagnose")
		return 0
	}
	if err := new(evidence.Set).SetKubeletVersion(*version); err != nil {
		fmt.Fprintln(stderr, "diagnose: --kubelet-version:", err)
		return 2
	}
	src.KubeletConfig = configs
	if logLimit == 0 {
		fmt.Fprintln(stderr, "diagnose: --log-limit 0: give a positive size such as 512MiB, or none for no limit")
		return 2
	}
	if *dir != "" {
		d, err := evidence.SourcesFromDir(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "diagnose: --dir %s: %v: give a directory holding the node's evidence files (see -h)\n", *dir, unwrapPath(err))
			return 2
		}
		src = mergeSources(d, src)
	}
	src.Logs = append(src.Logs, logs...)
	src.Pods = append(src.Pods, pods...)
	src.Events = append(src.Events, events...)
	src.StateFiles = append(src.StateFiles, states...)
	// "-" is standard input; with no evidence named at all, a pipe is read
	// too (diagnose < kubelet.log), and nothing at all is a usage error,
	// never "no findings"
	fromStdin := false
	for i := 0; i < len(files); i++ {
		if files[i] == "-" {
			fromStdin = true
			files = append(files[:i], files[i+1:]...)
			i--
		}
	}
	src.Files = append(src.Files, files...)
	src.LogLimit = logLimit
	var piped []byte
	var err error
	if fromStdin || src.Empty() {
		piped, err = input.Piped(stdin, input.MaxLog)
		if err != nil {
			fmt.Fprintln(stderr, "diagnose:", err)
			return 2
		}
		switch {
		case len(piped) > 0:
			fromStdin = true
		case fromStdin:
			fmt.Fprintln(stderr, "diagnose: - means standard input, but nothing was piped: cat the evidence into the command (cat kubelet.log | diagnose -) or give its path")
			return 2
		default:
			fmt.Fprintln(stderr, "diagnose: no evidence given: give files (a kubelet log, a pod, a checkpoint...), a directory with --dir, or pipe one file in (diagnose < kubelet.log); diagnose -h shows the flags")
			return 2
		}
	}
	ev, err := evidence.Load(src)
	if err != nil {
		fmt.Fprintln(stderr, "diagnose:", err)
		return 2
	}
	if fromStdin {
		ev.Add(input.StdinName, "", piped)
	}
	if *version != "" {
		if err := ev.SetKubeletVersion(*version); err != nil {
			fmt.Fprintln(stderr, "diagnose: --kubelet-version:", err)
			return 2
		}
	}
	rep, err := diagnose.Run(context.Background(), ev)
	if err != nil {
		fmt.Fprintln(stderr, "diagnose:", err)
		return 2
	}
	for i := range rep.Evidence {
		rep.Evidence[i].Error = cliTerms(rep.Evidence[i].Error)
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		f.Explanation, f.Remedy = cliTerms(f.Explanation), cliTerms(f.Remedy)
		for j := range f.Evidence {
			f.Evidence[j].Quote = cliTerms(f.Evidence[j].Quote)
		}
	}
	used := 0
	for _, e := range rep.Evidence {
		switch {
		case e.Used():
			used++
		case e.Error != "":
			fmt.Fprintln(stderr, "diagnose:", e.Error)
		default:
			fmt.Fprintf(stderr, "diagnose: %s: not used: %s\n", e.File, e.Note)
		}
	}
	switch out.Format() {
	case cliout.JSON:
		err = rep.WriteJSON(stdout)
	case cliout.YAML:
		err = cliout.Encode(stdout, cliout.YAML, rep)
	case cliout.Markdown:
		err = rep.WriteMarkdown(stdout)
	default:
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "diagnose:", err)
		return 2
	}
	if used == 0 && len(rep.Evidence) > 0 {
		fmt.Fprintln(stderr, "diagnose: no input could be read")
		return 2
	}
	if rep.HasErrors() {
		return 1
	}
	return 0
}

// stdin is where "-" (or a run with no evidence named and a pipe) is
// read from; tests replace it.
var stdin = input.Stdin

// mergeSources lets explicit flags override what --dir found.
func mergeSources(d, flags evidence.Sources) evidence.Sources {
	if flags.StateDir != "" {
		d.StateDir = flags.StateDir
	}
	if flags.PodResources != "" {
		d.PodResources = flags.PodResources
	}
	if len(flags.KubeletConfig) > 0 {
		d.KubeletConfig = flags.KubeletConfig
	}
	if flags.Topology != "" {
		d.Topology = flags.Topology
	}
	d.Files = append(d.Files, flags.Files...)
	return d
}

// writeHelp prints the usage with examples (on stdout: it was asked for).
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: diagnose [flags] [FILE...]

Explains what the kubelet's Topology Manager and resource managers did on a
node, why, and what to do: findings with causes, evidence and remedies, the
most severe first. Files without a flag are read as what their content shows;
FILE "-" is standard input, read also when no evidence is named
(journalctl -u kubelet | diagnose). With no evidence at all it exits 2.

Examples:
  # every evidence file of a directory (kubelet.log, pod.yaml, *_state, ...)
  diagnose --dir diagnose/testdata/troubleshooting-page

  # the node's own files, as a report for a ticket
  sudo diagnose --state-dir /var/lib/kubelet --kubelet-config /var/lib/kubelet/config.yaml \
      --log kubelet.log --pod pod.yaml -o markdown

  # pastes from a ticket, kinds detected from their content; JSON for jq
  diagnose -o json ticket-1.txt ticket-2.txt | jq -r '.findings[].code'

Exit status: 0 no finding of severity error, 1 an error finding, 2 no input
could be read or the command line is wrong.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sdkAdvice maps advice that names an SDK option to what a user of this
// command does instead.
var sdkAdvice = strings.NewReplacer(
	" or raise Options.MaxSize", " (a checkpoint is far smaller than the limit)",
	"Options.Kind, or --kind in inspect", "inspect --kind KIND FILE reads it as that kind",
)

// cliTerms rewrites an SDK error for the command line.
func cliTerms(msg string) string { return sdkAdvice.Replace(msg) }
