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
// Complete, Validate and Run methods (commands.go); the connection flags
// are defined once and taken by each command that uses them. A flag no
// command has, or one given to a command that does not take it, is a usage
// error that names it and the commands that take it.
//
// The first line of diagnose's text report is the headline: the most
// severe finding and the count of findings by severity.
//
// It loads the kubeconfig as kubectl does (KUBECONFIG, ~/.kube/config,
// --kubeconfig, --context, exec credential plugins). What it reads, and the
// RBAC that allows it, is in rbac.yaml and rbac-kubelet.yaml; a call the
// cluster forbids is reported with the permission that is missing. It
// follows no redirect, talks to the kubeconfig's server only, and bounds
// every answer in size and time (transport.go).
//
// Exit status: 0 when no finding has severity error, 1 when one does, 2
// when the command line is wrong or the pod or node cannot be read.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "show a command's usage, flags and examples (as COMMAND -h does)")
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

Flags every command takes (each command's help lists the others):
`)
	common := pflag.NewFlagSet("common", pflag.ContinueOnError)
	(&clusterFlags{}).bind(common, 0)
	fmt.Fprint(w, common.FlagUsages())
	fmt.Fprint(w, "\nUse \"kubectl numascope COMMAND -h\" for a command's usage, flags and examples.\n")
}

// printHelp is `kubectl numascope COMMAND -h`.
func (c *command) printHelp(w io.Writer) {
	fmt.Fprintf(w, "kubectl numascope %s: %s.\n\n%s\n\n", c.name, c.short, c.long)
	fmt.Fprintf(w, "Usage:\n  kubectl numascope %s [flags]\n\nExamples:\n%s\n\n", c.use, c.example)
	fmt.Fprintf(w, "Flags:\n%s\nConnection flags:\n%s\n", c.own.FlagUsages(), c.shared.FlagUsages())
	fmt.Fprintf(w, "Exit status: %s\n", c.exit)
}

// kube is a connection to the cluster.
type kube struct {
	cs        kubernetes.Interface
	config    *rest.Config
	http      *http.Client // every client's: no redirect followed, answers bounded
	namespace string       // the context's namespace, or -n
}

// dynamic is a client for custom resources (NodeResourceTopology) on the
// same guarded HTTP client as the typed one.
func (k *kube) dynamic() (dynamic.Interface, error) {
	return dynamic.NewForConfigAndClient(k.config, k.http)
}

// connect loads the kubeconfig with kubectl's rules. Every client it
// builds shares one HTTP client that follows no redirect and whose
// transport (guard) sends requests to the kubeconfig's server only and
// bounds each answer in size and time (o.timeout).
func connect(o clusterFlags) (*kube, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w (pass --kubeconfig or set KUBECONFIG; --context picks a context)", err)
	}
	cfg.UserAgent = "kubectl-numascope"
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("reading the context's namespace: %w", err)
	}
	if o.namespace != "" {
		ns = o.namespace
	}
	host, err := serverHost(cfg.Host)
	if err != nil {
		return nil, err
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &guard{next: rt, host: host, timeout: o.timeout} })
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	guarded := *hc // never change http.DefaultClient, which it may be
	guarded.CheckRedirect = refuseRedirect
	cs, err := kubernetes.NewForConfigAndClient(cfg, &guarded)
	if err != nil {
		return nil, err
	}
	return &kube{cs: cs, config: cfg, http: &guarded, namespace: ns}, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
