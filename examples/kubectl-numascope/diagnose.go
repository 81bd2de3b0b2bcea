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

// diagnoseOptions are the options of `diagnose pod/NAME`.
type diagnoseOptions struct {
	streams
	cluster       clusterFlags
	output        string
	allNamespaces bool
	pod           string
}

// diagnoseFormats are the -o values of diagnose.
var diagnoseFormats = append([]string{"text", "json", "yaml", "markdown"}, templateFormats...)

func newDiagnose(s streams) *command {
	o := &diagnoseOptions{streams: s}
	c := newCommand("diagnose")
	c.use = "diagnose pod/NAME [-n NS | -A] [-o text|json|yaml|markdown|jsonpath=TEMPLATE|go-template=TEMPLATE] [--no-node-access]"
	c.short = "explain a pod's admission: why the kubelet rejected it or where it placed it"
	c.long = `Gathers a pod and the evidence of its node (its events, its controller, the node's
/configz and kubelet log, its NodeResourceTopology, and from a short-lived pod on the
node its checkpoints, PodResources and sysfs) and prints numascope's report. The first
line of the text report is the headline: the most severe finding and the count of
findings by severity. What could not be gathered goes to stderr with what to do.`
	c.example = `  # why was this pod rejected (TopologyAffinityError, UnexpectedAdmissionError)?
  kubectl numascope diagnose pod/guaranteed -n default

  # the same from the API objects only, as Markdown for a ticket
  kubectl numascope diagnose pod/guaranteed -n default --no-node-access -o markdown

  # the pod is in some namespace
  kubectl numascope diagnose guaranteed -A -o json

  # the code of the first finding, for a script
  kubectl numascope diagnose pod/guaranteed -n default -o jsonpath='{.findings[0].code}'`
	c.exit = "0 no finding of severity error, 1 an error finding, 2 the command line is wrong or the pod cannot be read."
	outputFlag(c.own, &o.output, diagnoseFormats)
	c.own.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "find the pod in any namespace")
	o.cluster.bind(c.own, c.shared, withAgentImage|withAgentNamespace|withNoNodeAccess)
	c.opts = o
	c.cluster = &o.cluster
	return c
}

// Complete reads the pod's name.
func (o *diagnoseOptions) Complete(args []string) error {
	o.output = normalOutput(o.output)
	name, err := objectName("diagnose", "pod", args)
	o.pod = name
	return err
}

// Validate checks -o and the connection flags.
func (o *diagnoseOptions) Validate() error {
	if err := checkOutput("diagnose", o.output, diagnoseFormats); err != nil {
		return err
	}
	return o.cluster.validate()
}

// Run diagnoses the pod.
func (o *diagnoseOptions) Run(ctx context.Context) int {
	return o.cluster.run(ctx, o.streams, func(ctx context.Context, k *kube) int {
		return diagnosePod(ctx, k, o, o.stdout, o.stderr)
	})
}

// diagnosePod is `diagnose pod/NAME`.
func diagnosePod(ctx context.Context, k *kube, o *diagnoseOptions, stdout, stderr io.Writer) int {
	pod, err := findPod(ctx, k, o.allNamespaces, o.pod)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	c, err := collectPod(ctx, k, o.cluster, pod)
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
	if err := render(ctx, rep, o.output, stdout); err != nil {
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
func render(ctx context.Context, rep *diagnose.Report, output string, w io.Writer) error {
	if isTemplate(output) {
		return printTemplate(ctx, output, rep, w)
	}
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
