package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// clusterFlags are the connection flags: kubectl's kubeconfig flags, which
// every command takes (--kubeconfig and client-go's BindOverrideFlags set:
// --context, --cluster, --user, -n, --server, --token, --as, ...), and the
// plugin's own, each taken by the commands that use it.
type clusterFlags struct {
	kubeconfig string
	// overrides are what the kubeconfig flags change in the kubeconfig,
	// as kubectl's do.
	overrides      clientcmd.ConfigOverrides
	timeout        time.Duration
	agentImage     string
	agentNamespace string
	noNodeAccess   bool
}

// connFlag names the plugin's own connection flags a command takes besides
// --timeout, which every command takes.
type connFlag uint

const (
	withAgentImage     connFlag = 1 << iota // --agent-image
	withAgentNamespace                      // --agent-namespace
	withNoNodeAccess                        // --no-node-access
)

// kubeconfigFlags are client-go's names and texts of kubectl's kubeconfig
// flags (RecommendedConfigOverrideFlags), with what the plugin does with
// -n, --server and --request-timeout said in their help.
func kubeconfigFlags() clientcmd.ConfigOverrideFlags {
	f := clientcmd.RecommendedConfigOverrideFlags("")
	f.ContextOverrideFlags.Namespace.Description = "the pod's namespace for diagnose (default: the context's); nodes and gather read cluster-wide objects and take -n as kubectl does, unused"
	f.ClusterOverrideFlags.APIServer.Description = "the address and port of the Kubernetes API server; the plugin sends nothing to any other host"
	f.Timeout.Description = "how long a single request may take (0: no limit of its own; --timeout bounds every answer too), as a duration such as 30s or a number of seconds"
	return f
}

// bind defines the connection flags, bound to f: the kubeconfig flags and
// --timeout on shared, those of with on own (the command's flags).
func (f *clusterFlags) bind(own, shared *pflag.FlagSet, with connFlag) {
	fs := shared
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	clientcmd.BindOverrideFlags(&f.overrides, fs, kubeconfigFlags())
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "how long each answer of the cluster may take, and the short-lived pod of diagnose and gather; the whole command gets 30s more")
	fs = own
	if with&withAgentImage != 0 {
		fs.StringVar(&f.agentImage, "agent-image", "", "numascope agent image for the short-lived pod (default: the image of the numascope-agent DaemonSet, the only one rbac.yaml's policy lets the node-access role run)")
	}
	if with&withAgentNamespace != 0 {
		fs.StringVar(&f.agentNamespace, "agent-namespace", "numascope", "namespace of the numascope-agent DaemonSet, and of the short-lived pod of diagnose and gather (it needs the privileged Pod Security level for its read-only host files)")
	}
	if with&withNoNodeAccess != 0 {
		fs.BoolVar(&f.noNodeAccess, "no-node-access", false, "do not start a short-lived pod on the node for its state files, PodResources and sysfs")
	}
}

// validate checks the connection flags, without reading the kubeconfig or
// touching the cluster. A message names the flag and what it accepts, and
// never repeats a credential's value (--token, --password).
func (f *clusterFlags) validate() error {
	if f.timeout <= 0 {
		return fmt.Errorf("--timeout %s: give a positive duration such as 2m", f.timeout)
	}
	o := &f.overrides
	if t := o.Timeout; t != "" {
		if d, err := clientcmd.ParseTimeout(t); err != nil || d < 0 {
			return fmt.Errorf("--request-timeout %q: give a duration such as 30s or 2m, a number of seconds, or 0 for no limit", truncate(t, 64))
		}
	}
	if s := o.ClusterInfo.Server; s != "" {
		if _, err := serverHost(s); err != nil || strings.ContainsAny(s, " \t\r\n") {
			return fmt.Errorf("--server %q: give the API server's URL, such as https://203.0.113.10:6443", truncate(s, 256))
		}
	}
	if ns := o.Context.Namespace; ns != "" {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			return fmt.Errorf("-n %q: a namespace name is a DNS label: %s", truncate(ns, 256), strings.Join(msgs, "; "))
		}
	}
	a := &o.AuthInfo
	if a.Impersonate == "" && (len(a.ImpersonateGroups) > 0 || a.ImpersonateUID != "") {
		return errors.New("--as-group and --as-uid need --as USER: the API server impersonates groups and a UID only with a user")
	}
	if (a.Username == "") != (a.Password == "") {
		return errors.New("--username and --password go together (basic authentication)")
	}
	return nil
}

// run connects to the cluster and runs do with it, within --timeout and
// 30 s more for the last answers and the clean-up; a kubeconfig that cannot
// be used is reported on s with exit status 2.
func (f *clusterFlags) run(ctx context.Context, s streams, do func(context.Context, *kube) int) int {
	k, err := connect(*f)
	if err != nil {
		return s.fail(err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout+30*time.Second)
	defer cancel()
	return do(ctx, k)
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

// connect loads the kubeconfig with kubectl's rules and the kubeconfig
// flags over it. Every client it builds shares one HTTP client that
// follows no redirect and whose transport (guard) sends requests to the
// server chosen (the kubeconfig's, or --server) only and bounds each
// answer in size and time (o.timeout).
func connect(o clusterFlags) (*kube, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := o.overrides
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w (pass --kubeconfig or set KUBECONFIG, or give --server with credentials such as --token; --context picks a context)", err)
	}
	cfg.UserAgent = "kubectl-numascope"
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("reading the context's namespace: %w", err)
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
