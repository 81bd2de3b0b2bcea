package main

import (
	"net/http"
	"sort"
	"time"

	"github.com/numascope/numascope/internal/version"
	"github.com/numascope/numascope/statefile"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics exposes the last round as gauges (so a series disappears when its
// file, node or finding does) plus counters over all rounds.
type metrics struct {
	reg      *prometheus.Registry
	rounds   prometheus.Counter
	errors   *prometheus.CounterVec
	duration prometheus.Histogram
	// httpEvicted counts the connections closed to make room for a new
	// one, httpRefused the scrapes answered 503 (see connGuard).
	httpEvicted, httpRefused prometheus.Counter
}

var (
	descInfo = prometheus.NewDesc("numascope_agent_info",
		"The agent's node and version (always 1).", []string{"node", "version"}, nil)
	descPresent = prometheus.NewDesc("numascope_checkpoint_present",
		"1 when the kubelet checkpoint file exists, 0 when it does not.", []string{"kind", "file"}, nil)
	descValid = prometheus.NewDesc("numascope_checkpoint_valid",
		"1 when the checkpoint's stored checksum passes the newest kubelet's verification, 0 when it fails or the file cannot be decoded.", []string{"kind", "file"}, nil)
	descAccepts = prometheus.NewDesc("numascope_checkpoint_kubelet_accepts",
		"1 when kubelet v1.37.2 would restore the checkpoint at its next start, 0 when it would refuse to start or discard the data.", []string{"kind"}, nil)
	descProblems = prometheus.NewDesc("numascope_checkpoint_problems",
		"Problems found in the checkpoint, by severity.", []string{"kind", "severity"}, nil)
	memDescs = []struct {
		desc *prometheus.Desc
		pick func(r MemoryRow) uint64
	}{
		{prometheus.NewDesc("numascope_memory_total_bytes", "Memory of a NUMA node by resource, from memory_manager_state.", []string{"numa_node", "resource"}, nil),
			func(r MemoryRow) uint64 { return r.TotalMemSize }},
		{prometheus.NewDesc("numascope_memory_system_reserved_bytes", "Memory reserved for the system on a NUMA node by resource, from memory_manager_state.", []string{"numa_node", "resource"}, nil),
			func(r MemoryRow) uint64 { return r.SystemReserved }},
		{prometheus.NewDesc("numascope_memory_allocatable_bytes", "Memory the Memory Manager may assign on a NUMA node by resource, from memory_manager_state.", []string{"numa_node", "resource"}, nil),
			func(r MemoryRow) uint64 { return r.Allocatable }},
		{prometheus.NewDesc("numascope_memory_reserved_bytes", "Memory assigned to containers on a NUMA node by resource, from memory_manager_state.", []string{"numa_node", "resource"}, nil),
			func(r MemoryRow) uint64 { return r.Reserved }},
		{prometheus.NewDesc("numascope_memory_free_bytes", "Memory still free on a NUMA node by resource, from memory_manager_state.", []string{"numa_node", "resource"}, nil),
			func(r MemoryRow) uint64 { return r.Free }},
	}
	cpuDescs = []struct {
		desc *prometheus.Desc
		pick func(r CPURow) *int
	}{
		{prometheus.NewDesc("numascope_numa_node_cpus", "CPUs of a NUMA node, from sysfs.", []string{"numa_node"}, nil),
			func(r CPURow) *int { return r.CPUs }},
		{prometheus.NewDesc("numascope_cpus_exclusive", "CPUs of a NUMA node assigned exclusively to containers or pods, from cpu_manager_state.", []string{"numa_node"}, nil),
			func(r CPURow) *int { return r.Exclusive }},
		{prometheus.NewDesc("numascope_cpus_shared", "CPUs of a NUMA node in the shared pool (defaultCpuSet), from cpu_manager_state.", []string{"numa_node"}, nil),
			func(r CPURow) *int { return r.Shared }},
		{prometheus.NewDesc("numascope_cpus_allocatable", "CPUs of a NUMA node the kubelet can assign exclusively, from the PodResources API.", []string{"numa_node"}, nil),
			func(r CPURow) *int { return r.Allocatable }},
		{prometheus.NewDesc("numascope_cpus_free", "Allocatable CPUs of a NUMA node no container holds, from the PodResources API.", []string{"numa_node"}, nil),
			func(r CPURow) *int { return r.Free }},
	}
	descPRUp = prometheus.NewDesc("numascope_podresources_up",
		"1 when the PodResources socket answered in the last round.", nil, nil)
	descPRPods = prometheus.NewDesc("numascope_podresources_pods",
		"Pods the PodResources API listed in the last round.", nil, nil)
	descFindings = prometheus.NewDesc("numascope_findings",
		"Findings of the last round by code and severity.", []string{"code", "severity"}, nil)
	descLastRound = prometheus.NewDesc("numascope_last_round_timestamp_seconds",
		"When the last round started, in seconds since the epoch.", nil, nil)
	descLastErrors = prometheus.NewDesc("numascope_last_round_errors",
		"Sources that failed in the last round.", []string{"source"}, nil)
)

func newMetrics(a *agent) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{Name: "numascope_rounds_total",
			Help: "Rounds finished since the agent started."}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "numascope_round_errors_total",
			Help: "Sources that failed, summed over all rounds (state, podresources, sysfs, kubelet-config, diagnose)."}, []string{"source"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "numascope_round_duration_seconds",
			Help: "How long a round took.", Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}),
		httpEvicted: prometheus.NewCounter(prometheus.CounterOpts{Name: "numascope_http_connections_evicted_total",
			Help: "HTTP connections closed, idle or without a request, to make room for a new one when --http-max-conns were open."}),
		httpRefused: prometheus.NewCounter(prometheus.CounterOpts{Name: "numascope_http_scrapes_refused_total",
			Help: "Scrapes of /metrics answered 503 because as many were being answered already."}),
	}
	for _, s := range []string{"state", "podresources", "sysfs", "kubelet-config", "diagnose"} {
		m.errors.WithLabelValues(s) // present from the start, at 0
	}
	m.reg.MustRegister(m.rounds, m.errors, m.duration, m.httpEvicted, m.httpRefused, lastRound{a},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(r *Report) {
	m.rounds.Inc()
	m.duration.Observe(r.DurationSeconds)
	for _, e := range r.Errors {
		m.errors.WithLabelValues(e.Source).Inc()
	}
}

func (a *agent) metricsHandler() http.Handler {
	return promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{})
}

// lastRound turns the last report into gauges at scrape time.
type lastRound struct{ a *agent }

func (l lastRound) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInfo, descPresent, descValid, descAccepts, descProblems,
		descPRUp, descPRPods, descFindings, descLastRound, descLastErrors} {
		ch <- d
	}
	for _, d := range memDescs {
		ch <- d.desc
	}
	for _, d := range cpuDescs {
		ch <- d.desc
	}
}

func (l lastRound) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descInfo, 1, l.a.cfg.node, version.Get("agent").Version)
	r := l.a.lastFigures()
	if r == nil {
		return
	}
	gauge(descLastRound, float64(r.time.UnixNano())/1e9)
	for _, c := range r.checkpoints {
		gauge(descPresent, b2f(c.present), string(c.kind), c.file)
		if !c.present || !c.known {
			continue // missing, or unreadable by the agent: nothing is known
		}
		gauge(descValid, b2f(c.valid), string(c.kind), c.file)
		gauge(descAccepts, b2f(c.accepts), string(c.kind))
		for _, s := range []string{"error", "warning", "info"} {
			gauge(descProblems, float64(c.problems[s]), string(c.kind), s)
		}
	}
	for _, row := range r.memory {
		for _, d := range memDescs {
			gauge(d.desc, float64(d.pick(row)), nodeLabel(row.NUMANode), row.Resource)
		}
	}
	for _, row := range r.cpus {
		for _, d := range cpuDescs {
			if v := d.pick(row); v != nil {
				gauge(d.desc, float64(*v), nodeLabel(row.NUMANode))
			}
		}
	}
	if !r.podResourcesDisabled {
		gauge(descPRUp, b2f(r.podResourcesUp))
		if r.podResourcesUp {
			gauge(descPRPods, float64(r.pods))
		}
	}
	keys := make([]findingKey, 0, len(r.findings))
	for k := range r.findings {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].code != keys[j].code {
			return keys[i].code < keys[j].code
		}
		return keys[i].severity < keys[j].severity
	})
	for _, k := range keys {
		gauge(descFindings, float64(r.findings[k]), k.code, k.severity)
	}
	for s, n := range r.errors {
		gauge(descLastErrors, float64(n), s)
	}
}

// figures are what the metrics show of the last round: counts, not the
// report, so the agent holds a few KB between rounds whatever the node.
type figures struct {
	time                 time.Time
	checkpoints          []checkpointFigures
	memory               []MemoryRow
	cpus                 []CPURow
	podResourcesDisabled bool
	podResourcesUp       bool
	pods                 int
	findings             map[findingKey]int
	errors               map[string]int
}

type checkpointFigures struct {
	kind           statefile.Kind
	file           string
	present, known bool // known: the agent read the file
	valid, accepts bool
	problems       map[string]int // by severity
}

type findingKey struct{ code, severity string }

func figuresOf(r *Report) *figures {
	f := &figures{time: r.Time, memory: r.Memory, cpus: r.CPUs,
		podResourcesDisabled: r.PodResources.Disabled, podResourcesUp: r.PodResources.Available, pods: r.PodResources.Pods,
		findings: map[findingKey]int{}, errors: map[string]int{}}
	for _, c := range r.Checkpoints {
		cf := checkpointFigures{kind: c.Kind, file: c.File, present: c.Present, known: c.KubeletAccepts != nil,
			valid: c.Checksum != nil && c.Checksum.Valid, problems: map[string]int{}}
		if c.KubeletAccepts != nil {
			cf.accepts = *c.KubeletAccepts
		}
		for _, p := range c.Problems {
			cf.problems[string(p.Severity)]++
		}
		f.checkpoints = append(f.checkpoints, cf)
	}
	for _, x := range r.Findings {
		f.findings[findingKey{x.Code, string(x.Severity)}]++
	}
	for _, e := range r.Errors {
		f.errors[e.Source]++
	}
	return f
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
