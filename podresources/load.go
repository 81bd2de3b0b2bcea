package podresources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// The file names LoadDir reads. ListFile and AllocatableFile are numascope's
// names; RTEAllocatableFile and RTEGetFile are the names the
// resource-topology-exporter's fake:// client reads.
const (
	ListFile           = "list.json"
	AllocatableFile    = "allocatable.json"
	RTEAllocatableFile = "get_allocatable_resources.json"
	RTEGetFile         = "get.json"
)

// GetFileName returns the file name LoadDir expects for the Get answer of
// one pod: "get-<namespace>-<name>.json".
func GetFileName(namespace, name string) string {
	return "get-" + namespace + "-" + name + ".json"
}

// Bounds on a snapshot directory. LoadDir reads only the directory's own
// files, never its subdirectories (sys/ is read by ReadSysfsCPUMap), so its
// depth is one.
const (
	// MaxDirEntries is the most entries a snapshot directory may hold.
	MaxDirEntries = 10_000
	// MaxGetFiles is the most Get answers (get-*.json) read from one directory.
	MaxGetFiles = 1_000
	// maxSnapshotBytes bounds the bytes read from one directory in all.
	maxSnapshotBytes = input.MaxPodResources
	// maxPodsFile bounds pods.json: kubectl's JSON takes 5-30 KB a pod.
	maxPodsFile = input.MaxPodResources
)

// PodsValueBudget bounds the values of a pods.json or of a file given for
// QoS classes (`kubectl get pods -o json`, about 600 values a pod): about
// 6,000 pods, far more than one node runs.
var PodsValueBudget = input.ValueBudget{MaxValues: 4 << 20, MaxDepth: input.MaxDepth}

// LoadDir reads a snapshot saved in dir: list.json (a List answer or a whole
// numascope snapshot), allocatable.json or get_allocatable_resources.json (a
// GetAllocatableResources answer), and any get-<namespace>-<name>.json or
// get.json (Get answers). Each file may be in numascope's JSON form or
// protobuf-JSON. Pods found only in Get answers are added; a Get answer that
// differs from the List answer replaces it. An optional pods.json
// (`kubectl get pods -A -o json`) gives the pods' QoS classes, which the API
// does not carry, when opts has WithPods. Snapshot.Notes says what was
// missing, merged or left unread. Errors name the file and the JSON pointer. When dir
// is a file, it is read as list.json.
//
// Every file is opened without blocking and must be a regular file (a FIFO
// or a device is refused with an error naming it); a file over
// input.MaxPodResources, a directory with more than MaxDirEntries entries or
// MaxGetFiles Get answers, and an answer over MaxPods, MaxContainers or
// MaxValues are refused.
func LoadDir(dir string, opts ...LoadOption) (*Snapshot, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("offline snapshot: %s does not exist: give the directory that holds list.json and allocatable.json: %w", dir, err)
		}
		return nil, fmt.Errorf("offline snapshot: %w", err)
	}
	if !st.IsDir() {
		data, err := input.ReadFile(dir, "", input.MaxPodResources)
		if err != nil {
			return nil, fmt.Errorf("offline snapshot: %w", err)
		}
		return decodeSnapshot(data, dir)
	}
	list := func() ([]fs.DirEntry, error) {
		fh, err := os.Open(dir)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return readDir(fh, dir)
	}
	read := func(name string, limit int64) ([]byte, error) {
		return input.ReadFile(filepath.Join(dir, name), "", limit)
	}
	return load(list, read, func(name string) string { return filepath.Join(dir, name) }, opts)
}

// LoadFS is LoadDir for a file system; names in errors are relative to fsys.
func LoadFS(fsys fs.FS, opts ...LoadOption) (*Snapshot, error) {
	list := func() ([]fs.DirEntry, error) {
		f, err := fsys.Open(".")
		if err != nil {
			return nil, err
		}
		defer f.Close()
		dir, ok := f.(fs.ReadDirFile)
		if !ok {
			return nil, errors.New("not a directory")
		}
		return readDir(dir, ".")
	}
	read := func(name string, limit int64) ([]byte, error) {
		return input.ReadFS(fsys, name, name, limit)
	}
	return load(list, read, func(name string) string { return name }, opts)
}

// readDir lists at most MaxDirEntries entries of dir.
func readDir(dir fs.ReadDirFile, name string) ([]fs.DirEntry, error) {
	var all []fs.DirEntry
	for {
		batch, err := dir.ReadDir(256)
		all = append(all, batch...)
		if len(all) > MaxDirEntries {
			return nil, fmt.Errorf("%w: more than %d entries: a snapshot directory holds a few files (list.json, allocatable.json, get-<namespace>-<name>.json, pods.json, sys/); give the directory of one snapshot", ErrTooLarge, MaxDirEntries)
		}
		if err == io.EOF || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name() < all[j].Name() })
	return all, nil
}

func load(list func() ([]fs.DirEntry, error), readFile func(string, int64) ([]byte, error), display func(string) string, opts []LoadOption) (*Snapshot, error) {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	entries, err := list()
	if err != nil {
		return nil, fmt.Errorf("offline snapshot: reading %s: %w", display("."), err)
	}
	var names []string
	has := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		names = append(names, e.Name())
		has[e.Name()] = true
	}
	var gets []string
	for _, n := range names {
		if n == RTEGetFile || (strings.HasPrefix(n, "get-") && strings.HasSuffix(n, ".json")) {
			gets = append(gets, n)
		}
	}
	sort.Strings(gets)
	if !has[ListFile] && len(gets) == 0 {
		return nil, fmt.Errorf("offline snapshot: %s holds none of %s, %s or get-<namespace>-<name>.json: save the kubelet's answers there (for example with `podresources --json > %s` on the node)",
			display("."), ListFile, RTEGetFile, display(ListFile))
	}
	if len(gets) > MaxGetFiles {
		return nil, fmt.Errorf("offline snapshot: %s: %w: %d Get answers, more than %d: save the List answer as %s instead of one file per pod",
			display("."), ErrTooLarge, len(gets), MaxGetFiles, ListFile)
	}
	var errs []error
	budget := int64(maxSnapshotBytes)
	read := func(name string, limit int64) []byte {
		data, err := readFile(name, min(limit, budget))
		if err != nil {
			if errors.Is(err, input.ErrTooLarge) && budget < limit {
				err = fmt.Errorf("%w: the snapshot's files hold more than %s in all: give the snapshot of one node", err, units.Bytes(maxSnapshotBytes))
			}
			errs = append(errs, fmt.Errorf("offline snapshot: %w", err))
			return nil
		}
		budget -= int64(len(data))
		return data
	}

	snap := &Snapshot{}
	if has[ListFile] {
		if data := read(ListFile, input.MaxPodResources); data != nil {
			s, err := decodeSnapshot(data, display(ListFile))
			if err != nil {
				errs = append(errs, err)
			} else {
				snap = s
			}
		}
	} else {
		snap.Notes = append(snap.Notes, fmt.Sprintf("no %s: the pods come from Get answers only", ListFile))
	}

	switch allocName := ""; {
	case has[AllocatableFile] && has[RTEAllocatableFile]:
		errs = append(errs, fmt.Errorf("%s and %s are both present: keep one", display(AllocatableFile), display(RTEAllocatableFile)))
	case has[AllocatableFile] || has[RTEAllocatableFile]:
		allocName = AllocatableFile
		if has[RTEAllocatableFile] {
			allocName = RTEAllocatableFile
		}
		if snap.Allocatable != nil {
			errs = append(errs, fmt.Errorf("%s: %s already holds an allocatable answer: keep one of them", display(allocName), display(ListFile)))
			break
		}
		if data := read(allocName, input.MaxPodResources); data != nil {
			a, err := decodeAllocatable(data, display(allocName))
			if err != nil {
				errs = append(errs, err)
			} else {
				snap.Allocatable = a
			}
		}
	default:
		if snap.Allocatable == nil {
			snap.Notes = append(snap.Notes, fmt.Sprintf("no %s: allocatable and free resources per NUMA node are unknown", AllocatableFile))
		}
	}

	for _, name := range gets {
		if len(errs) > maxProblems {
			break
		}
		data := read(name, input.MaxPodResources)
		if data == nil {
			continue
		}
		p, err := decodePod(data, display(name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if name != RTEGetFile && name != GetFileName(p.Namespace, p.Name) {
			snap.Notes = append(snap.Notes, fmt.Sprintf("%s holds pod %s (expected file name %s)", name, p.Ref(), GetFileName(p.Namespace, p.Name)))
		}
		if old := snap.Pod(p.Namespace, p.Name); old != nil {
			if !reflect.DeepEqual(normalized(*old), normalized(*p)) {
				snap.Notes = append(snap.Notes, fmt.Sprintf("pod %s differs between %s and %s: using %s", p.Ref(), ListFile, name, name))
				q := old.QOSClass
				*old = *p
				if old.QOSClass == "" {
					old.QOSClass = q
				}
			}
			continue
		}
		if has[ListFile] {
			snap.Notes = append(snap.Notes, fmt.Sprintf("pod %s is in %s but not in %s", p.Ref(), name, ListFile))
		}
		if len(snap.Pods) >= MaxPods {
			errs = append(errs, fmt.Errorf("%s: %w: the snapshot names more than %d pods: this is not one node's snapshot", display(name), ErrTooLarge, MaxPods))
			break
		}
		snap.Pods = append(snap.Pods, *p)
	}
	if has[PodsFile] {
		// read and bounded even when it is not parsed: a FIFO or a
		// runaway file in a snapshot is refused by name
		if data := read(PodsFile, maxPodsFile); data != nil {
			if err := input.CheckValues(data, display(PodsFile), PodsValueBudget); err != nil {
				errs = append(errs, fmt.Errorf("%w: keep only this node's pods (kubectl get pods -A --field-selector spec.nodeName=NODE -o json)", err))
			} else if o.pods == nil {
				snap.Notes = append(snap.Notes, fmt.Sprintf("%s not read: the pods' QoS classes are unknown (load the snapshot with WithPods, as numascope's evidence does)", display(PodsFile)))
			} else if len(snap.Pods) == 0 {
				snap.Notes = append(snap.Notes, fmt.Sprintf("%s not read: the snapshot holds no pod to give a QoS class", display(PodsFile)))
			} else if classes, err := o.pods(data); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", display(PodsFile), err))
			} else if err := snap.SetQOSClasses(classes); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", display(PodsFile), err))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return snap, nil
}

// normalized copies p with sorted lists, empty lists as nil and no QoS class,
// for comparing two answers about the same pod.
func normalized(p PodResources) PodResources {
	s := Snapshot{Pods: []PodResources{clonePod(p)}}
	s.Sort()
	q := s.Pods[0]
	q.QOSClass = ""
	if len(q.CPUIDs) == 0 {
		q.CPUIDs = nil
	}
	if len(q.Memory) == 0 {
		q.Memory = nil
	}
	for i := range q.Containers {
		c := &q.Containers[i]
		if len(c.CPUIDs) == 0 {
			c.CPUIDs = nil
		}
		if len(c.Memory) == 0 {
			c.Memory = nil
		}
		if len(c.Devices) == 0 {
			c.Devices = nil
		}
		if len(c.DynamicResources) == 0 {
			c.DynamicResources = nil
		}
	}
	return q
}

func clonePod(p PodResources) PodResources {
	q := p
	q.CPUIDs = append([]int(nil), p.CPUIDs...)
	q.Memory = cloneMemory(p.Memory)
	q.Containers = make([]ContainerResources, len(p.Containers))
	for i, c := range p.Containers {
		c.CPUIDs = append([]int(nil), c.CPUIDs...)
		c.Memory = cloneMemory(c.Memory)
		devs := make([]ContainerDevices, len(c.Devices))
		for j, d := range c.Devices {
			d.DeviceIDs = append([]string(nil), d.DeviceIDs...)
			d.NUMANodes = append([]int(nil), d.NUMANodes...)
			devs[j] = d
		}
		c.Devices = devs
		q.Containers[i] = c
	}
	return q
}

func cloneMemory(m []ContainerMemory) []ContainerMemory {
	if m == nil {
		return nil
	}
	out := make([]ContainerMemory, len(m))
	for i, b := range m {
		b.NUMANodes = append([]int(nil), b.NUMANodes...)
		out[i] = b
	}
	return out
}
