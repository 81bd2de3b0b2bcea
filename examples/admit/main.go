// Command admit merges topology hints exactly as the kubelet's Topology
// Manager does and shows its work.
//
//	go run ./examples/admit --hints FILE [-o text|json|yaml] [--kubelet-version X.Y]
//	go run ./examples/admit --pod FILE --state-dir DIR --topology FILE|DIR [--policy P] [-o text|json|yaml]
//
// The first line of the text output is the verdict: admitted or not, and
// why. -o json (or --json) prints the one-line JSON below; -o yaml the same
// document as YAML.
//
// FILE is JSON: {"numaNodes":[0,1], "distances":{"0":[10,20],"1":[20,10]},
// "policy":"restricted", "options":{"prefer-closest-numa-nodes":"true"},
// "providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}], "memory":null}, null]}.
// A null provider or hint list means "no preference", [] "no possible
// placement"; an absent, null or empty providers list means no providers
// (the kubelet then admits with a preferred hint over every NUMA node).
// Under the none policy the options are not read, as in the kubelet. With
// --json it prints
// {"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}.
//
// --kubelet-version X.Y (1.28 to 1.37; default the newest) answers as that
// kubelet release does: 1.28 to 1.30 know no max-allowable-numa-nodes (the
// limit is 8 NUMA nodes), prefer-closest-numa-nodes is beta up to 1.31 and
// max-allowable-numa-nodes up to 1.34 (refused when
// TopologyManagerPolicyBetaOptions is off), and up to 1.32 the gate errors
// are capitalised as in that release.
//
// Exit codes, so that scripts can branch on the verdict: 0 the pod is
// admitted, 1 it is not (the kubelet would reject it with
// TopologyAffinityError), 2 the input cannot be read or is invalid, or the
// flags are wrong.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/numascope/numascope/internal/words"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/version"
	"github.com/numascope/numascope/topomgr"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type result struct {
	BestHint topomgr.TopologyHint `json:"bestHint"`
	Admit    bool                 `json:"admit"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("admit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hints := fs.String("hints", "", "JSON `FILE` with numaNodes, distances, policy, options and providers' hints (- for the standard input)")
	out := cliout.Register(fs, cliout.JSON, cliout.YAML)
	nf := addNodeFlags(fs)
	showVersion := version.Flag(fs)
	fs.Usage = func() {} // -h prints the help on stdout, a wrong flag a hint (below)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout, fs)
			return 0
		}
		fmt.Fprintln(stderr, "usage: admit --hints FILE | --pod FILE --state-dir DIR --topology FILE|DIR [flags]   (admit -h shows the flags and examples)")
		return 2
	}
	if *showVersion {
		version.Print(stdout, "admit")
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "admit: unexpected argument %q: give the input with --hints FILE or --pod FILE\n", fs.Arg(0))
		return 2
	}
	if _, err := topomgr.NewPolicyOptions(nil, topomgr.FeatureGates{KubeletVersion: nf.version}); err != nil {
		fmt.Fprintf(stderr, "admit: --kubelet-version: %v\n", err)
		return 2
	}
	switch {
	case *hints != "" && nf.pod != "":
		fmt.Fprintln(stderr, "admit: give either --hints or --pod, not both")
		return 2
	case *hints != "":
		// a hints file carries its own machine, policy and options: a node
		// flag beside it would be ignored, so it is refused
		var ignored []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "hints", "json", "o", "output", "kubelet-version":
			default:
				ignored = append(ignored, "--"+f.Name)
			}
		})
		if len(ignored) > 0 {
			fmt.Fprintf(stderr, "admit: %s %s only with --pod: with --hints FILE the file gives the NUMA nodes, the policy and the options (set them in %s)\n", strings.Join(ignored, ", "), map[bool]string{true: "works", false: "work"}[len(ignored) == 1], *hints)
			return 2
		}
		return runHints(*hints, nf.version, out.Format(), stdout, stderr)
	case nf.pod != "":
		return runNode(nf, out.Format(), stdout, stderr)
	}
	fmt.Fprintln(stderr, "admit: give --hints FILE (a merge) or --pod FILE --state-dir DIR --topology FILE (a node); see -h")
	return 2
}

func runHints(path, version string, format cliout.Format, stdout, stderr io.Writer) int {
	data, err := readInput(path, "--hints", input.MaxDocument)
	if err != nil {
		fmt.Fprintf(stderr, "admit: %v\n", err)
		return 2
	}
	f, err := topomgr.ParseHintsFile(data)
	if err != nil {
		fmt.Fprintf(stderr, "admit: %s: %v\n", path, err)
		return 2
	}
	gates := topomgr.DefaultFeatureGates()
	gates.KubeletVersion = version
	p, err := f.PolicyFor(gates)
	if err != nil {
		fmt.Fprintf(stderr, "admit: %s: %v\n", path, err)
		return 2
	}
	r := p.Explain(f.Providers)
	if format != cliout.Text {
		if err := writeDoc(stdout, format, result{BestHint: r.BestHint, Admit: r.Admit}); err != nil {
			fmt.Fprintf(stderr, "admit: %v\n", err)
			return 2
		}
		return verdictCode(r.Admit)
	}
	fmt.Fprintln(stdout, hintsVerdict(r, p.Name()))
	w := &tw{w: stdout}
	desc := "NUMA nodes " + joinInts(f.NUMANodes)
	if len(f.Distances) > 0 {
		desc += " (with distances)"
	}
	w.line("machine", desc)
	w.line("policy", p.Name()+optionsText(f.Options))
	if version != "" {
		w.line("kubelet", version)
	}
	writeReport(w, r, providerNames(len(f.Providers)))
	return verdictCode(r.Admit)
}

// verdictCode is the exit code for a computed verdict: 0 admitted, 1 not.
func verdictCode(admit bool) int {
	if admit {
		return 0
	}
	return 1
}

func providerNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("provider %d", i)
	}
	return out
}

// writeReport prints the merge's work: every list, the numbers the
// comparison used, the winner and why.
func writeReport(w *tw, r *topomgr.MergeReport, names []string) {
	if r.Rule == topomgr.RuleNonePolicy {
		w.line("best hint", hintText(r.BestHint))
		w.line("why", r.Why())
		w.line("admit", yesNo(r.Admit))
		return
	}
	last := -1
	for _, l := range r.Lists {
		label := ""
		if l.Provider != last {
			label = fmt.Sprintf("provider %d", l.Provider)
			if l.Provider < len(names) {
				label = names[l.Provider]
			}
			last = l.Provider
		}
		switch l.Origin {
		case topomgr.NoPreferenceProvider:
			w.line(label, "no hints (null or {}): no preference for any resource -> [any NUMA, preferred]")
		case topomgr.NoPreferenceResource:
			w.line(label, l.Resource+": null: no preference -> [any NUMA, preferred]")
		case topomgr.NoPossiblePlacement:
			w.line(label, l.Resource+": []: no possible placement -> [any NUMA, not preferred]")
		default:
			w.line(label, l.Resource+": "+hintsText(l.Hints))
		}
	}
	if len(r.Lists) > 0 {
		w.line("", "(* marks a preferred hint; \"any\" a hint without NUMA affinity)")
	}
	if len(r.Lists) == 0 {
		w.line("providers", "none: the single empty combination merges to every NUMA node, preferred")
	}
	if r.SingleNUMALists != nil {
		for i, l := range r.SingleNUMALists {
			name := r.Lists[i].Resource
			if name == "" {
				name = "(provider " + fmt.Sprint(r.Lists[i].Provider) + ")"
			}
			w.line(pick(i == 0, "single-numa", ""), name+" keeps "+hintsText(l)+pick(i == 0, "   (preferred hints with one node or none)", ""))
		}
	}
	combos := r.Combinations.String() + " combinations"
	if combos == "1 combinations" {
		combos = "1 combination"
	}
	w.line("merge", fmt.Sprintf("%s; the kubelet enumerates %s; best non-preferred affinity count %d", words.Count(len(r.Lists), "hint list"), combos, r.BestNonPreferredAffinityCount))
	if r.RewrittenToAnyNUMA {
		w.line("merged", hintText(r.Merged))
	}
	w.line("best hint", hintText(r.BestHint))
	w.line("rule", string(r.Rule))
	w.line("why", r.Why())
	w.line("admit", yesNo(r.Admit))
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no (TopologyAffinityError: Resources cannot be allocated with Topology locality)"
}

func hintText(h topomgr.TopologyHint) string { return h.Describe() }

func hintsText(hs []topomgr.TopologyHint) string {
	if len(hs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		s := "any"
		if h.HasAffinity {
			s = "{" + h.NUMANodeAffinity.List() + "}"
		}
		if h.Preferred {
			s += "*"
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

func optionsText(o map[string]string) string {
	if len(o) == 0 {
		return ""
	}
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + o[k]
	}
	return "  options: " + strings.Join(parts, ",")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// tw prints label/value lines in two columns.
type tw struct{ w io.Writer }

func (t *tw) line(label, value string) {
	fmt.Fprintf(t.w, "%-13s%s\n", label, value)
}

// readInput reads a file a flag names, bounded: "-" or /dev/stdin is the
// standard input (read through the limit), anything else a regular file (a
// FIFO or a device is refused).
func readInput(path, flag string, limit int64) ([]byte, error) {
	if path == "-" || path == "/dev/stdin" {
		return input.ReadAll(os.Stdin, flag+" (standard input)", limit)
	}
	return input.ReadFile(path, flag, limit)
}

// writeDoc prints a result as one line of JSON (the contract scripts rely
// on) or as YAML.
func writeDoc(w io.Writer, format cliout.Format, v any) error {
	if format == cliout.JSON {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	return cliout.Encode(w, format, v)
}

// hintsVerdict is the first line of a merge's explanation.
func hintsVerdict(r *topomgr.MergeReport, policy string) string {
	if r.Admit {
		return fmt.Sprintf("✓ admitted: the %s policy accepts the best hint, %s", policy, hintText(r.BestHint))
	}
	return fmt.Sprintf("✗ not admitted: TopologyAffinityError: the %s policy rejects the best hint, %s", policy, hintText(r.BestHint))
}

// writeHelp prints the usage with examples (on stdout: it was asked for).
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: admit --hints FILE [flags]
       admit --pod FILE --state-dir DIR --topology FILE|DIR [flags]

Merges Topology Manager hints exactly as the kubelet does and shows the work
(--hints), or admits a pod on a node from its state files, topology and
kubelet config (--pod). The first line is the verdict.

Examples:
  # merge the hints of a file
  admit --hints examples/admit/testdata/design.json

  # the verdict as JSON for a script: {"bestHint":{...},"admit":true}
  admit --hints examples/admit/testdata/needs-two-nodes.json -o json

  # would this pod be admitted on the node? (policy from the kubelet config)
  admit --pod pod.yaml --state-dir /var/lib/kubelet --topology /sys \
      --kubelet-config /var/lib/kubelet/config.yaml

  # the same under another policy and an option
  admit --pod pod.yaml --state-dir DIR --topology machine-info.json \
      --policy single-numa-node --option prefer-closest-numa-nodes=true

Exit status: 0 admitted, 1 not admitted (TopologyAffinityError), 2 the input
cannot be read or is invalid, or the command line is wrong.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
