package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func start(t *testing.T, opts ...podresourcestest.Option) *podresourcestest.Server {
	t.Helper()
	s, err := podresourcestest.StartInDir(podresourcestest.Sample(), opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// fakeSysfs writes the sample node's NUMA CPU lists under a sysfs root.
func fakeSysfs(t *testing.T, root string) {
	t.Helper()
	for node, list := range podresourcestest.SampleCPULists {
		dir := filepath.Join(root, "devices", "system", "node", "node"+string(rune('0'+node)))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cpulist"), []byte(list+"\n"), 0o644))
	}
}

func TestLiveTable(t *testing.T) {
	s := start(t)
	sys := t.TempDir()
	fakeSysfs(t, sys)
	code, out, errOut := runArgs(t, "--socket", "unix://"+s.Socket(), "--sysfs", sys)
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut)
	for _, want := range []string{
		"3 pods from socket unix://",
		"NUMA node 0\n  cpus             allocatable 1-7 (7)   taken 2-3 (2)",
		"NUMA node 1",
		"shop/db postgres  cpus 8-11",
		"kube-system/coredns-7d8f coredns (QoS class unknown): cpus none reported (QoS class unknown)",
	} {
		assert.Contains(t, out, want, "output")
	}
}

func TestLiveJSON(t *testing.T) {
	s := start(t)
	code, out, errOut := runArgs(t, "--socket", s.Socket(), "--json")
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut)
	var got struct {
		Pods []struct {
			Name       string
			Namespace  string
			Containers []struct {
				Name    string
				CPUIDs  []int `json:"cpuIds"`
				Devices []struct {
					ResourceName string `json:"resourceName"`
					NUMANodes    []int  `json:"numaNodes"`
				}
			}
		}
		Allocatable *struct {
			CPUIDs []int `json:"cpuIds"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), "the --json output:\n%s", out)
	require.Len(t, got.Pods, 3, "pods in the JSON")
	require.NotNil(t, got.Allocatable, "allocatable in the JSON")
	require.Len(t, got.Allocatable.CPUIDs, 15, "allocatable CPUs in the JSON")
	require.GreaterOrEqual(t, len(got.Pods[0].Containers), 2, "containers of pod 0")
	require.NotEmpty(t, got.Pods[0].Containers[1].Devices, "devices of container 1")
	dev := got.Pods[0].Containers[1].Devices[0]
	if assert.NotEmpty(t, dev.NUMANodes, "NUMA node 0 lost: %+v", dev) {
		assert.Equal(t, 0, dev.NUMANodes[0], "NUMA node of the device")
	}
	// The JSON output is an offline snapshot in its own right.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "list.json"), []byte(out), 0o644))
	code, _, errOut = runArgs(t, "--from", dir, "--json")
	assert.Equal(t, 0, code, "reading the JSON output back: exit code; stderr: %s", errOut)
}

func TestLivePod(t *testing.T) {
	s := start(t)
	code, out, errOut := runArgs(t, "--socket", s.Socket(), "--pod", "shop/db", "--json")
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut)
	snap, err := podresources.Decode([]byte(out))
	require.NoError(t, err)
	if assert.Len(t, snap.Pods, 1, "pods from --pod") {
		assert.Equal(t, "db", snap.Pods[0].Name, "pod from --pod")
	}
	assert.NotNil(t, snap.Allocatable, "allocatable from --pod")
	assert.EqualValues(t, 1, s.Calls(podresourcestest.Get), "Get calls for --pod")
	assert.EqualValues(t, 0, s.Calls(podresourcestest.List), "List calls for --pod")
}

func TestOffline(t *testing.T) {
	for _, form := range []string{"numascope", "protojson", "protonames", "rte"} {
		dir := filepath.Join("..", "..", "podresources", "testdata", "offline", form)
		code, out, errOut := runArgs(t, "--from", dir)
		require.Equal(t, 0, code, "%s: exit code; stderr: %s", form, errOut)
		// Only the numascope form comes with a copy of the node's sysfs.
		if form == "numascope" {
			assert.Empty(t, errOut, "%s: stderr", form)
			assert.Contains(t, out, "NUMA node 1\n  cpus             allocatable 8-15 (8)", "%s: output", form)
			continue
		}
		assert.Contains(t, out, "3 pods from", "%s: output", form)
		assert.Contains(t, errOut, "CPUs are shown without NUMA node: "+dir+" has no sys/devices/system/node", "%s: stderr", form)
	}
	// A copy of the node's sysfs next to the answers gives the CPU map.
	dir := t.TempDir()
	for _, f := range []string{"list.json", "allocatable.json", "get-shop-db.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "podresources", "testdata", "offline", "protojson", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	fakeSysfs(t, filepath.Join(dir, "sys"))
	code, out, errOut := runArgs(t, "--from", dir, "--pod", "default/web")
	require.Equal(t, 0, code, "exit code (stderr %s)", errOut)
	require.Empty(t, errOut, "stderr")
	assert.Contains(t, out, "1 pod from", "output")
	assert.Contains(t, out, "default/web app  cpus 2-3", "output")
}

func TestErrors(t *testing.T) {
	s := start(t, podresourcestest.WithoutMethod(podresourcestest.Get))
	missing := filepath.Join(t.TempDir(), "kubelet.sock")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"missing socket", []string{"--socket", missing}, 1, []string{"PodResources socket not found: nothing at " + missing, "kubelet must be running"}},
		{"Get unimplemented", []string{"--socket", s.Socket(), "--pod", "default/web"}, 1, []string{"does not implement Get", "KubeletPodResourcesGet"}},
		{"bad --pod", []string{"--pod", "web"}, 2, []string{"give NAMESPACE/NAME"}},
		{"bad flag", []string{"--nope"}, 2, []string{"flag provided but not defined"}},
		{"extra argument", []string{"x"}, 2, []string{`unexpected argument "x"`}},
		{"missing dir", []string{"--from", "/nonexistent/snap"}, 1, []string{"/nonexistent/snap does not exist"}},
		{"pod not in dir", []string{"--from", filepath.Join("..", "..", "podresources", "testdata", "offline", "rte"), "--pod", "a/b"}, 1, []string{"pod a/b is not in", "default/web"}},
		{"tcp socket", []string{"--socket", "tcp://10.0.0.1:10250"}, 1, []string{`scheme "tcp" is not supported`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runArgs(t, tc.args...)
			assert.Equal(t, tc.code, code, "exit code; stderr: %s", errOut)
			for _, w := range tc.want {
				assert.Contains(t, errOut, w, "stderr")
			}
		})
	}
	// Unknown pod, the kubelet's way.
	s2 := start(t)
	code, _, errOut := runArgs(t, "--socket", s2.Socket(), "--pod", "default/gone")
	assert.Equal(t, 1, code, "unknown pod: exit code")
	assert.Contains(t, errOut, "pod not found on this node: pod default/gone", "unknown pod: stderr")
}

func TestQOSFromKubectl(t *testing.T) {
	s := start(t)
	pods := filepath.Join(t.TempDir(), "pods.json")
	require.NoError(t, os.WriteFile(pods, []byte(`{"apiVersion":"v1","kind":"List","items":[
	  {"apiVersion":"v1","kind":"Pod","metadata":{"name":"coredns-7d8f","namespace":"kube-system"},"spec":{"containers":[{"name":"coredns"}]},"status":{"qosClass":"Burstable"}}]}`), 0o644))
	code, out, errOut := runArgs(t, "--socket", s.Socket(), "--qos", pods)
	require.Equal(t, 0, code, "exit code; stderr: %s", errOut)
	assert.Contains(t, out, "kube-system/coredns-7d8f coredns (Burstable): cpus not reported for this QoS class", "output")
	require.NoError(t, os.WriteFile(pods, []byte(`{"kind":"Deployment"}`), 0o644))
	code, _, errOut = runArgs(t, "--socket", s.Socket(), "--qos", pods)
	assert.Equal(t, 1, code, "bad --qos file: exit code")
	assert.Contains(t, errOut, `kind "Deployment"`, "bad --qos file: stderr")
}

// Every flag that names a file refuses a hostile one quickly, with the
// flag's name, the path and what is wrong, and a non-zero exit code.
func TestHostileFlags(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	fifoSnap := filepath.Join(dir, "snap")
	require.NoError(t, os.Mkdir(fifoSnap, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifoSnap, "list.json"), 0o600))
	array := filepath.Join(dir, "array.json")
	require.NoError(t, os.WriteFile(array, []byte("["+strings.Repeat("{},", 20<<20/3)+"{}]"), 0o600))
	var b strings.Builder
	b.WriteString(`{"podResources":[`)
	for i := range 1_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"p%d","namespace":"n"}`, i)
	}
	b.WriteString(`]}`)
	million := filepath.Join(dir, "million.json")
	require.NoError(t, os.WriteFile(million, []byte(b.String()), 0o600))
	snap := filepath.Join("..", "..", "podresources", "testdata", "offline", "numascope")
	missing := filepath.Join(dir, "nope")

	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{name: "--qos FIFO", args: []string{"--from", snap, "--qos", fifo}, code: 1, want: []string{"--qos " + fifo, "a FIFO (named pipe)"}},
		{name: "--qos /dev/zero", args: []string{"--from", snap, "--qos", "/dev/zero"}, code: 1, want: []string{"--qos /dev/zero", "a character device"}},
		{name: "--qos directory", args: []string{"--from", snap, "--qos", dir}, code: 1, want: []string{"--qos " + dir, "a directory"}},
		{name: "--qos missing", args: []string{"--from", snap, "--qos", missing}, code: 1, want: []string{"--qos " + missing, "no such file or directory"}},
		{name: "--qos 20 MB JSON array", args: []string{"--from", snap, "--qos", array}, code: 1, want: []string{"--qos " + array, "value budget", "--field-selector spec.nodeName=NODE"}},
		{name: "--from FIFO", args: []string{"--from", fifo}, code: 1, want: []string{"--from", fifo, "a FIFO (named pipe)"}},
		{name: "--from FIFO in the directory", args: []string{"--from", fifoSnap}, code: 1, want: []string{"--from", filepath.Join(fifoSnap, "list.json"), "a FIFO (named pipe)"}},
		{name: "--from /dev/zero", args: []string{"--from", "/dev/zero"}, code: 1, want: []string{"--from", "/dev/zero", "a character device"}},
		{name: "--from missing", args: []string{"--from", missing}, code: 1, want: []string{"--from", missing, "does not exist"}},
		{name: "--from 20 MB JSON array", args: []string{"--from", array}, code: 1, want: []string{"--from", array, "value budget"}},
		{name: "--from 1M-pod snapshot", args: []string{"--from", million}, code: 1, want: []string{"--from", million, "more than 20000 pods"}},
		{name: "--sysfs /dev/zero", args: []string{"--from", snap, "--sysfs", "/dev/zero"}, code: 1, want: []string{"--sysfs /dev/zero", "not a directory"}},
		{name: "--sysfs missing", args: []string{"--from", snap, "--sysfs", missing}, code: 1, want: []string{"--sysfs " + missing, "no such file or directory"}},
		{name: "--socket FIFO", args: []string{"--socket", fifo}, code: 1, want: []string{fifo, "a FIFO (named pipe), not a unix socket"}},
		{name: "--timeout 0", args: []string{"--timeout", "0s"}, code: 2, want: []string{"--timeout 0s", "give a positive duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				var out, errb bytes.Buffer
				code := run(context.Background(), tt.args, &out, &errb)
				done <- result{code, errb.String()}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the command did not end within 10 s")
			}
			assert.Equal(t, tt.code, r.code, "exit code; stderr: %s", r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
		})
	}
}

// TestTimeoutAdviceNamesTheFlag: a kubelet that does not answer in time
// gets the advice in the CLI's terms (--timeout), once prefixed.
func TestTimeoutAdviceNamesTheFlag(t *testing.T) {
	s := start(t)
	s.Delay(podresourcestest.List, 5*time.Second)
	code, _, errOut := runArgs(t, "--socket", "unix://"+s.Socket(), "--timeout", "200ms")
	assert.Equal(t, 1, code, "exit code")
	assert.Contains(t, errOut, "raise --timeout (now 200ms)")
	assert.NotContains(t, errOut, "WithCallTimeout")
	assert.False(t, strings.HasPrefix(errOut, "podresources: podresources:"), "stderr %q", errOut)
}
