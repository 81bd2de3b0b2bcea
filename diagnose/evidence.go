package diagnose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/numascope/numascope/topomgr"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/kubeletfiles"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// Evidence is everything known about the node, already parsed. Any subset
// may be present; Run draws the findings the evidence supports.
type Evidence struct {
	Logs    []*KubeletLog
	Pods    []*topomgr.Pod
	Events  []*Events
	Config  *KubeletConfig
	Machine *topomgr.Machine
	// States are decoded kubelet checkpoint files.
	States []*statefile.File
	// PodResources is a PodResources snapshot (List and GetAllocatableResources).
	PodResources *podresources.Snapshot

	podResourcesName string
	items            []EvidenceItem
	// pastes records the checkpoints read from a copy (see paste.go).
	pastes map[*statefile.File]*provenance
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
	// Logs are kubelet logs (journalctl -u kubelet, klog text or JSON).
	Logs []string
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
}

// AddLog parses and adds a kubelet log.
func (e *Evidence) AddLog(name string, data []byte) error {
	l, err := ParseLog(name, bytes.NewReader(data))
	if err != nil {
		return err
	}
	k := l.interpret()
	e.Logs = append(e.Logs, k)
	e.items = append(e.items, EvidenceItem{File: name, Kind: "kubelet-log", Format: l.Format,
		Note: fmt.Sprintf("%d records, %d admission attempts, %d signals", len(l.Records), len(k.Attempts), len(k.Signals))})
	return nil
}

// AddPods parses and adds a pod (or a list of pods).
func (e *Evidence) AddPods(name string, data []byte) error {
	pods, err := ParsePods(name, data)
	if err != nil {
		return err
	}
	e.Pods = append(e.Pods, pods...)
	e.items = append(e.items, EvidenceItem{File: name, Kind: "pod", Note: fmt.Sprintf("%d pods", len(pods))})
	return nil
}

// AddEvents parses and adds events or `kubectl describe pod` output.
func (e *Evidence) AddEvents(name string, data []byte) error {
	ev, err := ParseEvents(name, data)
	if err != nil {
		return err
	}
	e.Events = append(e.Events, ev)
	e.items = append(e.items, EvidenceItem{File: name, Kind: "events", Format: ev.Format, Note: fmt.Sprintf("%d events", len(ev.Events))})
	return nil
}

// SetKubeletConfig parses and sets the kubelet configuration.
func (e *Evidence) SetKubeletConfig(name string, data []byte) error {
	c, err := ParseKubeletConfig(name, data)
	if err != nil {
		return err
	}
	e.Config = mergeKubeletConfig(e.Config, c)
	e.items = append(e.items, EvidenceItem{File: name, Kind: "kubelet-config"})
	return nil
}

// SetMachineInfo parses cAdvisor machine-info JSON and sets it as the
// machine topology.
func (e *Evidence) SetMachineInfo(name string, data []byte) error {
	m, err := ParseMachine(name, data)
	if err != nil {
		return err
	}
	e.SetMachine(m)
	return nil
}

// SetMachine sets the machine topology, the one the admission simulation
// runs on too.
func (e *Evidence) SetMachine(m *topomgr.Machine) {
	e.Machine = m
	e.items = append(e.items, EvidenceItem{File: m.Source, Kind: "topology", Format: m.Format, Note: m.Summary()})
}

// Load reads and parses every source. It stops at the first file that
// cannot be read or parsed, with an error that names it.
func Load(src Sources) (*Evidence, error) {
	e := &Evidence{}
	for _, p := range src.KubeletConfig {
		b, err := input.ReadFile(p, "--kubelet-config", input.MaxDocument)
		if err != nil {
			return nil, err
		}
		if err := e.SetKubeletConfig(p, b); err != nil {
			return nil, err
		}
	}
	for _, p := range src.Logs {
		b, err := input.ReadFile(p, "--log", input.MaxLog)
		if err != nil {
			return nil, err
		}
		if err := e.AddLog(p, b); err != nil {
			return nil, err
		}
	}
	for _, p := range src.Pods {
		b, err := input.ReadFile(p, "--pod", input.MaxDocument)
		if err != nil {
			return nil, err
		}
		if err := e.AddPods(p, b); err != nil {
			return nil, err
		}
	}
	for _, p := range src.Events {
		b, err := input.ReadFile(p, "--events", input.MaxDocument)
		if err != nil {
			return nil, err
		}
		if err := e.AddEvents(p, b); err != nil {
			return nil, err
		}
	}
	if src.StateDir != "" {
		if err := loadStateDir(e, src.StateDir); err != nil {
			return nil, err
		}
	}
	for _, p := range src.StateFiles {
		b, err := input.ReadFile(p, "--state", input.MaxCheckpoint)
		if err != nil {
			return nil, err
		}
		if err := e.AddStateFile(p, b); err != nil {
			return nil, err
		}
	}
	if src.PodResources != "" {
		if err := loadPodResources(e, src.PodResources); err != nil {
			return nil, err
		}
	}
	if src.Topology != "" {
		st, err := os.Stat(src.Topology)
		if err != nil {
			return nil, fmt.Errorf("evidence %s: %w", src.Topology, err)
		}
		var m *topomgr.Machine
		if st.IsDir() {
			m, err = ParseSysfs(src.Topology, os.DirFS(src.Topology))
		} else {
			var b []byte
			if b, err = input.ReadFile(src.Topology, "--topology", input.MaxDocument); err == nil {
				m, err = ParseMachine(src.Topology, b)
			}
		}
		if err != nil {
			return nil, err
		}
		e.SetMachine(m)
	}
	return e, nil
}

// SourcesFromDir finds evidence in a directory by file name: the kubelet's
// state files (cpu_manager_state, memory_manager_state, dra_manager_state,
// device-plugins/), copies of them saved as <name>.<ext> (a paste such as
// cpu_manager_state.txt), podresources*.json or a podresources/ directory, *.log,
// journal* or kubelet-log* (kubelet logs), pod* (pods), events* or
// describe* (events), kubelet-config* or config.yaml then kubelet-flags*
// (kubelet configuration, flags layered last), machine-info*, topology* or
// a sys/ directory (topology). Other files are ignored.
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
		case kubeletfiles.IsCheckpointName(n) && n != kubeletfiles.NameOf(statefile.KindDevice):
			s.StateDir = dir
		case isCheckpointCopyName(n):
			s.StateFiles = append(s.StateFiles, p)
		case strings.HasPrefix(lower, "podresources") && hasExt(lower, ".json"):
			s.PodResources = p
		case e.IsDir():
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
