package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing/fstest"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"

	"github.com/numascope/numascope/diagnose"
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
		fmt.Fprintln(stdout, rep.Headline())
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
	ev := &evidence.Set{}
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
		m, err := evidence.ParseSysfs("sys", sys)
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
		return cliout.Encode(w, cliout.YAML, rep)
	case "markdown":
		return rep.WriteMarkdown(w)
	}
	// the headline is printed first, before the notes on what was gathered
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		return err
	}
	_, body, _ := strings.Cut(b.String(), "\n")
	_, err := io.WriteString(w, body)
	return err
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
