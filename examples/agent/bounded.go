package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/podresources"
)

// limits bound what one round reads. The defaults fit a node with 10,000
// pods in well under the DaemonSet's memory limit; each is a flag.
type limits struct {
	// state is the largest checkpoint file read (--max-state-size).
	state int64
	// podResources is the largest PodResources answer accepted, per call,
	// and the largest --snapshot (--max-podresources-size).
	podResources int64
	// pods is the most pods one answer may list (--max-pods).
	pods int
	// config is the largest kubelet configuration file read.
	config int64
}

// withDefaults fills the zero limits with the defaults.
func (l limits) withDefaults() limits {
	if l.state <= 0 {
		l.state = defaultMaxStateSize
	}
	if l.podResources <= 0 {
		l.podResources = defaultMaxPodResourcesSize
	}
	if l.pods <= 0 {
		l.pods = defaultMaxPods
	}
	if l.config <= 0 {
		l.config = maxConfigSize
	}
	return l
}

// Defaults of the limits. A node with 10,000 pods writes checkpoints under
// 1 MiB and gets a PodResources answer of 0.5 to 3 MiB (50 to 300 bytes a
// pod); the kubelet's own --max-pods default is 110. An answer costs about 25
// times its size while it is received and converted, so 3 MiB keeps even a
// refused answer under 90 MB.
const (
	defaultMaxStateSize        = 4 << 20
	defaultMaxPodResourcesSize = 3 << 20
	defaultMaxPods             = 20000
	maxConfigSize              = 1 << 20
	maxConfigValues            = 100000
	// maxNotes bounds the snapshot notes copied into a report.
	maxNotes = 20
	// maxSysfsEntries bounds a sysfs directory listing; maxNUMANodes the
	// node<N> directories read (Linux allows 1024).
	maxSysfsEntries = 4096
	maxNUMANodes    = 1024
	// maxSnapshotEntries bounds the listing of a --snapshot directory.
	maxSnapshotEntries = 10000
)

// errTooManyPods is wrapped when a PodResources answer lists more pods than
// --max-pods.
var errTooManyPods = errors.New("too many pods")

// readDirN lists at most n entries of dir, refusing a larger directory.
func readDirN(dir, what string, n int) ([]fs.DirEntry, error) {
	fh, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	entries, err := fh.ReadDir(n + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(entries) > n {
		return nil, fmt.Errorf("%s %s: %w: more than %d entries", what, dir, input.ErrTooLarge, n)
	}
	return entries, nil
}

// readSysfs reads the NUMA layout under root (a sysfs root such as /sys):
// the CPU list of every node<N>, parsed with the bounded CPU-list parser,
// and a copy of the files evidence.ParseSysfs reads, each read without
// blocking and through input.MaxSysfsFile, with every CPU list in it checked
// the same way. The copy is what the diagnosis parses, so nothing unbounded
// reaches it.
func readSysfs(root string) (podresources.CPUMap, fs.FS, error) {
	base := filepath.Join(root, "devices", "system")
	nodeDir := filepath.Join(base, "node")
	entries, err := readDirN(nodeDir, "sysfs", maxSysfsEntries)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no NUMA information at %s: pass the host's sysfs root: %w", nodeDir, err)
		}
		return nil, nil, fmt.Errorf("reading NUMA nodes: %w", err)
	}
	copyFS := fstest.MapFS{}
	read := func(p string) (string, error) {
		data, err := input.ReadFile(p, "sysfs", input.MaxSysfsFile)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(data)), nil
	}
	rel := func(p string) string {
		r, _ := filepath.Rel(root, p)
		return filepath.ToSlash(r)
	}
	put := func(p, s string) { copyFS[rel(p)] = &fstest.MapFile{Data: []byte(s + "\n"), Mode: 0o444} }
	cpus := podresources.CPUMap{}
	nodes := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "node")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || strconv.Itoa(n) != rest {
			continue
		}
		if nodes++; nodes > maxNUMANodes {
			return nil, nil, fmt.Errorf("sysfs %s: more than %d NUMA nodes", nodeDir, maxNUMANodes)
		}
		dir := filepath.Join(nodeDir, e.Name())
		list, err := read(filepath.Join(dir, "cpulist"))
		if err != nil {
			return nil, nil, fmt.Errorf("reading NUMA node %d's CPU list: %w", n, err)
		}
		set, err := cpulist.Parse(list)
		if err != nil {
			return nil, nil, fmt.Errorf("sysfs %s: %w", filepath.Join(dir, "cpulist"), err)
		}
		if len(cpus)+set.Size() > cpulist.MaxCPUs {
			return nil, nil, fmt.Errorf("sysfs %s: %w: the NUMA nodes list more than %d CPUs", nodeDir, cpulist.ErrTooLarge, cpulist.MaxCPUs)
		}
		for _, c := range set.List() {
			if prev, dup := cpus[c]; dup {
				return nil, nil, fmt.Errorf("sysfs %s: CPU %d is listed on NUMA nodes %d and %d: each CPU belongs to one node", nodeDir, c, prev, n)
			}
			cpus[c] = n
		}
		put(filepath.Join(dir, "cpulist"), set.String())
		for _, name := range []string{"meminfo", "distance"} {
			if s, err := read(filepath.Join(dir, name)); err == nil {
				put(filepath.Join(dir, name), s)
			}
		}
		hp := filepath.Join(dir, "hugepages")
		if sizes, err := readDirN(hp, "sysfs", 64); err == nil {
			for _, h := range sizes {
				p := filepath.Join(hp, h.Name(), "nr_hugepages")
				if s, err := read(p); err == nil {
					put(p, s)
				}
			}
		}
	}
	if nodes == 0 {
		return nil, nil, fmt.Errorf("no node<N> directories in %s: is this a sysfs root?", nodeDir)
	}
	for _, p := range []string{filepath.Join(base, "cpu", "online"), filepath.Join(base, "cpu", "cpu0", "topology", "thread_siblings_list")} {
		if s, err := read(p); err == nil {
			if set, err := cpulist.Parse(s); err == nil {
				put(p, set.String())
			}
		}
	}
	return cpus, copyFS, nil
}

// boundedFS is a directory for podresources.LoadFS that reads each file
// without blocking (refusing FIFOs, devices and sockets), counts its values
// before the decoder sees it, and refuses to read more than limit bytes in
// all.
type boundedFS struct {
	root, what string
	limit      int64

	mu   sync.Mutex
	read int64
}

func (b *boundedFS) label(name string) string { return b.what + " " + filepath.Join(b.root, name) }

func (b *boundedFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return os.Open(b.root)
	}
	f, err := input.Open(filepath.Join(b.root, filepath.FromSlash(name)), b.what)
	if err != nil {
		return nil, err
	}
	return &countedFile{File: f, fs: b, name: name}, nil
}

// countedFile counts what is read from a file of a boundedFS toward the
// limit of all its files together.
type countedFile struct {
	*os.File
	fs   *boundedFS
	name string
}

func (f *countedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	b := f.fs
	b.mu.Lock()
	b.read += int64(n)
	over := b.read > b.limit
	b.mu.Unlock()
	if over {
		return n, fmt.Errorf("%w: the snapshot's files together are over %s; raise --max-podresources-size", input.ErrTooLarge, units.Bytes(b.limit))
	}
	return n, err
}

func (b *boundedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return readDirN(filepath.Join(b.root, filepath.FromSlash(path.Clean(name))), b.what, maxSnapshotEntries)
}

func (b *boundedFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	b.mu.Lock()
	left := b.limit - b.read
	b.mu.Unlock()
	if left < 0 {
		left = 0
	}
	data, err := input.ReadFile(filepath.Join(b.root, filepath.FromSlash(name)), b.what, left)
	if err != nil {
		if errors.Is(err, input.ErrTooLarge) {
			return nil, fmt.Errorf("%s: %w: the snapshot's files together are over %s; raise --max-podresources-size", b.label(name), input.ErrTooLarge, units.Bytes(b.limit))
		}
		return nil, err
	}
	b.mu.Lock()
	b.read += int64(len(data))
	b.mu.Unlock()
	if err := input.CheckValues(data, b.label(name), input.ValueBudget{}); err != nil {
		return nil, err
	}
	return data, nil
}
