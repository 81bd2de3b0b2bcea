// Command kubectl-numascope is numascope as a kubectl plugin: installed on
// PATH as kubectl-numascope, it runs as `kubectl numascope ...` and gathers
// the evidence of a pod or a node from the cluster itself, then explains
// what the kubelet's Topology Manager did.
//
//	kubectl numascope diagnose pod/NAME [-n NS | -A] [-o text|json|yaml|markdown] [--no-node-access]
//	kubectl numascope gather node/NAME --out DIR [--no-node-access]
//	kubectl numascope nodes [-o text|json|yaml|markdown|wide]
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
	"slices"
	"strings"
	"syscall"
	"time"

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

const usage = `kubectl numascope: explain the kubelet's Topology Manager from the cluster.

Usage:
  kubectl numascope diagnose pod/NAME [-n NS | -A] [-o text|json|yaml|markdown] [--no-node-access]
  kubectl numascope gather node/NAME --out DIR [--no-node-access]
  kubectl numascope nodes [-o text|json|yaml|markdown|wide] [--parallel N]

Examples:
  # why was this pod rejected (TopologyAffinityError, UnexpectedAdmissionError)?
  kubectl numascope diagnose pod/guaranteed -n default

  # the same from the API objects only, as Markdown for a ticket
  kubectl numascope diagnose pod/guaranteed -n default --no-node-access -o markdown

  # save a node's evidence for later (or for someone else)
  kubectl numascope gather node/worker-3 --out ./worker-3

  # every node: checkpoints, free CPUs and memory per NUMA node, warnings too
  kubectl numascope nodes -o wide

Exit status: 0 no finding of severity error, 1 an error finding, 2 the
command line is wrong or the pod or node cannot be read.

Flags:
`

// formats are the -o values each command takes.
var formats = map[string][]string{
	"diagnose": {"text", "json", "yaml", "markdown"},
	"gather":   nil,
	"nodes":    {"text", "json", "yaml", "markdown", "wide"},
}

// onlyFor names the flags that belong to one command: given to another,
// they would be ignored, so they are refused.
var onlyFor = map[string]string{
	"namespace": "diagnose", "all-namespaces": "diagnose",
	"out":      "gather",
	"parallel": "nodes", "progress": "nodes",
}

// options are the flags every command shares.
type options struct {
	kubeconfig, context, namespace string
	allNamespaces                  bool
	output                         string
	noNodeAccess                   bool
	agentImage, agentNamespace     string
	timeout                        time.Duration
	out                            string
	parallel                       int
	progress                       string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("kubectl-numascope", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "the pod's namespace (default: the context's)")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "find the pod in any namespace")
	fs.StringVarP(&o.output, "output", "o", "text", "output format: text, json, yaml or markdown (nodes: also wide)")
	fs.BoolVar(&o.noNodeAccess, "no-node-access", false, "do not start a short-lived pod on the node for its state files, PodResources and sysfs")
	fs.StringVar(&o.agentImage, "agent-image", "", "numascope agent image for the short-lived pod (default: the image of the numascope-agent DaemonSet, the only one rbac.yaml's policy lets the node-access role run)")
	fs.StringVar(&o.agentNamespace, "agent-namespace", "numascope", "namespace of the agent DaemonSet and of the short-lived pod (it needs the privileged Pod Security level for its read-only host files)")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long to wait for the short-lived pod, and for the whole command")
	fs.StringVar(&o.out, "out", "", "gather: the directory to write (must not exist, or be empty)")
	fs.IntVar(&o.parallel, "parallel", 16, "nodes: most requests in flight at once")
	fs.StringVar(&o.progress, "progress", "auto", "nodes: progress line on stderr: auto (when stderr is a terminal), always or never")
	fs.Usage = func() {} // -h prints the help on stdout, a wrong flag a hint (below)
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, usage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "kubectl-numascope: %v (kubectl numascope -h shows the commands, their flags and examples)\n", err)
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 {
		printUsage(stderr)
		return 2
	}
	cmd, target, err := parseTarget(rest)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err, "(kubectl numascope -h shows the commands and examples)")
		return 2
	}
	o.output = strings.ToLower(strings.TrimSpace(o.output))
	if ok := slices.Contains(formats[cmd], o.output); !ok {
		if formats[cmd] == nil {
			if fs.Changed("output") {
				fmt.Fprintf(stderr, "kubectl-numascope: %s writes a directory (--out DIR), not a report: leave out -o\n", cmd)
				return 2
			}
		} else {
			list := formats[cmd]
			fmt.Fprintf(stderr, "kubectl-numascope: -o %q: %s prints %s or %s\n", o.output, cmd, strings.Join(list[:len(list)-1], ", "), list[len(list)-1])
			return 2
		}
	}
	var misplaced []string
	fs.Visit(func(f *pflag.Flag) {
		if c, ok := onlyFor[f.Name]; ok && c != cmd {
			misplaced = append(misplaced, "--"+f.Name+" ("+c+")")
		}
	})
	if len(misplaced) > 0 {
		fmt.Fprintf(stderr, "kubectl-numascope: %s does not take %s: each flag goes with the command in brackets\n", cmd, strings.Join(misplaced, ", "))
		return 2
	}
	if o.parallel < 1 || o.parallel > 256 {
		fmt.Fprintf(stderr, "kubectl-numascope: --parallel %d: give a number between 1 and 256\n", o.parallel)
		return 2
	}
	if o.timeout <= 0 {
		fmt.Fprintf(stderr, "kubectl-numascope: --timeout %s: give a positive duration such as 2m\n", o.timeout)
		return 2
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		fmt.Fprintf(stderr, "kubectl-numascope: --progress %q: give auto, always or never\n", o.progress)
		return 2
	}
	k, err := connect(o)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout+30*time.Second)
	defer cancel()
	switch cmd {
	case "diagnose":
		return diagnosePod(ctx, k, o, target, stdout, stderr)
	case "gather":
		return gatherNode(ctx, k, o, target, stderr)
	default:
		showProgress := o.progress == "always" || (o.progress == "auto" && isTerminal(stderr))
		return listNodes(ctx, k, o, showProgress, stdout, stderr)
	}
}

// parseTarget reads `diagnose pod/NAME`, `diagnose pod NAME`, `diagnose
// NAME`, `gather node/NAME`, `gather node NAME`, `nodes`.
func parseTarget(args []string) (cmd, name string, err error) {
	cmd = args[0]
	want := map[string]string{"diagnose": "pod", "gather": "node", "nodes": ""}
	kind, ok := want[cmd]
	if !ok {
		return "", "", fmt.Errorf("unknown command %q: give diagnose pod/NAME, gather node/NAME --out DIR, or nodes", cmd)
	}
	rest := args[1:]
	if kind == "" {
		if len(rest) > 0 {
			return "", "", fmt.Errorf("nodes takes no argument (got %q)", rest[0])
		}
		return cmd, "", nil
	}
	aliases := map[string]map[string]bool{
		"pod":  {"pod": true, "pods": true, "po": true},
		"node": {"node": true, "nodes": true, "no": true},
	}[kind]
	switch {
	case len(rest) == 1 && strings.Contains(rest[0], "/"):
		k, n, _ := strings.Cut(rest[0], "/")
		if !aliases[k] {
			return "", "", fmt.Errorf("%s takes %s/NAME, not %q", cmd, kind, rest[0])
		}
		name = n
	case len(rest) == 2 && aliases[rest[0]]:
		name = rest[1]
	case len(rest) == 1:
		name = rest[0]
	default:
		return "", "", fmt.Errorf("%s takes one %s/NAME", cmd, kind)
	}
	if name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%s: %q is not a %s name", cmd, name, kind)
	}
	return cmd, name, nil
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
func connect(o options) (*kube, error) {
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
