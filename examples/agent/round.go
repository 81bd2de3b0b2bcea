package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"k8s.io/utils/cpuset"
)

// Schema identifies the layout of the report line.
const Schema = "numascope.agent/v1"

// Codes of the findings the agent adds to diagnose's.
const (
	// CodePodResourcesUnavailable: the PodResources socket cannot be used.
	CodePodResourcesUnavailable = "PodResourcesUnavailable"
	// CodeEvidenceUnreadable: a state file, the kubelet configuration or
	// sysfs exists but cannot be read or decoded.
	CodeEvidenceUnreadable = diagnose.CodeEvidenceUnreadable
	// CodeNoCheckpoints: none of the four checkpoint files is in --state-dir.
	CodeNoCheckpoints = "NoCheckpoints"
)

// Report is one round, written as one JSON line. The evidence, findings and
// summary fields have the layout of diagnose's report (numascope.diagnose/v1).
type Report struct {
	Schema          string                 `json:"schema"`
	Node            string                 `json:"node"`
	Time            time.Time              `json:"time"`
	Round           int64                  `json:"round"`
	DurationSeconds float64                `json:"durationSeconds"`
	StateDir        string                 `json:"stateDir"`
	Checkpoints     []Checkpoint           `json:"checkpoints"`
	Memory          []MemoryRow            `json:"memory"`
	CPUs            []CPURow               `json:"cpus"`
	PodResources    PodResourcesStatus     `json:"podResources"`
	NUMA            *podresources.NUMAView `json:"numa,omitempty"`
	Evidence        []evidence.Item        `json:"evidence"`
	Findings        []diagnose.Finding     `json:"findings"`
	Summary         diagnose.Summary       `json:"summary"`
	Errors          []RoundError           `json:"errors"`
	// FindingCounts counts the findings by code and severity; only in the
	// summary form, whose findings list is capped.
	FindingCounts []FindingCount `json:"findingCounts,omitempty"`
	// Omitted counts what the summary form left out of its capped lists;
	// absent when nothing was.
	Omitted *Omitted `json:"omitted,omitempty"`
}

// Checkpoint is one kubelet checkpoint file and what the kubelet does with it.
type Checkpoint struct {
	File    string         `json:"file"`
	Kind    statefile.Kind `json:"kind"`
	Present bool           `json:"present"`
	// Error says why a present file could not be read or decoded.
	Error    string                    `json:"error,omitempty"`
	Format   statefile.Format          `json:"format,omitempty"`
	Checksum *statefile.ChecksumReport `json:"checksum,omitempty"`
	// KubeletAccepts is absent for a missing file (the kubelet starts a new
	// one) and false for a file that cannot be decoded.
	KubeletAccepts *bool               `json:"kubeletAccepts,omitempty"`
	OnReject       string              `json:"onReject,omitempty"`
	Reason         string              `json:"reason,omitempty"`
	Problems       []statefile.Problem `json:"problems,omitempty"`
	// ProblemsOmitted counts the problems the summary form left out.
	ProblemsOmitted int `json:"problemsOmitted,omitempty"`
}

// MemoryRow is one NUMA node and resource of memory_manager_state, in bytes.
type MemoryRow struct {
	NUMANode int    `json:"numaNode"`
	Resource string `json:"resource"`
	statefile.MemoryTable
	// Group is the NUMA group the node belongs to (its cells).
	Group []int `json:"group"`
	// GroupOmitted counts the ids of Group the summary form left out.
	GroupOmitted int `json:"groupOmitted,omitempty"`
}

// CPURow counts the CPUs of one NUMA node (-1: CPUs of no known node).
// A field is absent when its source was not available.
type CPURow struct {
	NUMANode int `json:"numaNode"`
	// CPUs is the node's CPU count in sysfs.
	CPUs *int `json:"cpus,omitempty"`
	// Exclusive and Shared come from cpu_manager_state: CPUs assigned to
	// containers or pods, and the shared pool (defaultCpuSet).
	Exclusive *int `json:"exclusive,omitempty"`
	Shared    *int `json:"shared,omitempty"`
	// Allocatable, Taken and Free come from the PodResources API.
	Allocatable *int `json:"allocatable,omitempty"`
	Taken       *int `json:"taken,omitempty"`
	Free        *int `json:"free,omitempty"`
}

// PodResourcesStatus says whether the socket answered.
type PodResourcesStatus struct {
	Socket    string   `json:"socket,omitempty"`
	Snapshot  string   `json:"snapshot,omitempty"` // --snapshot
	Disabled  bool     `json:"disabled,omitempty"` // --socket=none
	Available bool     `json:"available"`
	Error     string   `json:"error,omitempty"`
	Pods      int      `json:"pods"`
	Notes     []string `json:"notes,omitempty"`
}

// RoundError is one source that failed during the round.
type RoundError struct {
	Source  string `json:"source"` // state, podresources, sysfs, kubelet-config, diagnose
	File    string `json:"file,omitempty"`
	Message string `json:"message"`
}

// failed tells whether a --once round exits 1.
func (r *Report) failed() bool {
	if r.Summary.Errors > 0 {
		return true
	}
	for _, c := range r.Checkpoints {
		if c.KubeletAccepts != nil && !*c.KubeletAccepts {
			return true
		}
	}
	return false
}

// writeReport writes r as one line: all of it ("full"), the summary form, or
// nothing ("none").
func writeReport(w io.Writer, r *Report, form string) error {
	switch form {
	case "none":
		return nil
	case "summary":
		r = r.summary()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := encodeReport(bw, r); err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	return bw.Flush()
}

// encodeReport writes r as json.Marshal would, followed by a newline, but a
// field and a list element at a time: the largest lists (findings,
// evidence) are never held encoded in memory all at once.
func encodeReport(w *bufio.Writer, r *Report) error {
	type field struct {
		name string
		v    any
	}
	fields := []field{{"schema", r.Schema}, {"node", r.Node}, {"time", r.Time}, {"round", r.Round},
		{"durationSeconds", r.DurationSeconds}, {"stateDir", r.StateDir}, {"checkpoints", r.Checkpoints},
		{"memory", r.Memory}, {"cpus", r.CPUs}, {"podResources", r.PodResources}}
	if r.NUMA != nil {
		fields = append(fields, field{"numa", r.NUMA})
	}
	fields = append(fields, field{"evidence", r.Evidence}, field{"findings", r.Findings},
		field{"summary", r.Summary}, field{"errors", r.Errors})
	if len(r.FindingCounts) > 0 {
		fields = append(fields, field{"findingCounts", r.FindingCounts})
	}
	if r.Omitted != nil {
		fields = append(fields, field{"omitted", r.Omitted})
	}
	put := func(v any) error {
		b, err := json.Marshal(v)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}
	w.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			w.WriteByte(',')
		}
		if err := put(f.name); err != nil {
			return err
		}
		w.WriteByte(':')
		var err error
		switch v := f.v.(type) {
		case []diagnose.Finding:
			err = putList(w, v, put)
		case []evidence.Item:
			err = putList(w, v, put)
		default:
			err = put(v)
		}
		if err != nil {
			return err
		}
	}
	w.WriteString("}\n")
	return nil
}

// putList writes a list one element at a time, null for a nil list as
// json.Marshal does.
func putList[T any](w *bufio.Writer, list []T, put func(any) error) error {
	if list == nil {
		_, err := w.WriteString("null")
		return err
	}
	w.WriteByte('[')
	for i := range list {
		if i > 0 {
			w.WriteByte(',')
		}
		if err := put(&list[i]); err != nil {
			return err
		}
	}
	return w.WriteByte(']')
}

type agent struct {
	cfg     config
	started time.Time
	rounds  atomic.Int64
	metrics *metrics
	// httpGuard bounds the connections of --listen, probeGuard those of
	// --probe-listen.
	httpGuard, probeGuard *connGuard

	// last holds what the metrics need of the last round, not the report:
	// the agent keeps nothing of a round's evidence until the next one.
	// It and lastEnd are atomics, so /healthz and /metrics never wait on
	// a round, and a round never waits on them.
	last    atomic.Pointer[figures]
	lastEnd atomic.Int64 // UnixNano; 0 before the first round
}

func newAgent(c config) *agent {
	c.limits = c.limits.withDefaults()
	a := &agent{cfg: c, started: time.Now()}
	a.metrics = newMetrics(a)
	maxConns := c.http.maxConns
	if maxConns <= 0 {
		maxConns = defaultHTTPLimits.maxConns
	}
	a.httpGuard, a.probeGuard = a.newGuard(maxConns, httpScrapes), a.newGuard(probeMaxConns, 0)
	return a
}

// lastRoundEnd is when the last round ended (zero before the first).
func (a *agent) lastRoundEnd() time.Time {
	if n := a.lastEnd.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (a *agent) lastFigures() *figures { return a.last.Load() }

// newGuard returns a connection guard whose evictions and refusals are
// counted in the metrics.
func (a *agent) newGuard(maxConns, scrapes int) *connGuard {
	g := newConnGuard(maxConns, scrapes)
	g.onEvict, g.onRefuse = a.metrics.httpEvicted.Inc, a.metrics.httpRefused.Inc
	return g
}

// round gathers the evidence once and records the result. It returns nil,
// at once, when ctx ends first: whatever the round is blocked on (a socket
// that does not answer, a read that hangs), the caller can stop.
func (a *agent) round(ctx context.Context) *Report {
	start := time.Now()
	done := make(chan *Report, 1)
	go func() { done <- gather(ctx, a.cfg) }()
	var rep *Report
	select {
	case rep = <-done:
	case <-ctx.Done():
		return nil
	}
	end := time.Now()
	rep.Time = start.UTC()
	rep.DurationSeconds = end.Sub(start).Seconds()
	if ctx.Err() != nil {
		return nil
	}
	rep.Round = a.rounds.Load() + 1
	a.metrics.observe(rep)
	figures := figuresOf(rep)
	a.last.Store(figures)
	a.lastEnd.Store(end.UnixNano())
	a.rounds.Add(1)
	return rep
}

// gather reads every source, tolerating each one's absence, and diagnoses.
func gather(ctx context.Context, c config) *Report {
	rep := &Report{Schema: Schema, Node: c.node, StateDir: c.stateDir,
		Checkpoints: []Checkpoint{}, Memory: []MemoryRow{}, CPUs: []CPURow{}, Errors: []RoundError{}}
	var own []diagnose.Finding
	fail := func(source, file string, err error, f *diagnose.Finding) {
		rep.Errors = append(rep.Errors, RoundError{Source: source, File: file, Message: err.Error()})
		if f != nil {
			if f.Evidence == nil {
				f.Evidence = []diagnose.Ref{}
				if file != "" {
					f.Evidence = []diagnose.Ref{{File: file, Quote: err.Error()}}
				}
			}
			own = append(own, *f)
		}
	}
	ev := &evidence.Set{}

	// The kubelet configuration first: it names the policies the state
	// files are judged under.
	cfgPath, explicit := c.kubeletConfig, c.kubeletConfig != ""
	if !explicit {
		cfgPath = filepath.Join(c.stateDir, "config.yaml")
	}
	var kcfg *topomgr.KubeletConfig
	if !isOff(cfgPath) {
		data, err := input.ReadFile(cfgPath, "--kubelet-config", c.limits.config)
		if err == nil {
			err = input.CheckValues(data, "--kubelet-config "+cfgPath, input.ValueBudget{MaxValues: maxConfigValues})
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		case err == nil:
			if err = ev.SetKubeletConfig(cfgPath, data); err == nil {
				kcfg = ev.Config
			}
		}
		if err != nil && !(errors.Is(err, fs.ErrNotExist) && !explicit) {
			fail("kubelet-config", cfgPath, err, &diagnose.Finding{Code: CodeEvidenceUnreadable, Severity: statefile.SeverityWarning,
				Title:       "The kubelet configuration " + cfgPath + " cannot be used",
				Explanation: "Without it the state files are judged under the policies they name themselves, and configuration findings are not drawn: " + err.Error(),
				Remedy:      "Pass --kubelet-config with the file given to the kubelet's --config (see `ps -o args -C kubelet`), mounted read-only, or --kubelet-config=none.",
			})
		}
	}

	// The checkpoint files.
	present := 0
	for _, kind := range statefile.Kinds() {
		p := kind.PathIn(c.stateDir)
		cp := Checkpoint{File: p, Kind: kind}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			rep.Checkpoints = append(rep.Checkpoints, cp)
			continue
		}
		cp.Present = true
		present++
		opts := statefile.Options{Name: p, Kind: kind}
		if kcfg != nil {
			switch kind {
			case statefile.KindCPU:
				opts.Policy = validPolicy(kcfg.EffectiveCPUManagerPolicy(), "none", "static")
			case statefile.KindMemory:
				opts.Policy = validPolicy(kcfg.EffectiveMemoryManagerPolicy(), "None", "Static")
			}
		}
		// The file is read without blocking (a FIFO or a device is refused,
		// not waited on) and through a limit, then decoded.
		opts.MaxSize = c.limits.state
		data, err := input.ReadFile(p, "state file", c.limits.state)
		if err != nil {
			cp.Error = err.Error()
			remedy := "The kubelet writes its checkpoints as root with mode 0600: run the agent as user 0 (runAsUser: 0, no capabilities needed) and mount the kubelet directory read-only."
			switch {
			case errors.Is(err, input.ErrTooLarge):
				remedy = "Kubelet checkpoints of a node with 10,000 pods are under 1 MiB: check what wrote this file; if it is right, raise --max-state-size (each MiB costs about 30 MiB of the agent's memory during a round)."
			case errors.Is(err, input.ErrNotRegular):
				remedy = "The kubelet writes its checkpoints as regular files: something else is at this path; check the mount and --state-dir."
			}
			// Not readable at all: the kubelet may well read it, the agent cannot.
			fail("state", p, err, &diagnose.Finding{Code: CodeEvidenceUnreadable, Severity: statefile.SeverityError,
				Title:       "The agent cannot read " + p,
				Explanation: "The file exists but opening or reading it failed, so its checksum and contents are not checked: " + err.Error(),
				Remedy:      remedy,
			})
			rep.Checkpoints = append(rep.Checkpoints, cp)
			continue
		}
		f, err := statefile.Decode(data, opts)
		data = nil
		if err != nil {
			cp.Error = err.Error()
			no := false
			cp.KubeletAccepts = &no
			fail("state", p, err, &diagnose.Finding{Code: CodeEvidenceUnreadable, Severity: statefile.SeverityError,
				Title:       p + " cannot be decoded: the kubelet cannot read it either",
				Explanation: err.Error(),
				Remedy:      "Run `inspect " + p + "` (numascope's inspect command) on a copy for every problem; drain the node and move the file away before the kubelet restarts.",
			})
			rep.Checkpoints = append(rep.Checkpoints, cp)
			continue
		}
		accepts := f.KubeletAccepts
		sum := f.Checksum
		cp.Format, cp.Checksum, cp.KubeletAccepts = f.Format, &sum, &accepts
		cp.OnReject, cp.Reason, cp.Problems = f.OnReject, f.Reason, f.Problems
		rep.Checkpoints = append(rep.Checkpoints, cp)
		ev.States = append(ev.States, f)
		note := "kubelet accepts it"
		if !f.KubeletAccepts {
			note = "kubelet " + f.OnReject
		}
		rep.Evidence = append(rep.Evidence, evidence.Item{File: p, Kind: "state-" + string(f.Kind), Format: string(f.Format), Status: "read", Note: note})
		switch {
		case f.Memory != nil:
			rep.Memory = memoryRows(f.Memory)
		}
	}
	if present == 0 {
		own = append(own, diagnose.Finding{Code: CodeNoCheckpoints, Severity: statefile.SeverityWarning,
			Title:       "No kubelet checkpoint file in " + c.stateDir,
			Explanation: "None of cpu_manager_state, memory_manager_state, device-plugins/kubelet_internal_checkpoint and dra_manager_state exists there: the directory is not the kubelet's root directory, or the host path is not mounted.",
			Evidence:    []diagnose.Ref{{File: c.stateDir}},
			Remedy:      "Pass --state-dir with the kubelet's --root-dir (default /var/lib/kubelet) as seen inside the agent's container.",
		})
	}

	// The CPUs of each NUMA node.
	var cpus podresources.CPUMap
	if !isOff(c.sysfs) {
		var err error
		var sysfs fs.FS
		if cpus, sysfs, err = readSysfs(c.sysfs); err != nil {
			cpus = nil
			fail("sysfs", c.sysfs, err, &diagnose.Finding{Code: CodeEvidenceUnreadable, Severity: statefile.SeverityInfo,
				Title:       "The NUMA layout cannot be read from " + c.sysfs,
				Explanation: "CPUs are counted without their NUMA node: " + err.Error(),
				Remedy:      "Pass --sysfs with the root of the host's sysfs (the container's /sys shows the host's NUMA nodes), or --sysfs=none.",
			})
		} else if c.diagnose {
			if m, err := evidence.ParseSysfs(c.sysfs, sysfs); err == nil {
				ev.SetMachine(m)
			}
		}
	}

	// The PodResources API, or a snapshot saved from it.
	var snap *podresources.Snapshot
	var err error
	switch {
	case c.snapshot != "":
		rep.PodResources.Snapshot = c.snapshot
		snap, err = loadSnapshot(c.snapshot, c.limits)
	case isOff(c.socket):
		rep.PodResources.Socket = c.socket
		rep.PodResources.Disabled = true
	default:
		rep.PodResources.Socket = c.socket
		snap, err = readPodResources(ctx, c.socket, c.timeout, c.limits)
	}
	if err == nil && snap != nil && len(snap.Pods) > c.limits.pods {
		err = fmt.Errorf("%w: the answer lists %d pods, more than the %d of --max-pods; raise --max-pods (and the memory limit: each 10,000 pods cost about 30 MiB during a round) if the node really runs that many",
			errTooManyPods, len(snap.Pods), c.limits.pods)
		snap = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return rep
		}
		src := c.socket + c.snapshot
		rep.PodResources.Error = err.Error()
		fail("podresources", src, err, &diagnose.Finding{Code: CodePodResourcesUnavailable, Severity: statefile.SeverityWarning,
			Title:       "The PodResources API cannot be read at " + src,
			Explanation: "Without it the report has no pod names, no allocatable CPUs and no per-NUMA holders; the state files are still checked. " + err.Error(),
			Remedy:      podResourcesRemedy(err),
		})
	} else if snap != nil {
		rep.PodResources.Available = true
		rep.PodResources.Pods = len(snap.Pods)
		rep.PodResources.Notes = snap.Notes
		if len(rep.PodResources.Notes) > maxNotes {
			rep.PodResources.Notes = append(rep.PodResources.Notes[:maxNotes:maxNotes], fmt.Sprintf("(%d more notes)", len(snap.Notes)-maxNotes))
		}
		view := snap.PerNUMA(cpus)
		rep.NUMA = &view
		if c.diagnose {
			ev.SetPodResources(c.socket+c.snapshot, snap)
		}
	}
	rep.CPUs = cpuRows(cpus, ev, rep.NUMA)

	// The diagnosis.
	var findings []diagnose.Finding
	if c.diagnose {
		d, err := diagnose.Run(ctx, ev)
		if err != nil {
			if ctx.Err() != nil {
				return rep
			}
			fail("diagnose", "", err, nil)
		} else {
			findings = d.Findings
			// The state files were added without diagnose's Add, so their
			// evidence items are the agent's; keep diagnose's others.
			rep.Evidence = append(rep.Evidence, d.Evidence...)
		}
	}
	if rep.Evidence == nil {
		rep.Evidence = []evidence.Item{}
	}
	rep.Findings = append(own, findings...)
	if rep.Findings == nil {
		rep.Findings = []diagnose.Finding{}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		return rank(rep.Findings[i].Severity) < rank(rep.Findings[j].Severity)
	})
	for _, f := range rep.Findings {
		switch f.Severity {
		case statefile.SeverityError:
			rep.Summary.Errors++
		case statefile.SeverityWarning:
			rep.Summary.Warnings++
		default:
			rep.Summary.Infos++
		}
	}
	return rep
}

func rank(s statefile.Severity) int {
	switch s {
	case statefile.SeverityError:
		return 0
	case statefile.SeverityWarning:
		return 1
	}
	return 2
}

func validPolicy(p string, valid ...string) string {
	for _, v := range valid {
		if p == v {
			return p
		}
	}
	return ""
}

func readPodResources(ctx context.Context, socket string, timeout time.Duration, l limits) (*podresources.Snapshot, error) {
	cl, err := client.Dial(ctx, socket, client.WithConnectTimeout(timeout), client.WithCallTimeout(timeout),
		client.WithMaxMessageSize(int(l.podResources)))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return cl.Snapshot(ctx)
}

// podResourcesRemedy says what to do about a PodResources error.
func podResourcesRemedy(err error) string {
	switch {
	case errors.Is(err, errTooManyPods):
		return "Raise --max-pods, and the container's memory limit with it, if the node really runs that many pods."
	case errors.Is(err, client.ErrMessageTooLarge), errors.Is(err, input.ErrTooLarge), errors.Is(err, input.ErrTooManyValues):
		return "Raise --max-podresources-size, and the container's memory limit with it (an answer costs about 10 times its size in memory), if the node really runs that many pods."
	case errors.Is(err, input.ErrNotRegular):
		return "Give --snapshot a regular file or a directory of them, saved with `podresources --json` on the node."
	}
	return "Mount the host's /var/lib/kubelet/pod-resources and run as user 0: connecting needs write permission on the socket file, which the kubelet creates for root only. A readOnly mount is enough."
}

// loadSnapshot reads a saved snapshot: a directory LoadFS reads, or one
// JSON file in numascope's or the protobuf-JSON form. Every file is read
// without blocking, through the --max-podresources-size limit (the whole
// directory too), and its values are counted before it is decoded.
func loadSnapshot(p string, l limits) (*podresources.Snapshot, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("--snapshot: %w", err)
	}
	if st.IsDir() {
		s, err := podresources.LoadFS(&boundedFS{root: p, what: "--snapshot", limit: l.podResources}, podresources.WithPods(evidence.PodQOSClasses))
		if err != nil {
			return nil, fmt.Errorf("--snapshot %s: %w", p, err)
		}
		return s, nil
	}
	data, err := input.ReadFile(p, "--snapshot", l.podResources)
	if err != nil {
		return nil, err
	}
	if err := input.CheckValues(data, "--snapshot "+p, input.ValueBudget{}); err != nil {
		return nil, err
	}
	s, err := podresources.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return s, nil
}

func memoryRows(m *statefile.MemoryState) []MemoryRow {
	rows := []MemoryRow{}
	nodes := make([]int, 0, len(m.MachineState))
	for id := range m.MachineState {
		nodes = append(nodes, id)
	}
	sort.Ints(nodes)
	for _, id := range nodes {
		n := m.MachineState[id]
		if n == nil {
			continue
		}
		group := n.Cells
		if len(group) == 0 {
			group = n.NodesAlias
		}
		if group == nil {
			group = []int{}
		}
		names := make([]string, 0, len(n.MemoryMap))
		for r := range n.MemoryMap {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			if t := n.MemoryMap[r]; t != nil {
				rows = append(rows, MemoryRow{NUMANode: id, Resource: r, MemoryTable: *t, Group: group})
			}
		}
	}
	return rows
}

// cpuRows counts CPUs per NUMA node from sysfs, the CPU state and the
// PodResources view, each where available.
func cpuRows(cpus podresources.CPUMap, ev *evidence.Set, view *podresources.NUMAView) []CPURow {
	rows := map[int]*CPURow{}
	row := func(n int) *CPURow {
		if rows[n] == nil {
			rows[n] = &CPURow{NUMANode: n}
		}
		return rows[n]
	}
	add := func(p **int, k int) {
		if *p == nil {
			*p = new(int)
		}
		**p += k
	}
	nodeOf := func(cpu int) int {
		if n, ok := cpus[cpu]; ok {
			return n
		}
		return -1
	}
	for _, n := range cpus {
		add(&row(n).CPUs, 1)
	}
	for _, f := range ev.States {
		if f.CPU == nil {
			continue
		}
		// A set of ids rather than repeated cpuset unions, which copy the
		// whole set for every container.
		exclusive := map[int]struct{}{}
		mark := func(s cpuset.CPUSet) {
			for _, c := range s.UnsortedList() {
				exclusive[c] = struct{}{}
			}
		}
		for _, containers := range f.CPU.Entries {
			for _, s := range containers {
				mark(s)
			}
		}
		for _, s := range f.CPU.ContainerEntries {
			mark(s)
		}
		for _, s := range f.CPU.PodEntries {
			mark(s)
		}
		// Every known node gets a zero rather than no figure.
		for n := range rows {
			add(&rows[n].Exclusive, 0)
			add(&rows[n].Shared, 0)
		}
		for cpu := range exclusive {
			add(&row(nodeOf(cpu)).Exclusive, 1)
		}
		for _, cpu := range f.CPU.DefaultCPUSet.List() {
			add(&row(nodeOf(cpu)).Shared, 1)
		}
	}
	if view != nil && view.HasAllocatable {
		nodes := append([]podresources.NodeView{}, view.Nodes...)
		if len(view.Unplaced.CPUs.Allocatable) > 0 || len(view.Unplaced.CPUs.Taken) > 0 {
			nodes = append(nodes, view.Unplaced)
		}
		for _, nv := range nodes {
			r := row(nv.ID)
			add(&r.Allocatable, len(nv.CPUs.Allocatable))
			add(&r.Taken, len(nv.CPUs.Taken))
			add(&r.Free, len(nv.CPUs.Free))
		}
	}
	out := make([]CPURow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].NUMANode < out[j].NUMANode })
	return out
}

// nodeLabel renders a NUMA node id for a metric label.
func nodeLabel(n int) string { return strconv.Itoa(n) }
