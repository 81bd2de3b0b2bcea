package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/statefile"
)

// diagnosePod is `diagnose pod/NAME`.
func diagnosePod(ctx context.Context, k *kube, o options, name string, stdout, stderr io.Writer) int {
	pod, err := findPod(ctx, k, o, name)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	c, err := collectPod(ctx, k, o, pod)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	rep, err := c.diagnose(ctx)
	for _, n := range c.notes {
		fmt.Fprintln(stderr, "kubectl-numascope:", n)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	for _, e := range rep.Evidence {
		if e.Error != "" {
			fmt.Fprintln(stderr, "kubectl-numascope:", e.Error)
		}
	}
	if o.output == "text" {
		fmt.Fprintln(stdout, headline(rep))
	}
	if o.output == "text" || o.output == "markdown" {
		for _, a := range c.about {
			if o.output == "markdown" {
				fmt.Fprintf(stdout, "- %s\n", a)
			} else {
				fmt.Fprintln(stdout, a)
			}
		}
		if len(c.about) > 0 {
			fmt.Fprintln(stdout)
		}
	}
	if err := render(rep, o.output, stdout); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	if rep.HasErrors() {
		return 1
	}
	return 0
}

// diagnose runs numascope's diagnosis on the collection, through the same
// Evidence.Add readers as examples/diagnose; files are named as in a
// gathered directory, so the report's evidence lines read the same.
func (c *collection) diagnose(ctx context.Context) (*diagnose.Report, error) {
	ev := &diagnose.Evidence{}
	sys := fstest.MapFS{}
	// The node's configuration file first, /configz (what the kubelet runs
	// with, flags included) over it: the order of a gathered directory.
	files := make([]file, 0, len(c.files))
	for _, f := range c.files {
		if f.path == "config.yaml" {
			files = append(files, f)
		}
	}
	for _, f := range c.files {
		if f.path != "config.yaml" {
			files = append(files, f)
		}
	}
	for _, f := range files {
		switch f.kind {
		case "":
		case "sysfs":
			sys[f.path] = &fstest.MapFile{Data: f.data, Mode: 0o444}
		default:
			ev.Add(f.path, f.kind, f.data)
		}
	}
	if len(sys) > 0 {
		m, err := diagnose.ParseSysfs("sys", sys)
		if err != nil {
			c.notes = append(c.notes, "the node's sysfs copy cannot be read: "+err.Error())
		} else {
			ev.SetMachine(m)
		}
	}
	rep, err := diagnose.Run(ctx, ev)
	if err != nil {
		return nil, err
	}
	return &rep, nil
}

// render writes the report as -o asks.
func render(rep *diagnose.Report, output string, w io.Writer) error {
	switch output {
	case "json":
		return rep.WriteJSON(w)
	case "yaml":
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(buf.Bytes())
		if err != nil {
			return err
		}
		_, err = w.Write(y)
		return err
	case "markdown":
		// the headline in place of the "N error(s), ..." line under the heading
		var b bytes.Buffer
		if err := rep.WriteMarkdown(&b); err != nil {
			return err
		}
		body, done := b.String(), false
		body = reMarkdownCounts.ReplaceAllStringFunc(body, func(m string) string {
			if done {
				return m
			}
			done = true
			return "**" + strings.NewReplacer("*", `\*`, "_", `\_`, "|", `\|`).Replace(headline(rep)) + "**"
		})
		_, err := io.WriteString(w, body)
		return err
	}
	// the headline (printed first) replaces the report's summary line
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		return err
	}
	body := b.String()
	if first, rest, ok := strings.Cut(body, "\n"); ok && strings.HasPrefix(first, "numascope diagnose:") {
		body = rest
	} else if !ok && strings.HasPrefix(body, "numascope diagnose:") {
		body = ""
	}
	_, err := io.WriteString(w, body)
	return err
}

// reMarkdownCounts is the count line under the Markdown report's heading.
var reMarkdownCounts = regexp.MustCompile(`(?m)^\d+ error\(s\), \d+ warning\(s\), \d+ note\(s\)\.$`)

// headline is the report in one line: the most severe finding (the report
// lists them worst first) and the count of findings by severity, as
// examples/diagnose prints it.
func headline(rep *diagnose.Report) string {
	if len(rep.Findings) == 0 {
		return "✓ no findings: nothing in the evidence points at a problem"
	}
	top := rep.Findings[0]
	mark := "✓"
	switch top.Severity {
	case statefile.SeverityError:
		mark = "✗"
	case statefile.SeverityWarning:
		mark = "!"
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{rep.Summary.Errors, "error"}, {rep.Summary.Warnings, "warning"}, {rep.Summary.Infos, "note"}} {
		switch {
		case c.n == 1:
			counts = append(counts, "1 "+c.what)
		case c.n > 1:
			counts = append(counts, fmt.Sprintf("%d %ss", c.n, c.what))
		}
	}
	return fmt.Sprintf("%s %s: %s — %s", mark, top.Code, top.Title, strings.Join(counts, ", "))
}

// gatherNode is `gather node/NAME --out DIR`.
func gatherNode(ctx context.Context, k *kube, o options, name string, stderr io.Writer) int {
	if o.out == "" {
		fmt.Fprintln(stderr, "kubectl-numascope: gather needs --out DIR (a new or empty directory)")
		return 2
	}
	if err := emptyDir(o.out); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	c := &collection{}
	if err := collectNode(ctx, k, o, c, name); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	collectNodePods(ctx, k, c, name)
	for _, n := range c.notes {
		fmt.Fprintln(stderr, "kubectl-numascope:", n)
	}
	if err := c.writeDir(o.out); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	var names []string
	for _, f := range c.files {
		if !strings.HasPrefix(f.path, "sys/") {
			names = append(names, f.path)
		}
	}
	fmt.Fprintf(stderr, "kubectl-numascope: wrote %s: %s; read it with diagnose --dir %s (go run ./examples/diagnose in a clone of numascope)\n", o.out, strings.Join(names, ", "), o.out)
	return 0
}
