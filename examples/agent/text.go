package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
)

// writeReportAs writes a round in the -o format: JSON lines (the default,
// for a log pipeline), YAML documents, or a report for a person (text or
// markdown) that opens with the verdict.
func writeReportAs(w io.Writer, r *Report, form string, f cliout.Format) error {
	if form == "none" {
		return nil
	}
	if f == cliout.JSON {
		return writeReport(w, r, form)
	}
	if form == "summary" {
		r = r.summary()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch f {
	case cliout.YAML:
		if _, err = bw.WriteString("---\n"); err == nil {
			err = cliout.Encode(bw, cliout.YAML, r)
		}
	default:
		err = writeHuman(bw, r, f)
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return bw.Flush()
}

// diagnosis is the round's findings as diagnose reports them.
func (r *Report) diagnosis() diagnose.Report {
	return diagnose.Report{Schema: r.Schema, Evidence: r.Evidence, Findings: r.Findings, Summary: r.Summary}
}

// verdict is the first line: the node, then the worst finding with the
// counts (diagnose's headline), or the checkpoint the kubelet rejects.
func (r *Report) verdict() string {
	d := r.diagnosis()
	head := d.Headline()
	for _, c := range r.Checkpoints {
		if c.KubeletAccepts != nil && !*c.KubeletAccepts && r.Summary.Errors == 0 {
			head = "✗ " + c.File + ": the kubelet " + c.OnReject
		}
	}
	return fmt.Sprintf("node %s: %s", r.Node, head)
}

func writeHuman(w *bufio.Writer, r *Report, f cliout.Format) error {
	md := f == cliout.Markdown
	section := func(title string) {
		if md {
			fmt.Fprintf(w, "\n## %s\n\n", title)
		} else {
			fmt.Fprintf(w, "\n  %s:\n", title)
		}
	}
	table := func(header []string, rows [][]string) error {
		return cliout.TableIndent(w, f, "    ", header, rows)
	}
	if md {
		fmt.Fprintf(w, "# numascope agent, node %s\n\n%s\n\n", r.Node, r.verdict())
		fmt.Fprintf(w, "Round %d at %s (%.2f s), state directory `%s`.\n", r.Round, r.Time.Format("2006-01-02 15:04:05Z07:00"), r.DurationSeconds, r.StateDir)
	} else {
		fmt.Fprintln(w, r.verdict())
		fmt.Fprintf(w, "  round %d at %s (%.2f s), state directory %s\n", r.Round, r.Time.Format("2006-01-02 15:04:05Z07:00"), r.DurationSeconds, r.StateDir)
	}

	section("checkpoints")
	var rows [][]string
	for _, c := range r.Checkpoints {
		rows = append(rows, []string{strings.TrimPrefix(c.File, r.StateDir+"/"), string(c.Kind), checkpointFormat(c), checkpointVerdict(c)})
	}
	if err := table([]string{"FILE", "KIND", "FORMAT", "KUBELET"}, rows); err != nil {
		return err
	}

	if len(r.CPUs) > 0 {
		section("CPUs per NUMA node")
		rows = rows[:0]
		for _, c := range r.CPUs {
			rows = append(rows, []string{numaName(c.NUMANode), count(c.CPUs), count(c.Exclusive), count(c.Shared), count(c.Allocatable), count(c.Taken), count(c.Free)})
		}
		if err := table([]string{"NUMA", "CPUS", "EXCLUSIVE", "SHARED", "ALLOCATABLE", "TAKEN", "FREE"}, rows); err != nil {
			return err
		}
	}
	if len(r.Memory) > 0 {
		section("memory per NUMA node")
		rows = rows[:0]
		for _, m := range r.Memory {
			if m.TotalMemSize == 0 && m.Reserved == 0 && m.Allocatable == 0 {
				continue // a size of huge pages the machine does not have
			}
			rows = append(rows, []string{numaName(m.NUMANode), m.Resource, units.Size(m.TotalMemSize), units.Size(m.Allocatable), units.Size(m.Reserved), units.Size(m.Free)})
		}
		if err := table([]string{"NUMA", "RESOURCE", "TOTAL", "ALLOCATABLE", "RESERVED", "FREE"}, rows); err != nil {
			return err
		}
	}

	p := r.PodResources
	switch {
	case p.Disabled:
		line(w, md, "PodResources: not read (--socket none)")
	case p.Available && p.Snapshot != "":
		line(w, md, fmt.Sprintf("PodResources: %s from the snapshot %s", words.Count(p.Pods, "pod"), p.Snapshot))
	case p.Available:
		line(w, md, fmt.Sprintf("PodResources: %s from %s", words.Count(p.Pods, "pod"), p.Socket))
	default:
		line(w, md, fmt.Sprintf("PodResources: unavailable: %s", p.Error))
	}
	for _, e := range r.Errors {
		where := e.Source
		if e.File != "" {
			where += " " + e.File
		}
		line(w, md, fmt.Sprintf("not read: %s: %s", where, e.Message))
	}

	// the findings as diagnose prints them, without its headline (above)
	d := r.diagnosis()
	var b bytes.Buffer
	var err error
	if md {
		err = d.WriteMarkdown(&b)
	} else {
		err = d.WriteText(&b)
	}
	if err != nil {
		return err
	}
	out := b.String()
	head := d.Headline()
	if md {
		// diagnose's heading and headline: the verdict above said it
		out = strings.Replace(out, "## numascope diagnosis\n\n**"+head+"**\n", "## findings\n", 1)
	} else if strings.HasPrefix(out, head+"\n") {
		out = out[len(head)+1:]
	}
	w.WriteString("\n")
	w.WriteString(strings.TrimLeft(out, "\n"))
	if r.Omitted != nil {
		line(w, md, r.Omitted.Note)
	}
	return nil
}

func line(w *bufio.Writer, md bool, s string) {
	if md {
		fmt.Fprintf(w, "\n%s\n", s)
	} else {
		fmt.Fprintf(w, "\n  %s\n", s)
	}
}

func checkpointFormat(c Checkpoint) string {
	if c.Format == "" {
		return "-"
	}
	return string(c.Format)
}

func checkpointVerdict(c Checkpoint) string {
	switch {
	case !c.Present:
		return "absent (the kubelet starts a new one)"
	case c.Error != "":
		return "✗ cannot be read: " + c.Error
	case c.KubeletAccepts != nil && *c.KubeletAccepts:
		return "✓ accepts it"
	case c.OnReject != "":
		return "✗ " + c.OnReject
	}
	return "✗ rejects it"
}

func numaName(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

func count(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}
