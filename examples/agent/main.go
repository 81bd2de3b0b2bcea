// Command agent runs numascope on one Kubernetes node, over and over: it
// verifies the kubelet's checkpoint files, reads the PodResources API and
// the machine's NUMA layout, diagnoses what it found, writes one JSON report
// line per round to stdout and serves the figures as Prometheus metrics.
//
//	go run .                          # every 60s a summary line, metrics on :9464
//	go run . --once                   # one round, then exit (scripts)
//	go run . --state-dir /host/var/lib/kubelet --interval 30s
//	go run . --once --state-dir DIR --snapshot DIR --sysfs DIR   # files copied from a node
//
// It is a module of its own (the Prometheus client stays out of the SDK's
// go.mod): run it inside examples/agent, or `go -C examples/agent run .` from
// the repository root.
//
// It only reads: the state files (opened O_RDONLY|O_NONBLOCK, regular files
// only, through --max-state-size, decoded by statefile.Decode), the socket
// through the PodResources List and GetAllocatableResources calls (within
// --max-podresources-size and --max-pods), and sysfs (bounded reads, CPU
// lists through the bounded parser). A missing or unreachable socket, or
// an input over its limit, is a finding and a metric
// (numascope_podresources_up 0, numascope_last_round_errors), never a
// reason to stop.
//
// Each round of the loop writes the summary form (bounded whatever the
// node); --once writes the full report; --report picks either.
//
// The HTTP server on --listen answers /metrics, /healthz (the loop is alive)
// and /readyz (the first round is done), with timeouts and at most
// --http-max-conns connections, of which at most 4 answer /metrics at once:
// a new connection closes the one that has waited longest for nothing, so
// the probes are answered whatever other clients hold open (--probe-listen
// gives them a port of their own as well). SIGTERM or SIGINT ends the
// current round at once, whatever it waits on, shuts the server down and
// exits 0. Unless GOMEMLIMIT is set, the Go memory limit is 90% of the
// container's.
//
// Exit status: 0 when a --once round found no error (and after a clean stop
// by signal), 1 when a --once round found a finding of severity error or a
// checkpoint the kubelet rejects, or was interrupted, 2 for wrong flags or
// when --listen cannot be served.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/version"
	"github.com/numascope/numascope/podresources/client"
)

// config is what the flags say.
type config struct {
	stateDir      string
	socket        string
	snapshot      string
	sysfs         string
	kubeletConfig string
	node          string
	listen        string
	probeListen   string
	interval      time.Duration
	timeout       time.Duration
	report        string
	output        cliout.Format
	once          bool
	diagnose      bool
	install       string
	limits        limits
	http          httpLimits
}

// off disables an optional source when given as its path.
const off = "none"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.stateDir, "state-dir", "/var/lib/kubelet", "kubelet root `DIR` holding cpu_manager_state, memory_manager_state, device-plugins/kubelet_internal_checkpoint, dra_manager_state")
	fs.StringVar(&c.socket, "socket", "", "PodResources socket `PATH` (unix://PATH or PATH); default DIR/pod-resources/kubelet.sock of --state-dir; \"none\" skips it")
	fs.StringVar(&c.snapshot, "snapshot", "", "read a saved PodResources snapshot `FILE|DIR` (examples/podresources --json output, or list.json and allocatable.json) instead of the socket")
	fs.StringVar(&c.sysfs, "sysfs", "/sys", "sysfs `ROOT` for the CPUs of each NUMA node; \"none\" skips it")
	fs.StringVar(&c.kubeletConfig, "kubelet-config", "", "KubeletConfiguration `FILE` (the configured policies); default DIR/config.yaml of --state-dir when it exists; \"none\" skips it")
	fs.StringVar(&c.node, "node", "", "node `NAME` written in every report; default $NODE_NAME, else the host name")
	fs.StringVar(&c.listen, "listen", ":9464", "`ADDRESS` serving /metrics, /healthz and /readyz; \"\" serves nothing")
	fs.StringVar(&c.probeListen, "probe-listen", "", "also serve /healthz and /readyz, and only them, on `ADDRESS` (a port for the kubelet's probes that no scrape or other client shares)")
	fs.DurationVar(&c.interval, "interval", 60*time.Second, "time between rounds")
	fs.DurationVar(&c.timeout, "timeout", client.DefaultCallTimeout, "deadline of each PodResources call (and of the connection)")
	fs.StringVar(&c.report, "report", "", "what each round writes to stdout: full, summary (bounded whatever the node: the verdict of each checkpoint, the counts, at most 50 finding headlines, capped lists with what they leave out counted; no per-NUMA holders, evidence, checksum layouts, nor finding explanations), none, bundle (with --once: the node's files as they are, for kubectl-numascope), or npd (with --once: one line and the exit code of a node-problem-detector custom plugin); default summary when running in a loop, full with --once")
	fs.BoolVar(&c.once, "once", false, "run one round, print its report and exit (no HTTP server)")
	fs.StringVar(&c.install, "install", "", "copy this program to `DIR`/agent and exit: the init container of npd-daemonset.yaml, which puts the agent where node-problem-detector's custom plugin config (npd-numascope.json) runs it")
	out := cliout.RegisterDefault(fs, cliout.JSON, cliout.YAML, cliout.Markdown)
	fs.BoolVar(&c.diagnose, "diagnose", true, "run numascope's diagnosis on the evidence of each round")
	c.limits = limits{state: defaultMaxStateSize, podResources: defaultMaxPodResourcesSize, pods: defaultMaxPods, config: maxConfigSize}
	fs.Var(units.Flag{N: &c.limits.state, Max: 1 << 40}, "max-state-size", "largest checkpoint file read, in `BYTES` (4Mi: a node of 10,000 pods writes under 1Mi)")
	fs.Var(units.Flag{N: &c.limits.podResources, Max: 1 << 40}, "max-podresources-size", "largest PodResources answer (per call) and --snapshot accepted, in `BYTES`")
	fs.IntVar(&c.limits.pods, "max-pods", defaultMaxPods, "most pods a PodResources answer may list")
	c.http = defaultHTTPLimits
	fs.DurationVar(&c.http.idleTimeout, "http-idle-timeout", defaultHTTPLimits.idleTimeout, "close a keep-alive HTTP connection idle this long (also bounds reading a request's headers)")
	fs.IntVar(&c.http.maxConns, "http-max-conns", defaultHTTPLimits.maxConns, fmt.Sprintf("most HTTP connections open at once (at least 2); a new one closes the one that has waited longest for nothing, and at most %d answer /metrics at once", httpScrapes))
	showVersion := version.Flag(fs)
	fs.Usage = func() {} // -h prints the help on stdout, a wrong flag a hint (below)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout, fs)
			return 0
		}
		fmt.Fprintln(stderr, "usage: agent [--once] [--state-dir DIR] [--socket PATH] [--interval D] [--listen ADDR] [flags]   (agent -h shows the flags and examples)")
		return 2
	}
	if *showVersion {
		version.Print(stdout, "agent")
		return 0
	}
	if c.install != "" {
		return runInstall(c.install, fs.Args(), stdout, stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agent: unexpected argument %q: everything is passed with flags (see -h)\n", fs.Arg(0))
		return 2
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--interval", c.interval}, {"--timeout", c.timeout}, {"--http-idle-timeout", c.http.idleTimeout}} {
		if d.v <= 0 {
			fmt.Fprintf(stderr, "agent: %s %s: give a positive duration such as 30s\n", d.name, d.v)
			return 2
		}
	}
	for _, n := range []struct {
		name, example string
		v, max        int64
	}{
		{"--max-state-size", "4Mi", c.limits.state, 1 << 40},
		{"--max-podresources-size", "16Mi", c.limits.podResources, 1<<31 - 1},
		{"--max-pods", "10000", int64(c.limits.pods), math.MaxInt32},
		{"--http-max-conns", "64", int64(c.http.maxConns), math.MaxInt32},
	} {
		if n.v <= 0 || n.v > n.max {
			fmt.Fprintf(stderr, "agent: %s %d: give a positive number such as %s (at most %d)\n", n.name, n.v, n.example, n.max)
			return 2
		}
	}
	if c.http.maxConns < 2 {
		fmt.Fprintf(stderr, "agent: --http-max-conns %d: give at least 2: one connection is always kept for the probes, whatever the scrapes take\n", c.http.maxConns)
		return 2
	}
	if c.listen != "" && c.listen == c.probeListen && !strings.HasSuffix(c.listen, ":0") {
		fmt.Fprintf(stderr, "agent: --probe-listen %s is --listen too: give the probes a port of their own, or leave --probe-listen out (--listen serves the probes as well)\n", c.probeListen)
		return 2
	}
	if c.report == "" {
		// A loop writes a round a minute into a log: bounded. One round
		// was asked for: all of it.
		c.report = "summary"
		if c.once {
			c.report = "full"
		}
	}
	if c.report != "full" && c.report != "summary" && c.report != "none" && c.report != "bundle" && c.report != "npd" {
		fmt.Fprintf(stderr, "agent: --report %q: give full, summary, none, or bundle or npd (with --once)\n", c.report)
		return 2
	}
	if c.once {
		// one round and no server: these flags would be ignored
		var ignored []string
		fs.Visit(func(f *flag.Flag) {
			switch {
			case f.Name == "interval", f.Name == "http-idle-timeout", f.Name == "http-max-conns", f.Name == "probe-listen",
				f.Name == "listen" && c.listen != "":
				ignored = append(ignored, "--"+f.Name)
			}
		})
		if len(ignored) > 0 {
			fmt.Fprintf(stderr, "agent: %s with --once: one round runs and nothing is served, so leave %s out (or drop --once to run as a server)\n", strings.Join(ignored, ", "), map[bool]string{true: "it", false: "them"}[len(ignored) == 1])
			return 2
		}
	}
	c.output = out.Format()
	if (c.report == "bundle" || c.report == "npd" || c.report == "none") && c.output != cliout.JSON {
		fmt.Fprintf(stderr, "agent: -o %s with --report %s: that report has its own form; leave -o out\n", c.output, c.report)
		return 2
	}
	if (c.report == "bundle" || c.report == "npd") && !c.once {
		fmt.Fprintf(stderr, "agent: --report %s goes with --once\n", c.report)
		return 2
	}
	if c.snapshot != "" && c.socket != "" {
		fmt.Fprintln(stderr, "agent: --snapshot and --socket exclude each other: give the live socket or a saved snapshot")
		return 2
	}
	if c.stateDir == "" {
		fmt.Fprintln(stderr, "agent: --state-dir \"\": give the kubelet root directory (/var/lib/kubelet, or where the DaemonSet mounts it)")
		return 2
	}
	if c.socket == "" && c.snapshot == "" {
		c.socket = filepath.Join(c.stateDir, "pod-resources", "kubelet.sock")
	}
	if c.node == "" {
		c.node = os.Getenv("NODE_NAME")
	}
	if c.node == "" {
		c.node, _ = os.Hostname()
	}

	memLimit, memSource := applyMemoryLimit(os.Getenv, cgroupRoot)
	applyGCPercent(os.Getenv)
	if c.report == "bundle" {
		c.limits = c.limits.withDefaults()
		if err := writeBundle(ctx, c, stdout); err != nil {
			fmt.Fprintln(stderr, "agent:", err)
			return 1
		}
		return 0
	}
	a := newAgent(c)
	if c.once && c.report == "npd" {
		msg, code := npdLine(a.round(ctx))
		fmt.Fprintln(stdout, msg)
		return code
	}
	if c.once {
		rep := a.round(ctx)
		if rep == nil || ctx.Err() != nil {
			fmt.Fprintln(stderr, "agent: interrupted before the round finished; nothing reported")
			return 1
		}
		if err := writeReportAs(stdout, rep, c.report, c.output); err != nil {
			fmt.Fprintln(stderr, "agent:", err)
			return 2
		}
		if rep.failed() {
			return 1
		}
		return 0
	}

	log := slog.New(slog.NewJSONHandler(stderr, nil))
	if memSource != "" {
		log.Info("Go memory limit set from the container's", "bytes", memLimit, "from", memSource)
	}
	var servers []*http.Server
	serveErr := make(chan error, 2)
	for _, l := range []struct {
		flag, addr string
		guard      *connGuard
		handler    http.Handler
	}{
		{"--listen", c.listen, a.httpGuard, a.handler()},
		{"--probe-listen", c.probeListen, a.probeGuard, a.probeHandler()},
	} {
		if l.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			for _, srv := range servers {
				srv.Close()
			}
			fmt.Fprintf(stderr, "agent: %s %s: %v (pick a free port, or %s \"\" to serve nothing there)\n", l.flag, l.addr, err, l.flag)
			return 2
		}
		srv := c.http.server(l.handler)
		servers = append(servers, srv)
		go func() { serveErr <- srv.Serve(l.guard.listener(ln)) }()
		if l.flag == "--listen" {
			log.Info("numascope agent serving", "address", ln.Addr().String(), "node", c.node, "stateDir", c.stateDir,
				"socket", c.socket, "snapshot", c.snapshot, "interval", c.interval.String())
		} else {
			log.Info("numascope agent serving its probes", "address", ln.Addr().String())
		}
	}

	code := a.loop(ctx, stdout, serveErr, log)
	for _, srv := range servers {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := srv.Shutdown(sctx); err != nil {
			log.Error("shutting the HTTP server down", "error", err.Error())
		}
		cancel()
	}
	log.Info("numascope agent stopped", "rounds", a.rounds.Load())
	return code
}

// loop runs a round now and then every interval until ctx ends or the HTTP
// server fails.
func (a *agent) loop(ctx context.Context, stdout io.Writer, serveErr <-chan error, log *slog.Logger) int {
	t := time.NewTicker(a.cfg.interval)
	defer t.Stop()
	for {
		rep := a.round(ctx)
		if rep == nil || ctx.Err() != nil {
			return 0 // a round cut short by the signal is not reported
		}
		if err := writeReportAs(stdout, rep, a.cfg.report, a.cfg.output); err != nil {
			log.Error("writing the report", "error", err.Error())
			return 2
		}
		select {
		case <-ctx.Done():
			return 0
		case err := <-serveErr:
			log.Error("HTTP server failed", "error", err.Error())
			return 2
		case <-t.C:
		}
	}
}

// handler serves the metrics and the probes (--listen), its connections
// and scrapes bounded by a.httpGuard.
func (a *agent) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", a.httpGuard.slow(a.metricsHandler()))
	a.probes(mux, "numascope agent: /metrics, /healthz, /readyz\n")
	return a.httpGuard.track(mux)
}

// probeHandler serves only the probes (--probe-listen).
func (a *agent) probeHandler() http.Handler {
	mux := http.NewServeMux()
	a.probes(mux, "numascope agent probes: /healthz, /readyz (/metrics is on --listen)\n")
	return a.probeGuard.track(mux)
}

// probes adds /healthz, /readyz and the index to mux. Each answers from
// atomics: it waits on no round, scrape or lock.
func (a *agent) probes(mux *http.ServeMux, index string) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.healthy(time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if a.rounds.Load() == 0 {
			http.Error(w, "the first round has not finished yet", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, index)
	})
}

// healthy fails when no round has finished for much longer than the interval:
// the loop is stuck, and a restart is the remedy.
func (a *agent) healthy(now time.Time) error {
	last := a.lastRoundEnd()
	if last.IsZero() {
		last = a.started
	}
	limit := 2*a.cfg.interval + 2*a.cfg.timeout + time.Minute
	if d := now.Sub(last); d > limit {
		return fmt.Errorf("no round finished for %s (limit %s)", d.Round(time.Second), limit)
	}
	return nil
}

// isOff reports whether an optional source is switched off.
func isOff(v string) bool { return strings.EqualFold(v, off) }

// writeHelp prints the usage with examples (on stdout: it was asked for).
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: agent [--once] [--state-dir DIR] [--socket PATH] [--interval D] [--listen ADDR] [flags]

Runs numascope on one node, over and over: checks the kubelet's checkpoint
files, reads the PodResources API and the NUMA layout, diagnoses them, writes
one JSON report line per round and serves Prometheus metrics.

Examples:
  # one round on this node, then exit 0 (all well) or 1 (an error finding)
  sudo agent --once

  # the same round for a person to read: the node's verdict first
  sudo agent --once -o text

  # files copied from a node, no socket, a short report
  agent --once --state-dir examples/agent/testdata/node/kubelet \
      --sysfs examples/agent/testdata/node/sys --socket none --report summary

  # as the DaemonSet runs it: every 30s a summary line, metrics on :9464
  agent --state-dir /host/var/lib/kubelet --sysfs /host/sys --interval 30s

  # the full report of a node the DaemonSet runs on, on request
  kubectl -n numascope exec POD -- /agent --once --report full \
      --state-dir /host/var/lib/kubelet --socket /var/lib/kubelet/pod-resources/kubelet.sock

  # a node-problem-detector custom plugin: one line and its exit code
  agent --once --report npd

Exit status: 0 no error (--once) or stopped by SIGTERM, 1 an error finding or
a checkpoint the kubelet rejects (--once), 2 the command line is wrong or
--listen cannot be served.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
