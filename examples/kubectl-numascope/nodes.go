package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// nodeRow is one line of `nodes`.
type nodeRow struct {
	Node string `json:"node"`
	// Source is where the figures come from: "agent" (the last report of
	// the agent pod on the node), "nrt" (its NodeResourceTopology), or
	// "none".
	Source string `json:"source"`
	// Checkpoints is "ok", "N rejected", "N unreadable", or "" when unknown.
	Checkpoints string `json:"checkpoints,omitempty"`
	// FreeCPU and FreeMemory are per NUMA node ("0:19 1:24").
	FreeCPU    string `json:"freeCPU,omitempty"`
	FreeMemory string `json:"freeMemory,omitempty"`
	// FreeHugePages is the free hugepages per NUMA node and size
	// ("0:hugepages-1Gi 2 GiB"); shown with -o wide.
	FreeHugePages string `json:"freeHugePages,omitempty"`
	// Errors are the codes of the error findings.
	Errors []string `json:"errors"`
	// Warnings are the codes of the warning findings; shown with -o wide.
	Warnings []string `json:"warnings,omitempty"`
	// Note says why figures are missing.
	Note string `json:"note,omitempty"`
}

// agentReport is the part of the agent's report line (numascope.agent/v1) read here.
type agentReport struct {
	Schema      string `json:"schema"`
	Node        string `json:"node"`
	Checkpoints []struct {
		Present        bool   `json:"present"`
		Error          string `json:"error"`
		KubeletAccepts *bool  `json:"kubeletAccepts"`
	} `json:"checkpoints"`
	Memory []struct {
		NUMANode int    `json:"numaNode"`
		Resource string `json:"resource"`
		Free     uint64 `json:"free"`
	} `json:"memory"`
	CPUs []struct {
		NUMANode int  `json:"numaNode"`
		Free     *int `json:"free"`
	} `json:"cpus"`
	Findings []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
	} `json:"findings"`
}

// maxReportLine bounds the agent's report line read back.
const maxReportLine = 16 << 20

// nodesOptions are the options of `nodes`.
type nodesOptions struct {
	streams
	cluster  clusterFlags
	output   string
	parallel int
	progress string
}

// nodesFormats are the -o values of nodes.
var nodesFormats = append([]string{"text", "json", "yaml", "markdown", "wide"}, templateFormats...)

func newNodes(s streams) *command {
	o := &nodesOptions{streams: s}
	c := newCommand("nodes")
	c.use = "nodes [-o text|json|yaml|markdown|wide] [--parallel N]"
	c.short = "one row per node: checkpoints, free CPUs and memory per NUMA node, findings"
	c.long = `Lists every node with the last report of the numascope agent on it (the DaemonSet
numascope-agent in --agent-namespace), else its NodeResourceTopology: whether its
checkpoints are accepted, the free CPUs and memory per NUMA node, and the codes of
its error findings (-o wide: also hugepages and warnings).`
	c.example = `  # every node: checkpoints, free CPUs and memory per NUMA node, warnings too
  kubectl numascope nodes -o wide

  # as objects, for jq
  kubectl numascope nodes -o json

  # the nodes whose checkpoints a kubelet would refuse
  kubectl numascope nodes -o jsonpath='{range [?(@.checkpoints!="ok")]}{.node}{"\n"}{end}'`
	c.exit = "0 no node has a finding of severity error, 1 one has, 2 the command line is wrong or the nodes cannot be listed."
	outputFlag(c.own, &o.output, nodesFormats)
	c.own.IntVar(&o.parallel, "parallel", 16, "most requests in flight at once (1 to 256)")
	c.own.StringVar(&o.progress, "progress", "auto", "progress line on stderr: auto (when stderr is a terminal), always or never")
	o.cluster.bind(c.own, c.shared, withAgentNamespace)
	c.opts = o
	c.cluster = &o.cluster
	return c
}

// Complete refuses arguments: nodes lists them all.
func (o *nodesOptions) Complete(args []string) error {
	o.output = normalOutput(o.output)
	if len(args) > 0 {
		return fmt.Errorf("nodes takes no argument (got %q)", args[0])
	}
	return nil
}

// Validate checks -o, --parallel, --progress and the connection flags.
func (o *nodesOptions) Validate() error {
	if err := checkOutput("nodes", o.output, nodesFormats); err != nil {
		return err
	}
	if o.parallel < 1 || o.parallel > 256 {
		return fmt.Errorf("--parallel %d: give a number between 1 and 256", o.parallel)
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--progress %q: give auto, always or never", o.progress)
	}
	return o.cluster.validate()
}

// Run lists the nodes.
func (o *nodesOptions) Run(ctx context.Context) int {
	progress := o.progress == "always" || (o.progress == "auto" && isTerminal(o.stderr))
	return o.cluster.run(ctx, o.streams, func(ctx context.Context, k *kube) int {
		return listNodes(ctx, k, o, progress, o.stdout, o.stderr)
	})
}

// listNodes is `nodes`.
func listNodes(ctx context.Context, k *kube, o *nodesOptions, progress bool, stdout, stderr io.Writer) int {
	var nodes []corev1.Node
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := k.cs.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			fmt.Fprintln(stderr, "kubectl-numascope:", checked(err, permission{"list", "", "nodes", ""}, "listing the nodes"))
			return 2
		}
		nodes = append(nodes, list.Items...)
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	agents, err := agentPods(ctx, k, o.cluster.agentNamespace)
	if err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err, "(reading NodeResourceTopology instead)")
		agents = map[string]corev1.Pod{}
	}
	var nrt dynamic.ResourceInterface
	if nrtServed(k) {
		if dc, err := k.dynamic(); err == nil {
			nrt = dc.Resource(nrtGVR)
		}
	}
	rows := make([]nodeRow, len(nodes))
	var done atomic.Int64
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.parallel, max(len(nodes), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rows[i] = nodeLine(ctx, k, nodes[i].Name, agents, nrt)
				if n := done.Add(1); progress {
					fmt.Fprintf(stderr, "\rkubectl-numascope: %d/%d nodes", n, len(nodes))
				}
			}
		}()
	}
	for i := range nodes {
		work <- i
	}
	close(work)
	wg.Wait()
	if progress {
		fmt.Fprintln(stderr)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Node < rows[j].Node })
	if err := writeRows(ctx, rows, o.output, stdout); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	for _, r := range rows {
		if len(r.Errors) > 0 {
			return 1
		}
	}
	return 0
}

// nodeLine reads one node's figures: the agent's report, else its NRT.
func nodeLine(ctx context.Context, k *kube, node string, agents map[string]corev1.Pod, nrt dynamic.ResourceInterface) nodeRow {
	row := nodeRow{Node: node, Source: "none", Errors: []string{}}
	var why []string
	if p, ok := agents[node]; ok {
		rep, err := lastReport(ctx, k, p)
		if err == nil {
			fillFromAgent(&row, rep)
			return row
		}
		why = append(why, err.Error())
	} else {
		why = append(why, "no running numascope agent")
	}
	if nrt != nil {
		obj, err := nrt.Get(ctx, node, metav1.GetOptions{})
		if err == nil {
			if z, err := nrtZones(obj.Object); err == nil {
				row.Source = "nrt"
				var cpu, mem []string
				for _, e := range z.zones {
					id := strings.TrimPrefix(e.name, "node-")
					cpu = append(cpu, id+":"+e.cpu)
					mem = append(mem, id+":"+e.mem)
				}
				row.FreeCPU, row.FreeMemory = strings.Join(cpu, " "), strings.Join(mem, " ")
				row.Note = strings.Join(why, "; ") + " (figures from NodeResourceTopology; checkpoints unknown)"
				return row
			}
		} else {
			why = append(why, checked(err, permission{"get", nrtGVR.Group, nrtGVR.Resource, ""}, "NodeResourceTopology").Error())
		}
	} else {
		why = append(why, "no NodeResourceTopology API")
	}
	row.Note = strings.Join(why, "; ")
	return row
}

// lastReport reads the last report line of the agent pod's log.
func lastReport(ctx context.Context, k *kube, p corev1.Pod) (*agentReport, error) {
	tail, limit := int64(3), int64(3*maxReportLine)
	what := "the log of pod " + p.Namespace + "/" + p.Name
	rc, err := k.cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: "agent", TailLines: &tail, LimitBytes: &limit}).Stream(withStream(ctx, limit))
	if err != nil {
		return nil, kubeletError(p.Spec.NodeName, what, checked(err, permission{"get", "", "pods/log", p.Namespace}, "reading the agent's report"))
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 64<<10), maxReportLine)
	var last []byte
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"schema":"numascope.agent/v1"`)) {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, kubeletError(p.Spec.NodeName, what, fmt.Errorf("reading the log of %s/%s: %w", p.Namespace, p.Name, plain(err)))
	}
	if last == nil {
		return nil, fmt.Errorf("the agent %s/%s has not reported yet", p.Namespace, p.Name)
	}
	if err := input.CheckValues(last, "the agent's report", input.ValueBudget{}); err != nil {
		return nil, err
	}
	var r agentReport
	if err := json.Unmarshal(last, &r); err != nil {
		return nil, fmt.Errorf("the agent's report of %s/%s: %w", p.Namespace, p.Name, err)
	}
	return &r, nil
}

func fillFromAgent(row *nodeRow, r *agentReport) {
	row.Source = "agent"
	rejected, unreadable := 0, 0
	for _, c := range r.Checkpoints {
		switch {
		case !c.Present:
		case c.KubeletAccepts != nil && !*c.KubeletAccepts:
			rejected++
		case c.Error != "":
			unreadable++
		}
	}
	switch {
	case rejected > 0:
		row.Checkpoints = fmt.Sprintf("%d rejected", rejected)
	case unreadable > 0:
		row.Checkpoints = fmt.Sprintf("%d unreadable", unreadable)
	default:
		row.Checkpoints = "ok"
	}
	var cpu, mem, huge []string
	for _, c := range r.CPUs {
		if c.Free != nil && c.NUMANode >= 0 {
			cpu = append(cpu, fmt.Sprintf("%d:%d", c.NUMANode, *c.Free))
		}
	}
	for _, m := range r.Memory {
		switch {
		case m.Resource == "memory":
			mem = append(mem, fmt.Sprintf("%d:%s", m.NUMANode, units.Size(m.Free)))
		case strings.HasPrefix(m.Resource, "hugepages-") && m.Free > 0:
			huge = append(huge, fmt.Sprintf("%d:%s %s", m.NUMANode, m.Resource, units.Size(m.Free)))
		}
	}
	row.FreeCPU, row.FreeMemory, row.FreeHugePages = strings.Join(cpu, " "), strings.Join(mem, " "), strings.Join(huge, " ")
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if seen[f.Severity+"\x00"+f.Code] {
			continue
		}
		seen[f.Severity+"\x00"+f.Code] = true
		switch f.Severity {
		case "error":
			row.Errors = append(row.Errors, f.Code)
		case "warning":
			row.Warnings = append(row.Warnings, f.Code)
		}
	}
}

func writeRows(ctx context.Context, rows []nodeRow, output string, w io.Writer) error {
	if isTemplate(output) {
		return printTemplate(ctx, output, rows, w)
	}
	switch output {
	case "json", "yaml":
		data, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		if output == "yaml" {
			if data, err = yaml.JSONToYAML(data); err != nil {
				return err
			}
		} else {
			data = append(data, '\n')
		}
		_, err = w.Write(data)
		return err
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	header := []string{"NODE", "SOURCE", "CHECKPOINTS", "FREE CPU (NUMA:n)", "FREE MEMORY (NUMA:size)", "ERRORS", "NOTE"}
	if output == "wide" {
		header = []string{"NODE", "SOURCE", "CHECKPOINTS", "FREE CPU (NUMA:n)", "FREE MEMORY (NUMA:size)", "FREE HUGEPAGES (NUMA:size)", "ERRORS", "WARNINGS", "NOTE"}
	}
	format := cliout.Text
	if output == "markdown" {
		format = cliout.Markdown
	}
	cells := make([][]string, len(rows))
	for i, r := range rows {
		if output == "wide" {
			cells[i] = []string{r.Node, r.Source, dash(r.Checkpoints), dash(r.FreeCPU), dash(r.FreeMemory), dash(r.FreeHugePages), dash(strings.Join(r.Errors, ",")), dash(strings.Join(r.Warnings, ",")), dash(r.Note)}
			continue
		}
		cells[i] = []string{r.Node, r.Source, dash(r.Checkpoints), dash(r.FreeCPU), dash(r.FreeMemory), dash(strings.Join(r.Errors, ",")), dash(r.Note)}
	}
	return cliout.Table(w, format, header, cells)
}
