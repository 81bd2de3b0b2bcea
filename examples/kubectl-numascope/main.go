// Command kubectl-numascope is numascope as a kubectl plugin: installed on
// PATH as kubectl-numascope, it runs as `kubectl numascope ...` and gathers
// the evidence of a pod or a node from the cluster itself, then explains
// what the kubelet's Topology Manager did.
//
//	kubectl numascope diagnose pod/NAME [-n NS | -A] [-o text|json|yaml|markdown] [--no-node-access]
//	kubectl numascope gather node/NAME --out DIR [--no-node-access]
//	kubectl numascope nodes [-o text|json|yaml|markdown|wide] [--parallel N]
//
// `kubectl numascope COMMAND -h` shows a command's usage, flags and
// examples. Each command is an options value with its own flags, and
// Complete, Validate and Run methods (commands.go). Every command takes
// kubectl's kubeconfig flags, bound by client-go's
// clientcmd.BindOverrideFlags (kubeconfig.go: --kubeconfig, --context,
// --cluster, --user, -n, --server, --certificate-authority,
// --insecure-skip-tls-verify, --token, --as, --as-group, --as-uid,
// --request-timeout, ...); the plugin's own flags go with the commands that
// use them. A flag no command has, or one given to a command that does not
// take it, is a usage error that names it and the commands that take it; a
// value a flag cannot take is one that names the flag and what it takes.
//
// The first line of diagnose's text report is the headline: the most
// severe finding and the count of findings by severity.
//
// It loads the kubeconfig as kubectl does (KUBECONFIG, ~/.kube/config,
// --kubeconfig, exec credential plugins), the kubeconfig flags over it.
// What it reads, and the RBAC that allows it, is in rbac.yaml and
// rbac-kubelet.yaml; a call the cluster forbids is reported with the
// permission that is missing. It follows no redirect, talks to the API
// server only (the kubeconfig's, or --server), and bounds every answer in
// size and time (transport.go).
//
// Exit status: 0 when no finding has severity error, 1 when one does, 2
// when the command line is wrong or the pod or node cannot be read.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	// Installed (linked or copied) as kubectl_complete-numascope, the
	// program kubectl runs to complete "kubectl numascope ...", it answers
	// as __complete does.
	if name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"); name == "kubectl_complete-numascope" {
		args = append([]string{completeCmd}, args...)
	}
	code := run(ctx, args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == completeCmd || args[0] == completeNoDescCmd) {
		return completeLine(ctx, args[1:], args[0] == completeCmd, stdout)
	}
	s := streams{stdout: stdout, stderr: stderr}
	c, help, err := parse(args, s)
	switch {
	case errors.Is(err, errNoCommand):
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		printRootHelp(stderr)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "kubectl-numascope: %v\n", err)
		return 2
	case help && c == nil:
		printRootHelp(stdout)
		return 0
	case help:
		c.printHelp(stdout)
		return 0
	}
	return c.opts.Run(ctx)
}

// printRootHelp is `kubectl numascope -h`: the commands and examples.
func printRootHelp(w io.Writer) {
	cmds := commands(streams{stdout: io.Discard, stderr: io.Discard})
	fmt.Fprint(w, "kubectl numascope: explain the kubelet's Topology Manager from the cluster.\n\nUsage:\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  kubectl numascope %s\n", c.use)
	}
	fmt.Fprint(w, "\nCommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "  %-11s %s\n", "help", "show a command's usage, flags and examples (as COMMAND -h does)")
	fmt.Fprint(w, "\nExamples:\n")
	for i, c := range cmds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		first, _, _ := strings.Cut(c.example, "\n\n")
		fmt.Fprintln(w, first)
	}
	fmt.Fprint(w, `
Exit status: 0 no finding of severity error, 1 an error finding, 2 the
command line is wrong or the pod or node cannot be read.

kubectl numascope --version is kubectl numascope version.

Flags every command that reads the cluster takes (each command's help lists the others):
`)
	common := pflag.NewFlagSet("common", pflag.ContinueOnError)
	(&clusterFlags{}).bind(common, common, 0)
	fmt.Fprint(w, common.FlagUsages())
	fmt.Fprint(w, "\nUse \"kubectl numascope COMMAND -h\" for a command's usage, flags and examples.\n")
}

// printHelp is `kubectl numascope COMMAND -h`.
func (c *command) printHelp(w io.Writer) {
	fmt.Fprintf(w, "kubectl numascope %s: %s.\n\n%s\n\n", c.name, c.short, c.long)
	fmt.Fprintf(w, "Usage:\n  kubectl numascope %s [flags]\n\nExamples:\n%s\n\n", c.use, c.example)
	fmt.Fprintf(w, "Flags:\n%s\n", c.own.FlagUsages())
	if c.shared.HasFlags() {
		fmt.Fprintf(w, "Kubeconfig flags (kubectl's; every command that reads the cluster takes them):\n%s\n", c.shared.FlagUsages())
	}
	fmt.Fprintf(w, "Exit status: %s\n", c.exit)
}
