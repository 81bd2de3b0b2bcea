// Command inspect decodes and verifies kubelet checkpoint files
// (cpu_manager_state, memory_manager_state, kubelet_internal_checkpoint,
// dra_manager_state) and says whether the kubelet would accept them.
//
//	go run ./examples/inspect [--json] [--policy NAME] [--kubelet-version X.Y] [FILE...]
//
// With no FILE it inspects an embedded sample: the memory_manager_state shown
// on the upstream "Topology Management troubleshooting" page.
//
// Exit status: 0 when every FILE would be restored by the kubelet, and always
// for the embedded sample (a demonstration: the output explains why the
// kubelet would reject it); 1 when any FILE is rejected by the kubelet or
// cannot be decoded; 2 on a usage error.
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/numascope/numascope/statefile"
)

//go:embed memory_manager_state.sample.json
var sample []byte

// verdictOf names the kubelet whose verdict is printed (--kubelet-version).
var verdictOf = "kubelet v1.37.2"

const sampleName = "(embedded sample: memory_manager_state from the upstream troubleshooting page)"

// jsonLine is the --json contract: one object per file.
type jsonLine struct {
	File           string                   `json:"file"`
	Kind           statefile.Kind           `json:"kind"`
	Format         statefile.Format         `json:"format"`
	Checksum       statefile.ChecksumReport `json:"checksum"`
	KubeletAccepts bool                     `json:"kubeletAccepts"`
	OnReject       string                   `json:"onReject"`
	Reason         string                   `json:"reason,omitempty"`
	Problems       []statefile.Problem      `json:"problems"`
	Groups         []statefile.Group        `json:"groups,omitempty"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per file, one per line")
	policy := fs.String("policy", "", "the policy the kubelet is configured with (cpu: none|static, memory: None|Static); default: the policy named in the file")
	kind := fs.String("kind", "", "force the checkpoint kind (cpu, memory, device, dra); default: detect from content")
	version := fs.String("kubelet-version", "", "the release of the node's kubelet, `X.Y` (1.28 to 1.37, e.g. 1.30 or v1.30.4): the verdict is that release's; default: the newest, 1.37")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: inspect [--json] [--policy NAME] [--kind KIND] [--kubelet-version X.Y] [FILE...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // -h asked for the usage
		}
		return 2
	}
	// the flags' values are checked once, before any file is read
	switch *policy {
	case "", "none", "static", "None", "Static":
	default:
		fmt.Fprintf(stderr, "inspect: --policy %q: give the kubelet's policy name, none or static for cpu_manager_state, None or Static for memory_manager_state (the case is the kubelet's), or leave it out for the policy named in the file\n", *policy)
		return 2
	}
	switch statefile.Kind(*kind) {
	case "", statefile.KindCPU, statefile.KindMemory, statefile.KindDevice, statefile.KindDRA:
	default:
		fmt.Fprintf(stderr, "inspect: --kind %q: give cpu, memory, device or dra, or leave it out to detect the kind from the content\n", *kind)
		return 2
	}
	if _, err := statefile.Decode([]byte(`{}`), statefile.Options{Name: "--kubelet-version", Kind: statefile.KindCPU, KubeletVersion: *version}); err != nil {
		fmt.Fprintln(stderr, "inspect:", err)
		return 2
	}
	verdictOf = "kubelet v1.37.2"
	if *version != "" {
		verdictOf = "kubelet " + strings.TrimSpace(*version)
	}
	status := 0
	files := fs.Args()
	if len(files) == 0 {
		f, err := statefile.Decode(sample, statefile.Options{Name: sampleName, Policy: *policy, Kind: statefile.Kind(*kind), KubeletVersion: *version})
		report(stdout, sampleName, f, err, *asJSON, true)
		return 0
	}
	for _, name := range files {
		f, err := statefile.ReadFile(name, statefile.Options{Name: name, Policy: *policy, Kind: statefile.Kind(*kind), KubeletVersion: *version})
		if report(stdout, name, f, err, *asJSON, false) {
			status = 1
		}
	}
	return status
}

// readRemedy says what to do about a file that could not be decoded at
// all, in the CLI's terms.
func readRemedy(err error) string {
	switch {
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

// report prints one file and tells whether it counts as a failure.
func report(w io.Writer, name string, f *statefile.File, err error, asJSON, isSample bool) bool {
	if err != nil {
		remedy := readRemedy(err)
		if asJSON {
			line := jsonLine{File: name, Problems: []statefile.Problem{{Message: err.Error(), Severity: statefile.SeverityError, Remedy: remedy}}}
			b, _ := json.Marshal(line)
			fmt.Fprintln(w, string(b))
		} else {
			fmt.Fprintf(w, "%s\n  cannot decode: %v\n  what to do: %s\n\n", name, err, remedy)
		}
		return true
	}
	if asJSON {
		line := jsonLine{File: name, Kind: f.Kind, Format: f.Format, Checksum: f.Checksum, KubeletAccepts: f.KubeletAccepts,
			OnReject: f.OnReject, Reason: f.Reason, Problems: f.Problems}
		if f.Memory != nil {
			line.Groups = f.Memory.Groups()
		}
		b, _ := json.Marshal(line)
		fmt.Fprintln(w, string(b))
		return !f.KubeletAccepts
	}
	human(w, f, isSample)
	return !f.KubeletAccepts
}

func human(w io.Writer, f *statefile.File, isSample bool) {
	fmt.Fprintf(w, "%s\n", f.Name)
	fmt.Fprintf(w, "  kind      %s (format %s)\n", f.Kind, f.Format)
	c := f.Checksum
	switch {
	case c.ZeroSkipped:
		fmt.Fprintf(w, "  checksum  0: not checked by the kubelet for this format\n")
	case c.Matched != "":
		fmt.Fprintf(w, "  checksum  %d matches layout %s\n", c.Stored, c.Matched)
	default:
		fmt.Fprintf(w, "  checksum  %d matches NO layout any kubelet computes\n", c.Stored)
	}
	if c.Era != "" {
		fmt.Fprintf(w, "  written   %s\n", c.Era)
	}
	fmt.Fprintf(w, "  layouts tried:\n")
	for _, l := range c.Layouts {
		mark := " "
		if l.Matched {
			mark = "="
		}
		fmt.Fprintf(w, "    %s %-42s stored %-10d computed %-10d\n", mark, l.Name, l.Stored, l.Computed)
	}
	if f.KubeletAccepts {
		fmt.Fprintf(w, "  verdict   %s restores this file\n", verdictOf)
	} else {
		what := "the kubelet refuses to start"
		if f.OnReject == statefile.DiscardsData {
			what = "the kubelet starts but discards the allocation data in this file"
		}
		fmt.Fprintf(w, "  verdict   REJECTED by %s: %s\n", verdictOf, what)
		fmt.Fprintf(w, "  kubelet   %s\n", f.Reason)
	}
	if isSample && c.Matched == "" {
		renamed := "?"
		if g, err := statefile.Decode(bytes.ReplaceAll(sample, []byte(`"nodes"`), []byte(`"cells"`)), statefile.Options{Name: "renamed"}); err == nil {
			for _, l := range g.Checksum.Layouts {
				if l.Name == "v1" {
					renamed = fmt.Sprint(l.Computed)
				}
			}
		}
		fmt.Fprintf(w, "\n  Why the sample's checksum matches nothing: the upstream page shows a file edited for\n"+
			"  the documentation. Its NUMA group key is \"nodes\", but every kubelet writes and hashes\n"+
			"  \"cells\" and ignores \"nodes\", so the struct a kubelet hashes has no groups at all.\n"+
			"  Even with \"nodes\" renamed back to \"cells\" the v1 layout computes %s, not %d,\n"+
			"  so the values on the page were changed after a kubelet hashed them. A kubelet given this\n"+
			"  file refuses to start; files written by a kubelet match one of the layouts above.\n", renamed, c.Stored)
	}
	if len(f.Problems) > 0 {
		fmt.Fprintf(w, "\n  problems (%d):\n", len(f.Problems))
		for _, p := range f.Problems {
			msg := strings.TrimPrefix(p.Message, f.Name+": ")
			path := ""
			if p.Path != "" {
				path = " [" + p.Path + "]"
			}
			fmt.Fprintf(w, "    %-7s %s%s\n", p.Severity, msg, path)
			if p.Remedy != "" {
				fmt.Fprintf(w, "            → %s\n", p.Remedy)
			}
		}
	}
	if f.Memory != nil {
		groups := f.Memory.Groups()
		if len(groups) > 0 {
			fmt.Fprintf(w, "\n  NUMA groups (policy %s):\n", f.Memory.PolicyName)
			for _, g := range groups {
				fmt.Fprintf(w, "    group %v\n", g.Nodes)
				for _, r := range g.Resources {
					fmt.Fprintf(w, "      %-14s %-8s %16s %16s %16s %16s %16s\n", r.Name, "", "total", "systemReserved", "allocatable", "reserved", "free")
					for _, row := range r.PerNode {
						t := row.Table
						fmt.Fprintf(w, "      %-14s node %-3d %16d %16d %16d %16d %16d\n", "", row.Node, t.TotalMemSize, t.SystemReserved, t.Allocatable, t.Reserved, t.Free)
					}
					s := r.Sum
					fmt.Fprintf(w, "      %-14s %-8s %16d %16d %16d %16d %16d\n", "", "sum", s.TotalMemSize, s.SystemReserved, s.Allocatable, s.Reserved, s.Free)
					if len(r.PerNode) > 1 {
						parts := make([]string, len(r.PerNode))
						for i, row := range r.PerNode {
							parts[i] = fmt.Sprint(row.Table.Free)
						}
						fmt.Fprintf(w, "      %-14s free = %s = %d bytes\n", "", strings.Join(parts, " + "), s.Free)
					}
				}
			}
		}
	}
	if f.CPU != nil {
		fmt.Fprintf(w, "\n  CPU policy %s, shared pool %q, %d pods with exclusive CPUs\n", f.CPU.PolicyName, f.CPU.DefaultCPUSet.String(), len(f.CPU.Entries))
	}
	if f.Device != nil {
		fmt.Fprintf(w, "\n  %d device allocations, %d registered resources\n", len(f.Device.PodDeviceEntries), len(f.Device.RegisteredDevices))
	}
	if f.DRA != nil {
		fmt.Fprintf(w, "\n  %d prepared DRA claims\n", len(f.DRA.Claims))
	}
	fmt.Fprintln(w)
}
