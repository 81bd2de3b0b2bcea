package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseMachineInfo(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "troubleshooting-page", "machine-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMachineInfo("mi.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Nodes) != 2 || m.Nodes[1].CPUs != "24-47" || m.Nodes[0].Memory != 134987354112 || m.OnlineCPUs != "0-47" || m.CPUsPerCore != 1 {
		t.Errorf("machine = %+v", m)
	}
	if m.NodeOfCPU(30) != 1 || m.NodeOfCPU(99) != -1 {
		t.Errorf("NodeOfCPU")
	}
	if _, ok := m.Nodes[0].HugePages["hugepages-1Gi"]; !ok {
		t.Errorf("hugepages = %v", m.Nodes[0].HugePages)
	}
	for in, want := range map[string]string{`{}`: "/topology", `{"topology":[{}]}`: "/topology/0/node_id", `[`: "machine-info"} {
		if _, err := ParseMachineInfo("mi.json", []byte(in)); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "mi.json") {
			t.Errorf("%s: err = %v", in, err)
		}
	}
}

func TestParseSysfs(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/devices/system/node/node0/cpulist":                                    {Data: []byte("0-3,8-11\n")},
		"sys/devices/system/node/node0/meminfo":                                    {Data: []byte("Node 0 MemTotal:       65536000 kB\nNode 0 MemFree: 1 kB\n")},
		"sys/devices/system/node/node0/distance":                                   {Data: []byte("10 21\n")},
		"sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages": {Data: []byte("4\n")},
		"sys/devices/system/node/node1/cpulist":                                    {Data: []byte("4-7,12-15\n")},
		"sys/devices/system/node/node1/meminfo":                                    {Data: []byte("Node 1 MemTotal:       65536000 kB\n")},
		"sys/devices/system/node/possible":                                         {Data: []byte("0-1\n")},
		"sys/devices/system/cpu/online":                                            {Data: []byte("0-13\n")},
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list":                {Data: []byte("0,8\n")},
	}
	m, err := ParseSysfs("snap", fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Nodes) != 2 || m.Nodes[0].CPUs != "0-3,8-11" || m.Nodes[0].Memory != 65536000*1024 || m.OnlineCPUs != "0-13" || m.CPUsPerCore != 2 ||
		m.Nodes[0].HugePages["hugepages-1Gi"] != 4<<30 || len(m.Nodes[0].Distances) != 2 {
		t.Errorf("machine = %+v", m)
	}
	if _, err := ParseSysfs("empty", fstest.MapFS{}); err == nil || !strings.Contains(err.Error(), "devices/system/node") {
		t.Errorf("err = %v", err)
	}
	bad := fstest.MapFS{"node/node0/cpulist": {Data: []byte("x")}}
	if _, err := ParseSysfs("bad", bad); err == nil || !strings.Contains(err.Error(), "node/node0/cpulist") {
		t.Errorf("err = %v", err)
	}
}

func FuzzParseMachineInfo(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "troubleshooting-page", "machine-info.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"topology":[{"node_id":0,"cores":[{"thread_ids":[0,1]}],"hugepages":[{"page_size":2048,"num_pages":3}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMachineInfo("fuzz", data)
		if err != nil {
			return
		}
		_ = m.AllCPUs()
	})
}
