// Package sysfs reads a machine's NUMA and CPU topology from a sysfs tree
// (/sys on a node, or a copy of it) through an fs.FS, with bounds: every
// file is read through a small limit, FIFOs and devices are refused, CPU
// lists go through the bounded cpulist parser, and directory listings are
// capped. It is the one sysfs reader behind topomgr.ReadMachine,
// evidence.ParseSysfs and podresources.ReadSysfsCPUMap.
package sysfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/input"
	"k8s.io/utils/cpuset"
)

// Bounds on what one tree may hold.
const (
	// MaxNodes caps the nodeN directories read (Linux allows at most 1024 NUMA nodes).
	MaxNodes = 1024
	// MaxEntries caps the entries listed in one directory.
	MaxEntries = 4096
)

// ErrNoNodes is wrapped when the tree has no devices/system/node directory
// or no nodeN directory in it.
var ErrNoNodes = errors.New("no NUMA node directory")

// Node is one NUMA node.
type Node struct {
	ID   int
	CPUs cpuset.CPUSet
	// MemTotal is MemTotal from the node's meminfo, in bytes (0 when absent).
	MemTotal uint64
	// HugePages maps a page size in KiB to the number of pages (nr_hugepages).
	HugePages map[uint64]uint64
	// Distances is the node's distance row (nil when absent).
	Distances []uint64
}

// CPU is one CPU's place from cpu/cpuN/topology.
type CPU struct {
	ID int
	// Socket is physical_package_id (0 when absent or -1).
	Socket int
	// SocketKnown is false when physical_package_id is absent or -1.
	SocketKnown bool
	// Siblings is thread_siblings_list (empty when absent).
	Siblings cpuset.CPUSet
}

// Tree is what Read found.
type Tree struct {
	// Base is the directory in the FS that holds node/ and cpu/.
	Base  string
	Nodes []Node
	// CPUs has one entry per CPU of the nodes, ascending, when Options.CPUs is set.
	CPUs []CPU
	// Online is cpu/online; OnlineKnown is false when the file is absent.
	Online      cpuset.CPUSet
	OnlineKnown bool
}

// Options says what to read beyond each node's cpulist.
type Options struct {
	// Memory reads meminfo and hugepages of each node.
	Memory bool
	// CPUs reads each CPU's topology directory.
	CPUs bool
}

// Bases are the places, in order, where Read looks for node/: a copy of /sys,
// of /sys/devices/system, or a tree rooted at /sys itself.
var Bases = []string{"devices/system", "sys/devices/system", "."}

// Read reads the tree in fsys. label names the tree in errors (the path the
// user gave); every error names the file inside it too.
func Read(fsys fs.FS, label string, o Options) (*Tree, error) {
	t := &Tree{}
	for _, b := range Bases {
		if st, err := fs.Stat(fsys, path.Join(b, "node")); err == nil && st.IsDir() {
			t.Base = b
			break
		}
	}
	if t.Base == "" {
		return nil, fmt.Errorf("%s: %w: no devices/system/node directory (give /sys or a copy of /sys/devices/system/node and /sys/devices/system/cpu)", label, ErrNoNodes)
	}
	r := reader{fsys: fsys, label: label}
	nodeDir := path.Join(t.Base, "node")
	entries, err := r.readDir(nodeDir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "node")
		if !ok || !e.IsDir() {
			continue
		}
		id, err := strconv.Atoi(rest)
		if err != nil || id < 0 || strconv.Itoa(id) != rest {
			continue
		}
		if len(t.Nodes) == MaxNodes {
			return nil, fmt.Errorf("%s: %s: more than %d NUMA node directories", label, nodeDir, MaxNodes)
		}
		n, err := r.node(path.Join(nodeDir, e.Name()), id, o)
		if err != nil {
			return nil, err
		}
		t.Nodes = append(t.Nodes, n)
	}
	if len(t.Nodes) == 0 {
		return nil, fmt.Errorf("%s: %w: %s holds no nodeN directory", label, ErrNoNodes, nodeDir)
	}
	sort.Slice(t.Nodes, func(i, j int) bool { return t.Nodes[i].ID < t.Nodes[j].ID })
	all := cpuset.New()
	for _, n := range t.Nodes {
		all = all.Union(n.CPUs)
	}
	if all.Size() > cpulist.MaxCPUs {
		return nil, fmt.Errorf("%s: the nodes hold %d CPUs, more than %d", label, all.Size(), cpulist.MaxCPUs)
	}
	if s, ok, err := r.cpuList(path.Join(t.Base, "cpu", "online")); err != nil {
		return nil, err
	} else if ok {
		t.Online, t.OnlineKnown = s, true
	}
	if o.CPUs {
		for _, c := range all.List() {
			cpu, err := r.cpu(path.Join(t.Base, "cpu", fmt.Sprintf("cpu%d", c), "topology"), c)
			if err != nil {
				return nil, err
			}
			t.CPUs = append(t.CPUs, cpu)
		}
	}
	return t, nil
}

type reader struct {
	fsys  fs.FS
	label string
}

func (r reader) name(p string) string { return r.label + ": " + p }

// file reads a small attribute file; ok is false when it does not exist.
func (r reader) file(p string) (s string, ok bool, err error) {
	b, err := input.ReadFS(r.fsys, p, r.name(p), input.MaxSysfsFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSpace(string(b)), true, nil
}

func (r reader) cpuList(p string) (cpuset.CPUSet, bool, error) {
	s, ok, err := r.file(p)
	if err != nil || !ok {
		return cpuset.New(), ok, err
	}
	set, err := cpulist.Parse(s)
	if err != nil {
		return cpuset.New(), false, fmt.Errorf("%s: %w", r.name(p), err)
	}
	return set, true, nil
}

func (r reader) uint(p string) (uint64, bool, error) {
	s, ok, err := r.file(p)
	if err != nil || !ok {
		return 0, ok, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %q is not a non-negative integer", r.name(p), cut(s))
	}
	return v, true, nil
}

// readDir lists at most MaxEntries entries of a directory, sorted by name.
func (r reader) readDir(p string) ([]fs.DirEntry, error) {
	f, err := r.fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.name(p), err)
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, fmt.Errorf("%s: not a directory", r.name(p))
	}
	entries, err := d.ReadDir(MaxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", r.name(p), err)
	}
	if len(entries) > MaxEntries {
		return nil, fmt.Errorf("%s: more than %d entries: this is not a sysfs directory", r.name(p), MaxEntries)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

func (r reader) node(dir string, id int, o Options) (Node, error) {
	n := Node{ID: id}
	set, ok, err := r.cpuList(path.Join(dir, "cpulist"))
	if err != nil {
		return n, err
	}
	if !ok {
		return n, fmt.Errorf("%s: missing (copy the node directories with their files)", r.name(path.Join(dir, "cpulist")))
	}
	n.CPUs = set
	if d, ok, err := r.file(path.Join(dir, "distance")); err != nil {
		return n, err
	} else if ok {
		f := strings.Fields(d)
		if len(f) > MaxNodes {
			return n, fmt.Errorf("%s: more than %d distances", r.name(path.Join(dir, "distance")), MaxNodes)
		}
		for _, s := range f {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return n, fmt.Errorf("%s: %q is not a distance", r.name(path.Join(dir, "distance")), cut(s))
			}
			n.Distances = append(n.Distances, v)
		}
	}
	if !o.Memory {
		return n, nil
	}
	if mi, ok, err := r.file(path.Join(dir, "meminfo")); err != nil {
		return n, err
	} else if ok {
		for _, line := range strings.Split(mi, "\n") {
			// "Node 0 MemTotal:       32596572 kB"
			_, rest, found := strings.Cut(line, "MemTotal:")
			if !found {
				continue
			}
			f := strings.Fields(rest)
			if len(f) != 2 || f[1] != "kB" {
				return n, fmt.Errorf("%s: MemTotal %q: want a number of kB", r.name(path.Join(dir, "meminfo")), cut(rest))
			}
			kb, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil || kb > 1<<53 {
				return n, fmt.Errorf("%s: MemTotal %q is not a size in kB", r.name(path.Join(dir, "meminfo")), cut(f[0]))
			}
			n.MemTotal = kb * 1024
			break
		}
	}
	hp := path.Join(dir, "hugepages")
	if st, err := fs.Stat(r.fsys, hp); err == nil && st.IsDir() {
		entries, err := r.readDir(hp)
		if err != nil {
			return n, err
		}
		for _, e := range entries {
			s, ok := strings.CutPrefix(e.Name(), "hugepages-")
			if !ok {
				continue
			}
			s, ok = strings.CutSuffix(s, "kB")
			if !ok {
				continue
			}
			kib, err := strconv.ParseUint(s, 10, 64)
			if err != nil || kib == 0 || kib > 1<<40 {
				continue
			}
			cnt, ok, err := r.uint(path.Join(hp, e.Name(), "nr_hugepages"))
			if err != nil {
				return n, err
			}
			if !ok {
				continue
			}
			if cnt > (1<<63)/(kib*1024) {
				return n, fmt.Errorf("%s: %d pages of %d KiB overflow a byte count", r.name(path.Join(hp, e.Name(), "nr_hugepages")), cnt, kib)
			}
			if n.HugePages == nil {
				n.HugePages = map[uint64]uint64{}
			}
			n.HugePages[kib] = cnt
		}
	}
	return n, nil
}

func (r reader) cpu(dir string, id int) (CPU, error) {
	c := CPU{ID: id, Siblings: cpuset.New()}
	if v, ok, err := r.uint(path.Join(dir, "physical_package_id")); err != nil {
		// The kernel writes -1 where the firmware gives no package id.
		if s, _, ferr := r.file(path.Join(dir, "physical_package_id")); ferr != nil || s != "-1" {
			return c, err
		}
	} else if ok {
		if v > 1<<20 {
			return c, fmt.Errorf("%s: %d is not a plausible package id", r.name(path.Join(dir, "physical_package_id")), v)
		}
		c.Socket, c.SocketKnown = int(v), true
	}
	sib, ok, err := r.cpuList(path.Join(dir, "thread_siblings_list"))
	if err != nil {
		return c, err
	}
	if ok {
		c.Siblings = sib
	}
	return c, nil
}

func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
