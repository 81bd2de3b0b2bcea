package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/version"
)

// versionOptions are the options of `version` (and of --version).
type versionOptions struct {
	streams
	output string
	flag   bool // --version, the same as the command
}

// versionFormats are the -o values of version.
var versionFormats = append([]string{"text", "json", "yaml"}, templateFormats...)

func newVersion(s streams) *command {
	o := &versionOptions{streams: s}
	c := newCommand("version")
	c.use = "version [-o text|json|yaml]"
	c.short = "the plugin's version: module, commit, Go release, the kubelet releases it models"
	c.long = `Prints the plugin's version from its build information: the module and its version,
the numascope SDK it was built against, the commit (when built in a checkout), the Go
release and platform, and the kubelet releases whose checkpoint restore and Topology
Manager numascope models. It reads no kubeconfig and asks the cluster nothing.
kubectl numascope --version prints the same.`
	c.example = `  # what is installed
  kubectl numascope version

  # for a bug report, or a script
  kubectl numascope version -o json`
	c.exit = "0, or 2 when the command line is wrong."
	outputFlag(c.own, &o.output, versionFormats)
	c.own.BoolVar(&o.flag, "version", false, "print the version and exit (the same as the version command)")
	c.opts = o
	return c
}

// Complete refuses arguments.
func (o *versionOptions) Complete(args []string) error {
	o.output = normalOutput(o.output)
	if len(args) > 0 {
		return fmt.Errorf("version takes no argument (got %q)", truncate(args[0], 64))
	}
	return nil
}

// Validate checks -o.
func (o *versionOptions) Validate() error {
	return checkOutput("version", o.output, versionFormats)
}

// Run prints the version.
func (o *versionOptions) Run(ctx context.Context) int {
	if err := writeVersion(ctx, version.Get("kubectl-numascope"), o.output, o.stdout); err != nil {
		return o.fail(err)
	}
	return 0
}

func writeVersion(ctx context.Context, v version.Info, output string, w io.Writer) error {
	switch {
	case isTemplate(output):
		return printTemplate(ctx, output, v, w)
	case output == "json":
		return cliout.Encode(w, cliout.JSON, v)
	case output == "yaml":
		return cliout.Encode(w, cliout.YAML, v)
	}
	_, err := io.WriteString(w, strings.TrimSpace(v.Text())+"\n")
	return err
}
