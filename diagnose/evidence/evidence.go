package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/topomgr"

	"github.com/numascope/numascope/diagnose/evidence/internal/paste"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/nrt"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// Set is everything known about the node, already parsed. Any subset
// may be present; Run draws the findings the evidence supports.
type Set struct {
	Logs    []*KubeletLog
	Pods    []*topomgr.Pod
	Events  []*Events
	Config  *topomgr.KubeletConfig
	Machine *topomgr.Machine
	// States are decoded kubelet checkpoint files.
	States []*statefile.File
	// PodResources is a PodResources snapshot (List and GetAllocatableResources).
	PodResources *podresources.Snapshot
	// Decode, when set, decodes the checkpoints instead of
	// statefile.Decode (see Set.DecodeState): a caller that has
	// decoded the same bytes already (the playground's engine, which
	// inspects before it diagnoses) gives its cache. It must answer what
	// statefile.Decode answers; the evidence never changes what it returns.
	Decode func(data []byte, opts statefile.Options) (*statefile.File, error)
	// StreamFrom is the size from which a log is streamed (read once,
	// line by line, keeping only the records the findings read) rather
	// than read into memory: 0 is 16 MiB, a negative value streams every
	// log.
	StreamFrom int64

	podResourcesName string
	// nrt is the NodeResourceTopology given as evidence (see nrt.go).
	nrt     *nrt.Object
	nrtName string
	// pastes records the checkpoints read from a copy (see paste.go).
	pastes map[*statefile.File]*Provenance
	// onNode holds the checkpoints read from a kubelet directory.
	onNode map[string]bool
	items  []Item
	// kubeletVersion and stateInputs serve the release's verdicts (see versions.go).
	kubeletVersion string
	stateInputs    map[*statefile.File]StateInput
}

// Sources names evidence files and directories for Load. Empty fields are skipped.
type Sources struct {
	// StateDir is a kubelet root directory holding cpu_manager_state,
	// memory_manager_state, device-plugins/kubelet_internal_checkpoint and
	// dra_manager_state (any subset).
	StateDir string
	// StateFiles are single checkpoint files, kind detected from content.
	StateFiles []string
	// PodResources is a snapshot file (numascope JSON or protobuf-JSON) or a
	// directory with list.json and allocatable.json.
	PodResources string
	// Logs are kubelet logs (journalctl -u kubelet, klog text or JSON,
	// gzip-compressed or not), of any size: one larger than 16 MiB is
	// streamed (see Set.AddLogStream), as is a file in Files that is
	// that large and starts like a log.
	Logs []string
	// LogLimit bounds each streamed log, in bytes after decompression: 0
	// is 64 GiB, a negative value reads without a bound (the evidence says
	// so).
	LogLimit int64
	// StreamFrom is Set.StreamFrom for the logs Load reads.
	StreamFrom int64
	// Pods are `kubectl get pod -o yaml|json` outputs.
	Pods []string
	// Events are `kubectl describe pod`, `kubectl get events [-o yaml]` outputs.
	Events []string
	// KubeletConfig are the kubelet's configuration sources, applied in
	// order as the kubelet layers them (a KubeletConfiguration file, then
	// command-line flags over it).
	KubeletConfig []string
	// Topology is a cAdvisor machine-info JSON file or a sysfs snapshot directory.
	Topology string
	// Files are inputs of any kind, detected from their content (a kubelet
	// log, kubectl output, a pod, flags or configuration, a topology
	// listing, a checkpoint, a PodResources answer).
	Files []string
}

// Empty reports whether s names no evidence at all (the limits aside).
func (s Sources) Empty() bool {
	return s.StateDir == "" && len(s.StateFiles) == 0 && s.PodResources == "" && len(s.Logs) == 0 &&
		len(s.Pods) == 0 && len(s.Events) == 0 && len(s.KubeletConfig) == 0 && s.Topology == "" && len(s.Files) == 0
}

// AddLog parses and adds a kubelet log.
func (e *Set) AddLog(name string, data []byte) error { return e.addStrict(name, KindLog, data) }

// AddPods parses and adds a pod (or a list of pods).
func (e *Set) AddPods(name string, data []byte) error { return e.addStrict(name, KindPod, data) }

// AddEvents parses and adds events or `kubectl describe pod` output.
func (e *Set) AddEvents(name string, data []byte) error {
	return e.addStrict(name, KindEvents, data)
}

// SetKubeletConfig parses the kubelet configuration and layers it over the
// configuration set before.
func (e *Set) SetKubeletConfig(name string, data []byte) error {
	return e.addStrict(name, KindConfig, data)
}

// SetMachineInfo parses a machine topology (cAdvisor machine-info JSON, or
// what the topology reader takes) and sets it.
func (e *Set) SetMachineInfo(name string, data []byte) error {
	return e.addStrict(name, KindTopology, data)
}

// SetMachine sets the machine topology, the one the admission simulation
// runs on too.
func (e *Set) SetMachine(m *topomgr.Machine) {
	e.items = append(e.items, e.setMachine(m))
}

func (e *Set) setMachine(m *topomgr.Machine) Item {
	var warns []string
	if e.Machine != nil {
		warns = append(warns, "replaces the topology read from "+e.Machine.Source)
	}
	e.Machine = m
	it := Item{File: m.Source, Kind: KindTopology, Format: m.Format, Status: "read",
		Note: m.Summary(), Warnings: append(warns, m.Warnings...)}
	if len(m.Warnings) > 0 {
		it.Status = "partial"
	}
	return it
}

// Add reads one input of any kind and records it in the evidence, read or
// not; the returned item says which. kind forces a reader first
// ("kubelet-config", "pod", "events", "kubelet-log", "topology", "state",
// "podresources"; "" detects the kind from the content). When the forced
// reader refuses the input and another kind reads it, that kind is used,
// with a warning.
//
// Every text goes through the paste normaliser first (Markdown fences and
// quotes, shell prompts, HTML entities, smart quotes, CRLF, ANSI codes: each
// change is a warning); gzip data is decompressed; checkpoints are decoded
// from the bytes as given.
func (e *Set) Add(name, kind string, data []byte) Item {
	it, _ := e.add(name, kind, data, true, false, 0)
	return it
}

// addStrict reads data as kind only, and returns the reader's error when it
// refuses it.
func (e *Set) addStrict(name, kind string, data []byte) error {
	it, err := e.add(name, kind, data, false, false, 0)
	if err != nil && it.Status == "refused" {
		return err
	}
	return nil
}

// notEvidenceHelp is the note of an input no reader recognises.
const notEvidenceHelp = "not recognised as kubelet evidence: pass a kubelet log, kubectl describe/get output, " +
	"a pod, the kubelet's flags or configuration, numactl -H/lscpu output, machine-info or a kubelet checkpoint"

// add reads one input (see Add); own says that data belongs to add, which
// may then normalise it in place when no checkpoint needs the bytes. A
// gzip input is inflated in memory up to streamAbove; a log that inflates
// past it is streamed from the compressed bytes (streamLog, through
// streamLimit: 0 is the default limit), never inflated whole.
func (e *Set) add(name, given string, data []byte, fallback, own bool, streamLimit int64) (Item, error) {
	if given != "" {
		k, ok := normaliseKind(given)
		if !ok {
			err := fmt.Errorf("%s: unknown evidence kind %q (want kubelet-config, pod, events, kubelet-log, topology, state or podresources)", name, given)
			it := Item{File: name, Kind: "unknown", Given: given, Status: "refused", Error: err.Error()}
			e.items = append(e.items, it)
			return it, err
		}
		given = k
	}
	var warns []string
	if isGzip(data) {
		plain, layers, cut, err := gunzipAll(data, name, e.streamAbove())
		if errors.Is(err, input.ErrTooLarge) && !errors.Is(err, errGzipBomb) && streamed && (given == "" || given == KindLog) {
			it := e.streamLog(name, bytes.NewReader(data), streamLimit)
			e.items = append(e.items, it)
			if it.Status == "refused" {
				return it, errors.New(it.Error)
			}
			return it, nil
		}
		if err != nil {
			if errors.Is(err, errGzipBomb) {
				err = fmt.Errorf("%s: decompressing gzip data: %w", name, err)
			} else {
				err = fmt.Errorf("%s: decompressing gzip data: %w (pass the log decompressed, or a smaller excerpt)", name, err)
			}
			it := Item{File: name, Kind: words.Or(given, KindLog), Given: given, Status: "refused", Error: err.Error()}
			e.items = append(e.items, it)
			return it, err
		}
		data = plain
		warns = append(warns, "decompressed gzip data")
		if layers > 1 {
			warns = append(warns, fmt.Sprintf("gzip inside gzip: %d layers decompressed", layers))
		}
		if cut {
			warns = append(warns, "the gzip stream is cut short: read what came before the cut")
		}
	}
	var norm paste.Result
	if own && given != KindState && !maybeCheckpoint(data) {
		norm = paste.NormalizeInPlace(data)
	} else {
		norm = paste.Normalize(data)
	}
	warns = append(warns, norm.WarningStrings()...)
	cands, notEvidence := sniff(norm.Text, norm.Commands)
	var order []candidate
	if given != "" {
		order = append(order, candidate{kind: given})
		if fallback {
			for _, c := range cands {
				if c.kind != given {
					order = append(order, c)
				}
			}
		}
	} else {
		order = cands
	}
	if len(order) == 0 {
		it := Item{File: name, Kind: "unknown", Status: "unused", Note: words.Or(notEvidence, notEvidenceHelp), Warnings: warns}
		e.items = append(e.items, it)
		return it, nil
	}
	// The bytes as given are kept only for a checkpoint (verified over them);
	// a large log is then held once, normalised.
	needRaw := false
	for _, c := range order {
		needRaw = needRaw || c.kind == KindState
	}
	if !needRaw && norm.Changed() {
		data = nil
	}
	var firstErr error
	var reasons []string
	var unused *Item
	for _, c := range order {
		text := norm.Text
		if c.kind == KindEvents {
			// The events reader takes the namespace and pod of a pasted
			// `kubectl get|describe` line for the output below it.
			text = norm.WithKubectlCommands()
		}
		it, err := e.read(name, c.kind, data, text)
		if err != nil {
			if firstErr == nil {
				firstErr = err
				reasons = append(reasons, err.Error())
			} else {
				reasons = append(reasons, "read as "+c.kind+": "+strings.TrimPrefix(err.Error(), name+": "))
			}
			continue
		}
		it.File = name
		if it.Status == "unused" {
			if unused == nil {
				if c.why != "" {
					it.Note += " (it looked like " + c.why + ")"
				}
				unused = &it
			}
			continue
		}
		var pre []string
		if given != "" && c.kind != given {
			it.Given = given
			pre = append(pre, fmt.Sprintf("given as %s, read as %s: %s", kindFlag[given], c.kind, c.why))
			if firstErr != nil {
				pre = append(pre, "the "+given+" reader said: "+strings.TrimPrefix(firstErr.Error(), name+": "))
			}
		}
		it.Warnings = append(append(pre, warns...), it.Warnings...)
		e.items = append(e.items, it)
		return it, nil
	}
	if unused != nil {
		it := *unused
		it.Given = given
		it.Warnings = append(warns, it.Warnings...)
		e.items = append(e.items, it)
		return it, nil
	}
	it := Item{File: name, Kind: order[0].kind, Given: given, Status: "refused", Error: strings.Join(reasons, "; "), Warnings: warns}
	e.items = append(e.items, it)
	return it, firstErr
}

// read runs the reader of kind on one input and adds what it read to the
// evidence; raw is the input as given (checkpoints are verified over it),
// text the normalised input.
func (e *Set) read(name, kind string, raw, text []byte) (Item, error) {
	switch kind {
	case KindLog:
		l, err := ParseLog(name, bytes.NewReader(text))
		if err != nil {
			return Item{}, err
		}
		k := l.interpret()
		e.Logs = append(e.Logs, k)
		return Item{Kind: KindLog, Format: l.Format, Status: "read",
			Note: words.Count(len(l.Records), "record") + ", " + words.Count(len(k.Attempts), "admission attempt") + ", " + words.Count(len(k.Signals), "signal") + e.machineFromLog(name, k)}, nil
	case KindPod:
		pods, err := readPods(name, text)
		if err != nil {
			return Item{}, err
		}
		if len(pods) == 0 {
			return Item{Kind: KindPod, Status: "unused", Note: "no pods in it"}, nil
		}
		e.Pods = append(e.Pods, pods...)
		return Item{Kind: KindPod, Status: "read", Note: words.Count(len(pods), "pod")}, nil
	case KindEvents:
		ev, err := readEvents(name, text)
		if err != nil {
			return Item{}, err
		}
		if len(ev.Events) == 0 && (ev.Pod == nil || ev.Pod.Status == "" && ev.Pod.Reason == "" && ev.Pod.Message == "") {
			return Item{Kind: KindEvents, Format: ev.Format, Status: "unused", Note: "no events in it"}, nil
		}
		e.Events = append(e.Events, ev)
		return Item{Kind: KindEvents, Format: ev.Format, Status: "read", Note: fmt.Sprintf("%d events", len(ev.Events))}, nil
	case KindConfig:
		c, err := ParseKubeletConfig(name, text)
		if err != nil {
			return Item{}, err
		}
		e.Config = mergeKubeletConfig(e.Config, c)
		note := fmt.Sprintf("%d fields set", len(c.Set))
		if c.ConfigFile != "" {
			note += ", names --config " + c.ConfigFile
		}
		return Item{Kind: KindConfig, Format: c.Format, Status: "read", Note: note}, nil
	case KindTopology:
		if it, ok := e.setNRT(name, text); ok {
			return it, nil
		}
		m, err := ParseMachine(name, text)
		if err != nil {
			return Item{}, err
		}
		if len(m.Nodes) == 0 {
			return Item{Kind: KindTopology, Format: m.Format, Status: "unused", Note: "no NUMA nodes in it", Warnings: m.Warnings}, nil
		}
		return e.setMachine(m), nil
	case KindState:
		n := len(e.items)
		if err := e.addState(name, raw, e.onNode[name]); err != nil {
			e.items = e.items[:n]
			return Item{}, err
		}
		return e.popItem(n, "state"), nil
	case KindPodResources:
		s, err := podresources.Decode(text)
		if s == nil {
			if err == nil {
				err = errors.New("empty answer")
			}
			return Item{}, fmt.Errorf("%s: %w", name, err)
		}
		n := len(e.items)
		e.SetPodResources(name, s)
		it := e.popItem(n, KindPodResources)
		if err != nil {
			it.Status = "partial"
			it.Warnings = append(it.Warnings, err.Error())
		}
		return it, nil
	}
	return Item{}, fmt.Errorf("%s: unknown evidence kind %q", name, kind)
}

// popItem takes back the item a Set/Add method appended at index n, so the
// caller can complete it.
func (e *Set) popItem(n int, kind string) Item {
	if len(e.items) <= n {
		return Item{Kind: kind, Status: "read"}
	}
	it := e.items[n]
	e.items = append(e.items[:n], e.items[n+1:]...)
	if it.Status == "" {
		it.Status = "read"
	}
	return it
}

func (e *Set) refuse(name, kind, given string, err error) {
	e.items = append(e.items, Item{File: name, Kind: kind, Given: given, Status: "refused", Error: err.Error()})
}

// Load reads every source and records each in the evidence: read, or
// refused with the reason (Report.Evidence lists them). It does not stop at
// an input it cannot read; it returns an error only for sources that make
// no sense together (none today), so an SDK caller checks the items.
func Load(src Sources) (*Set, error) {
	e := &Set{StreamFrom: src.StreamFrom}
	// Positional files are read first, and sorted into the kinds' places.
	type posFile struct {
		path   string
		data   []byte
		flags  bool // kubelet flags: layered over configuration files
		stream bool // a large log, streamed from path when its turn comes
	}
	byKind := map[string][]posFile{}
	for _, p := range src.Files {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			e.items = append(e.items, Item{File: p, Kind: "unknown", Status: "unused",
				Note: "a directory: pass it with --dir, --state-dir, --topology (sysfs) or --podresources"})
			continue
		}
		if large, err := e.largeLog(p); err != nil {
			e.refuse(p, "unknown", "", err)
			continue
		} else if large {
			byKind[KindLog] = append(byKind[KindLog], posFile{path: p, stream: true})
			continue
		}
		b, err := input.ReadFile(p, "evidence file", input.MaxLog)
		if err != nil {
			e.refuse(p, "unknown", "", err)
			continue
		}
		k, flags := primaryKind(b)
		byKind[k] = append(byKind[k], posFile{path: p, data: b, flags: flags})
	}
	addPos := func(kind string) {
		files := byKind[kind]
		sort.SliceStable(files, func(i, j int) bool { return !files[i].flags && files[j].flags })
		for _, f := range files {
			if f.stream {
				e.loadLog(f.path, "evidence file", src.LogLimit)
				continue
			}
			e.add(f.path, "", f.data, true, true, src.LogLimit)
		}
	}
	typed := func(paths []string, kind string, limit int64) {
		for _, p := range paths {
			b, err := input.ReadFile(p, kindFlag[kind], limit)
			if err != nil {
				e.refuse(p, kind, kind, err)
				continue
			}
			e.add(p, kind, b, true, true, src.LogLimit)
		}
	}
	typed(src.KubeletConfig, KindConfig, input.MaxDocument)
	addPos(KindConfig)
	for _, p := range src.Logs {
		e.loadLog(p, kindFlag[KindLog], src.LogLimit)
	}
	addPos(KindLog)
	typed(src.Pods, KindPod, input.MaxDocument)
	addPos(KindPod)
	typed(src.Events, KindEvents, input.MaxDocument)
	addPos(KindEvents)
	if src.StateDir != "" {
		e.loadStateDir(src.StateDir)
	}
	typed(src.StateFiles, KindState, input.MaxCheckpoint)
	addPos(KindState)
	if src.PodResources != "" {
		if st, err := os.Stat(src.PodResources); err == nil && st.IsDir() {
			if s, err := podresources.LoadDir(src.PodResources, podresources.WithPods(PodQOSClasses)); err != nil {
				e.refuse(src.PodResources, KindPodResources, KindPodResources, fmt.Errorf("podresources %s: %w", src.PodResources, err))
			} else {
				n := len(e.items)
				e.SetPodResources(src.PodResources, s)
				e.items = append(e.items, e.popItem(n, KindPodResources))
			}
		} else {
			typed([]string{src.PodResources}, KindPodResources, input.MaxPodResources)
		}
	}
	addPos(KindPodResources)
	if p := src.Topology; p != "" {
		if st, err := os.Stat(p); err != nil {
			e.refuse(p, KindTopology, KindTopology, fmt.Errorf("evidence %s: %w", p, err))
		} else if st.IsDir() {
			if m, err := ParseSysfs(p, os.DirFS(p)); err != nil {
				e.refuse(p, KindTopology, KindTopology, err)
			} else {
				e.SetMachine(m)
			}
		} else {
			typed([]string{p}, KindTopology, input.MaxDocument)
		}
	}
	addPos(KindTopology)
	addPos("")
	return e, nil
}

// maybeCheckpoint tells, from the first sniffHead bytes, whether data may
// be a kubelet checkpoint (whose bytes as given must be kept).
func maybeCheckpoint(data []byte) bool {
	head := data[:min(len(data), sniffHead)]
	if _, ok := statefile.Looks(head); ok {
		return true
	}
	for _, k := range statefile.Kinds() {
		if bytes.Contains(head, []byte(k.FileName())) {
			return true
		}
	}
	return false
}

// primaryKind is the kind a positional file is placed as (its first
// candidate; "" when none), and whether it holds kubelet flags.
func primaryKind(b []byte) (string, bool) {
	if isGzip(b) {
		return KindLog, false
	}
	head := b
	if len(head) > sniffHead {
		head = head[:sniffHead]
	}
	norm := paste.Normalize(head)
	cands, _ := sniff(norm.Text, norm.Commands)
	if len(cands) == 0 {
		return "", false
	}
	return cands[0].kind, cands[0].kind == KindConfig && cands[0].why == "kubelet flags"
}

// SniffKind is the kind Set.Add tries first for data ("kubelet-config",
// "pod", "events", "kubelet-log", "topology", "state", "podresources"; ""
// when nothing matches), judged from its first 64 KiB without reading it:
// for callers that order inputs as Load does (configuration first) before
// adding them.
func SniffKind(data []byte) string {
	k, _ := primaryKind(data)
	return k
}

// loadStateDir adds the checkpoints found under a kubelet root directory.
func (e *Set) loadStateDir(dir string) {
	found := 0
	for _, n := range stateFileNames {
		p := filepath.Join(dir, n)
		b, err := input.ReadFile(p, "state file", input.MaxCheckpoint)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found++
		if err != nil {
			e.refuse(p, KindState, "", err)
			continue
		}
		if e.onNode == nil {
			e.onNode = map[string]bool{}
		}
		e.onNode[p] = true // the node's own file: never repaired as a paste
		e.add(p, KindState, b, false, true, 0)
	}
	if found == 0 {
		e.refuse(dir, KindState, "", fmt.Errorf("state directory %s: none of %s found (pass the kubelet root directory, usually /var/lib/kubelet)", dir, strings.Join(stateFileNames, ", ")))
	}
}

// SourcesFromDir finds evidence in a directory by file name: the kubelet's
// state files (cpu_manager_state, memory_manager_state, dra_manager_state,
// device-plugins/), copies of them saved as <name>.<ext> (a paste such as
// cpu_manager_state.txt), podresources*.json or a podresources/ directory, *.log,
// journal* or kubelet-log* (kubelet logs), pod* (pods), events* or
// describe* (events), kubelet-config* or config.yaml then kubelet-flags*
// (kubelet configuration, flags layered last), machine-info*, topology* or
// a sys/ directory (topology). Other files go to Sources.Files, whose kind
// Load detects from the content; Load lists those it cannot use, and why.
//
// The directory is read one level deep (the sys/, podresources/ and
// device-plugins/ directories are read by their own readers) and may hold
// at most 10,000 entries; a FIFO, device or socket under an evidence
// name is refused by name when Load reads it.
func SourcesFromDir(dir string) (Sources, error) {
	entries, err := readDirLimited(dir, maxDirEntries)
	if err != nil {
		return Sources{}, fmt.Errorf("evidence directory %s: %w", dir, err)
	}
	var s Sources
	var flagFiles []string
	for _, e := range entries {
		n := e.Name()
		p := filepath.Join(dir, n)
		lower := strings.ToLower(n)
		switch {
		case e.IsDir() && n == "sys":
			s.Topology = p
		case e.IsDir() && n == "device-plugins":
			s.StateDir = dir
		case e.IsDir() && n == "podresources":
			s.PodResources = p
		case isCheckpointName(n) && n != statefile.KindDevice.FileName():
			s.StateDir = dir
		case isCheckpointCopyName(n):
			s.StateFiles = append(s.StateFiles, p)
		case strings.HasPrefix(lower, "podresources") && hasExt(lower, ".json"):
			s.PodResources = p
		case e.IsDir():
			s.Files = append(s.Files, p) // listed as unused by Load
		case strings.HasSuffix(lower, ".log") || strings.HasPrefix(lower, "journal") || strings.HasPrefix(lower, "kubelet-log"):
			s.Logs = append(s.Logs, p)
		case strings.HasPrefix(lower, "pod"):
			s.Pods = append(s.Pods, p)
		case strings.HasPrefix(lower, "events") || strings.HasPrefix(lower, "describe"):
			s.Events = append(s.Events, p)
		case strings.HasPrefix(lower, "kubelet-config") || lower == "config.yaml":
			s.KubeletConfig = append(s.KubeletConfig, p)
		case strings.HasPrefix(lower, "kubelet-flags"):
			flagFiles = append(flagFiles, p)
		case strings.HasPrefix(lower, "machine-info") || strings.HasPrefix(lower, "topology"):
			s.Topology = p
		default:
			// A name that says nothing: the content decides, and Load lists
			// the file as unused when nothing reads it.
			s.Files = append(s.Files, p)
		}
	}
	// Flags are layered over the configuration files, as the kubelet does.
	s.KubeletConfig = append(s.KubeletConfig, flagFiles...)
	return s, nil
}

func hasExt(name string, exts ...string) bool {
	for _, e := range exts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}

// maxDirEntries bounds the entries of an evidence directory.
const maxDirEntries = 10000

// readDirLimited lists at most limit entries of dir, sorted by name.
func readDirLimited(dir string, limit int) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(limit + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(entries) > limit {
		return nil, fmt.Errorf("more than %d entries: give a directory that holds only the evidence", limit)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}
