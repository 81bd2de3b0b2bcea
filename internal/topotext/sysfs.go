package topotext

import (
	"path"
	"regexp"
	"strings"
)

// sysfsLeaves are the files of a sysfs listing that are read; others are
// skipped.
var sysfsLeaves = map[string]bool{
	"cpulist": true, "distance": true, "meminfo": true, "nr_hugepages": true, "free_hugepages": true,
	"core_id": true, "physical_package_id": true, "thread_siblings_list": true, "core_siblings_list": true,
	"die_id": true, "cluster_id": true, "core_cpus_list": true, "package_cpus_list": true,
	"online": true, "possible": true, "has_cpu": true, "has_memory": true, "has_normal_memory": true,
	"present": true, "offline": true, "numa_node": true, "cpumap": true,
}

var (
	sysNodeRE = regexp.MustCompile(`(^|/)(node/)?(node\d+/.*)$`)
	sysCPURE  = regexp.MustCompile(`(^|/)(cpu/)?(cpu\d+/topology/.*)$`)
	sysTopRE  = regexp.MustCompile(`(^|/)((node|cpu)/(online|possible|has_cpu|has_memory|has_normal_memory|present|offline))$`)
)

// maxLeaf bounds the length of a file name looked up in sysfsLeaves.
const maxLeaf = 24

// maxListingFiles caps the files of one listing.
const maxListingFiles = 1 << 17

// parseSysfsListing reads `grep . /sys/devices/system/node/node*/cpulist
// ...` output: "path:value" lines, the path with or without a root
// prefix (/sys/devices/system/, a snapshot directory, or relative to
// node/ or cpu/). The files are put in a tree read like a sysfs copy.
// Lines for other files (/sys/bus/pci/devices/*/numa_node) are noted.
func parseSysfsListing(ls []string) (*Topology, bool, error) {
	t := &Topology{Format: "sysfs listing"}
	files := map[string][]string{}
	unknownNUMA := 0
	cpulists := 0
	for _, l := range ls {
		l = strings.TrimSpace(l)
		p, v, ok := splitListing(l)
		if !ok {
			continue
		}
		if path.Base(p) == "numa_node" {
			if strings.TrimSpace(v) == "-1" {
				unknownNUMA++
			}
			continue
		}
		rel := ""
		if m := sysNodeRE.FindStringSubmatch(p); m != nil {
			rel = "devices/system/node/" + m[3]
		} else if m := sysCPURE.FindStringSubmatch(p); m != nil {
			rel = "devices/system/cpu/" + m[3]
		} else if m := sysTopRE.FindStringSubmatch(p); m != nil {
			rel = "devices/system/" + m[2]
		} else {
			continue
		}
		rel = path.Clean(rel)
		if !fsValid(rel) {
			continue
		}
		if _, ok := files[rel]; !ok && len(files) == maxListingFiles {
			continue
		}
		if path.Base(rel) == "cpulist" {
			cpulists++
		}
		files[rel] = append(files[rel], v)
	}
	if cpulists == 0 {
		return nil, false, nil
	}
	data := make(map[string][]byte, len(files))
	for p, vs := range files {
		data[p] = []byte(strings.Join(vs, "\n") + "\n")
	}
	t.FS = newMemFS(data)
	if unknownNUMA > 0 {
		t.warn("%d devices have numa_node -1: their NUMA node is unknown (not node 0)", unknownNUMA)
	}
	return t, true, nil
}

var catRE = regexp.MustCompile(`^(\[[^\]]*\][$#]|\S*[$#])\s*(sudo\s+)?cat\s+(\S+)\s*$`)

// catListing turns `$ cat /sys/.../node0/cpulist` prompts, each followed
// by the file's lines, into path:value lines.
func catListing(data []byte) []string {
	var out []string
	file := ""
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(strings.TrimRight(l, "\r"))
		for strings.HasPrefix(l, ">") {
			l = strings.TrimSpace(l[1:])
		}
		if len(l) < 4096 {
			if m := catRE.FindStringSubmatch(l); m != nil {
				file = ""
				if p := m[3]; sysfsLeaves[path.Base(p)] && strings.Contains(p, "/") {
					file = p
				}
				continue
			}
		}
		if l == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "$") || strings.HasPrefix(l, "[") {
			file = ""
			continue
		}
		if file != "" && len(out) < maxListingFiles {
			out = append(out, file+":"+l)
		}
	}
	return out
}

// splitListing splits "path:value" at the colon after a known file name
// (PCI addresses in paths hold colons too).
func splitListing(l string) (p, v string, ok bool) {
	if !strings.Contains(l, "/") {
		return "", "", false
	}
	slash := -1
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '/':
			slash = i
		case ':':
			if i-slash <= maxLeaf && sysfsLeaves[l[slash+1:i]] {
				return l[:i], l[i+1:], true
			}
		}
	}
	return "", "", false
}

func fsValid(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return true
}
