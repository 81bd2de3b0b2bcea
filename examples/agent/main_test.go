package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

const (
	nodeDir = "testdata/node/kubelet" // cpu v4, memory v3 (4 NUMA nodes), device v2, dra crc32, config.yaml
	sysDir  = "testdata/node/sys"     // 4 NUMA nodes of 16 CPUs: node N holds 8N..8N+7 and 32+8N..32+8N+7
	badDir  = "testdata/node-bad/kubelet"
)

// syncBuffer is a bytes.Buffer safe for the agent's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startServer(t *testing.T, snap *podresources.Snapshot) *podresourcestest.Server {
	t.Helper()
	s, err := podresourcestest.StartInDir(snap)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func runOnce(t *testing.T, args ...string) (*Report, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--once", "--node", "node-a"}, args...), &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1, "--once printed:\n%s\nstderr: %s", out.String(), errb.String())
	require.NotEmpty(t, lines[0], "--once printed an empty line; stderr: %s", errb.String())
	var rep Report
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&rep), "report is not the documented JSON:\n%s", lines[0])
	return &rep, code, errb.String()
}

func intp(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func cpuTable(rows []CPURow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%d:%s/%s/%s/%s/%s/%s ", r.NUMANode, intp(r.CPUs), intp(r.Exclusive), intp(r.Shared), intp(r.Allocatable), intp(r.Taken), intp(r.Free))
	}
	return strings.TrimSpace(b.String())
}

func TestOnceHealthyNode(t *testing.T) {
	srv := startServer(t, podresourcestest.Sample())
	rep, code, stderr := runOnce(t, "--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket())
	assert.Empty(t, stderr, "stderr in --once mode")
	assert.Equal(t, Schema, rep.Schema, "schema")
	assert.Equal(t, "node-a", rep.Node, "node")
	assert.EqualValues(t, 1, rep.Round, "round")
	assert.False(t, rep.Time.IsZero(), "time is set")
	var kinds []string
	for _, c := range rep.Checkpoints {
		kinds = append(kinds, string(c.Kind))
		assert.True(t, c.Present, "checkpoint %s: present", c.File)
		if assert.NotNil(t, c.Checksum, "checkpoint %s: checksum", c.File) {
			assert.True(t, c.Checksum.Valid, "checkpoint %s: checksum valid", c.File)
		}
		if assert.NotNil(t, c.KubeletAccepts, "checkpoint %s: kubeletAccepts", c.File) {
			assert.True(t, *c.KubeletAccepts, "checkpoint %s: kubeletAccepts", c.File)
		}
		assert.Empty(t, c.Error, "checkpoint %s: error", c.File)
	}
	assert.Equal(t, []string{"cpu", "memory", "device", "dra"}, kinds, "checkpoint kinds")
	assert.True(t, rep.PodResources.Available, "podResources available: %+v", rep.PodResources)
	assert.EqualValues(t, 3, rep.PodResources.Pods, "podResources pods")
	assert.NotNil(t, rep.NUMA, "NUMA view")
	// Sysfs: 16 CPUs per node. cpu_manager_state (v4-static): exclusive
	// 3,6,12,15,17,21,23,27,28,33,34,36,37,38,43,47,53,58. PodResources
	// (Sample): allocatable 1-15, taken 2,3 and 8-11.
	want := "0:16/7/9/7/2/5 1:16/4/12/8/4/4 2:16/4/12/0/0/0 3:16/3/13/0/0/0"
	assert.Equal(t, want, cpuTable(rep.CPUs), "cpus (node:cpus/exclusive/shared/allocatable/taken/free)")
	if assert.Len(t, rep.Memory, 4, "memory rows") {
		m := rep.Memory[1]
		assert.EqualValues(t, 1, m.NUMANode, "NUMA node of memory row 1")
		assert.EqualValues(t, 119235674112, m.Free, "free memory of row 1")
		assert.EqualValues(t, 1023410176, m.Reserved, "reserved memory of row 1")
		assert.Equal(t, "[1 2]", fmt.Sprint(m.Group), "group of memory row 1")
	}
	assert.EqualValues(t, 0, rep.Summary.Errors, "error findings: %+v", rep.Findings)
	assert.Equal(t, 0, code, "exit code")
	kindsRead := map[string]bool{}
	for _, e := range rep.Evidence {
		kindsRead[e.Kind] = true
	}
	for _, k := range []string{"state-cpu", "state-memory", "state-device", "state-dra", "kubelet-config", "topology", "podresources"} {
		assert.True(t, kindsRead[k], "evidence lacks %s: %+v", k, rep.Evidence)
	}
	assert.Empty(t, rep.Errors, "errors")
	assert.EqualValues(t, 1, srv.Calls(podresourcestest.List), "List calls")
	assert.EqualValues(t, 1, srv.Calls(podresourcestest.GetAllocatableResources), "GetAllocatableResources calls")
}

func TestOnceCorruptCheckpointExits1(t *testing.T) {
	rep, code, _ := runOnce(t, "--state-dir", badDir, "--sysfs", "none", "--socket", "none")
	assert.Equal(t, 1, code, "exit code")
	require.NotEmpty(t, rep.Checkpoints, "checkpoints")
	c := rep.Checkpoints[0]
	assert.True(t, c.Present, "cpu checkpoint present")
	if assert.NotNil(t, c.Checksum, "cpu checkpoint checksum") {
		assert.False(t, c.Checksum.Valid, "cpu checkpoint checksum valid")
	}
	if assert.NotNil(t, c.KubeletAccepts, "cpu checkpoint kubeletAccepts") {
		assert.False(t, *c.KubeletAccepts, "cpu checkpoint kubeletAccepts")
	}
	assert.Equal(t, "refuses-to-start", c.OnReject, "cpu checkpoint onReject")
	for _, c := range rep.Checkpoints[1:] {
		assert.False(t, c.Present, "missing %s: present", c.File)
		assert.Nil(t, c.KubeletAccepts, "missing %s: kubeletAccepts", c.File)
		assert.Nil(t, c.Checksum, "missing %s: checksum", c.File)
	}
	if assert.NotEmpty(t, rep.Findings, "findings") {
		assert.Equal(t, "CorruptCheckpoint", rep.Findings[0].Code, "code of finding 0")
		assert.EqualValues(t, "error", rep.Findings[0].Severity, "severity of finding 0")
	}
	// A state the kubelet refuses is counted as it is recorded (as memory
	// is), marked refused above; without sysfs its CPUs have no node.
	assert.True(t, rep.PodResources.Disabled, "socket=none: podResources disabled")
	assert.Nil(t, rep.NUMA, "socket=none, sysfs=none: NUMA view")
	four, twentyEight := 4, 28
	assert.Empty(t, cmp.Diff([]CPURow{{NUMANode: -1, Exclusive: &four, Shared: &twentyEight}}, rep.CPUs), "socket=none, sysfs=none: CPUs")
}

func TestOnceToleratesMissingSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "kubelet.sock")
	rep, code, _ := runOnce(t, "--state-dir", nodeDir, "--sysfs", sysDir, "--socket", sock, "--timeout", "2s")
	assert.Equal(t, 0, code, "exit code: a missing socket is a warning, not a failure")
	assert.False(t, rep.PodResources.Available, "podResources available")
	assert.Contains(t, rep.PodResources.Error, sock, "podResources error names the socket")
	if assert.Len(t, rep.Errors, 1, "errors") {
		assert.Equal(t, "podresources", rep.Errors[0].Source, "source of error 0")
	}
	found := false
	for _, f := range rep.Findings {
		if f.Code == CodePodResourcesUnavailable && f.Severity == "warning" && len(f.Evidence) == 1 && f.Evidence[0].File == sock {
			found = true
		}
	}
	assert.True(t, found, "no PodResourcesUnavailable warning naming the socket: %+v", rep.Findings)
	// The state files are still checked, and CPUs still counted per node.
	assert.Equal(t, "0:16/7/9/-/-/- 1:16/4/12/-/-/- 2:16/4/12/-/-/- 3:16/3/13/-/-/-", cpuTable(rep.CPUs), "cpus")
}

func TestOnceSnapshot(t *testing.T) {
	snap := filepath.Join("..", "..", "podresources", "testdata", "offline", "numascope")
	rep, code, _ := runOnce(t, "--state-dir", nodeDir, "--sysfs", sysDir, "--snapshot", snap)
	require.Equal(t, 0, code, "exit code")
	require.True(t, rep.PodResources.Available, "podResources available: %+v", rep.PodResources)
	require.EqualValues(t, 3, rep.PodResources.Pods, "podResources pods")
	require.Equal(t, snap, rep.PodResources.Snapshot, "podResources snapshot")
	require.Empty(t, rep.PodResources.Socket, "podResources socket")
	require.NotNil(t, rep.NUMA, "NUMA view")
	var pinned []string
	for _, n := range rep.NUMA.Nodes {
		for _, h := range n.Holders {
			pinned = append(pinned, fmt.Sprintf("%d:%s/%s", n.ID, h.Pod, h.Container))
		}
	}
	// web/app holds CPUs 2-3 (node 0); db/postgres CPUs 8-11 (node 1) and memory on both.
	got := strings.Join(pinned, " ")
	assert.Contains(t, got, "0:default/web/app", "holders")
	assert.Contains(t, got, "1:shop/db/postgres", "holders")
	rep, _, _ = runOnce(t, "--state-dir", nodeDir, "--sysfs", "none", "--snapshot", "no/such/dir")
	assert.False(t, rep.PodResources.Available, "missing snapshot: podResources available")
	if assert.Len(t, rep.Errors, 1, "missing snapshot: errors") {
		assert.Equal(t, "podresources", rep.Errors[0].Source, "missing snapshot: source of error 0")
	}
}

func TestReportForms(t *testing.T) {
	args := []string{"--state-dir", nodeDir, "--sysfs", sysDir, "--snapshot", filepath.Join("..", "..", "podresources", "testdata", "offline", "numascope")}
	full, _, _ := runOnce(t, args...)
	sum, code, _ := runOnce(t, append(args, "--report", "summary")...)
	assert.Equal(t, 0, code, "summary form: exit code")
	assert.Nil(t, sum.NUMA, "summary form: NUMA view")
	assert.Empty(t, sum.Evidence, "summary form: evidence")
	assert.Equal(t, full.Summary, sum.Summary, "summary form: summary")
	assert.Equal(t, cpuTable(full.CPUs), cpuTable(sum.CPUs), "summary form: CPUs")
	if assert.Len(t, sum.Checkpoints, 4, "summary form: checkpoints") && assert.NotNil(t, sum.Checkpoints[0].Checksum, "summary form: checksum of checkpoint 0") {
		assert.Nil(t, sum.Checkpoints[0].Checksum.Layouts, "summary form: checksum layouts of checkpoint 0")
		assert.True(t, sum.Checkpoints[0].Checksum.Valid, "summary form: checksum of checkpoint 0 valid")
	}
	if assert.Len(t, sum.Findings, len(full.Findings), "summary form: findings") && assert.NotEmpty(t, sum.Findings, "summary form: findings") {
		assert.Equal(t, full.Findings[0].Code, sum.Findings[0].Code, "summary form: code of finding 0")
		assert.Empty(t, sum.Findings[0].Explanation, "summary form: explanation of finding 0")
	}
	var out bytes.Buffer
	code = run(context.Background(), append([]string{"--once", "--report", "none"}, args...), &out, io.Discard)
	assert.Equal(t, 0, code, "--report none: exit code")
	assert.Empty(t, out.String(), "--report none: output")
}

func TestOnceWrongStateDir(t *testing.T) {
	dir := t.TempDir()
	rep, code, _ := runOnce(t, "--state-dir", dir, "--sysfs", "none", "--socket", "none")
	assert.Equal(t, 0, code, "exit code")
	if assert.Len(t, rep.Findings, 1, "findings") {
		assert.Equal(t, CodeNoCheckpoints, rep.Findings[0].Code, "code of finding 0")
	}
}

func TestOnceUnreadableStateFile(t *testing.T) {
	dir := t.TempDir()
	// A directory where a file is expected: opening works, reading fails,
	// for root as for anyone.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "cpu_manager_state"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dra_manager_state"), []byte("not json"), 0o600))
	rep, code, _ := runOnce(t, "--state-dir", dir, "--sysfs", "none", "--socket", "none")
	assert.Equal(t, 1, code, "exit code")
	require.Len(t, rep.Checkpoints, 4, "checkpoints")
	cpu, dra := rep.Checkpoints[0], rep.Checkpoints[3]
	assert.True(t, cpu.Present, "unreadable cpu_manager_state: present")
	assert.NotEmpty(t, cpu.Error, "unreadable cpu_manager_state: error")
	assert.Nil(t, cpu.KubeletAccepts, "unreadable cpu_manager_state: kubeletAccepts")
	assert.True(t, dra.Present, "undecodable dra_manager_state: present")
	assert.NotEmpty(t, dra.Error, "undecodable dra_manager_state: error")
	if assert.NotNil(t, dra.KubeletAccepts, "undecodable dra_manager_state: kubeletAccepts") {
		assert.False(t, *dra.KubeletAccepts, "undecodable dra_manager_state: kubeletAccepts")
	}
	assert.EqualValues(t, 2, rep.Summary.Errors, "error findings in the summary")
	assert.Len(t, rep.Errors, 2, "errors")
}

func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // in stderr: the flag, and what to give
	}{
		{[]string{"--interval", "0s"}, "--interval 0s: give a positive duration"},
		{[]string{"--no-such-flag"}, "agent -h"},
		{[]string{"extra-argument"}, `unexpected argument "extra-argument"`},
		{[]string{"--timeout", "-1s"}, "--timeout -1s: give a positive duration"},
		{[]string{"--http-idle-timeout", "0s"}, "--http-idle-timeout 0s"},
		{[]string{"--snapshot", "x", "--socket", "y"}, "--snapshot and --socket exclude each other"},
		{[]string{"--report", "short"}, `--report "short": give full, summary, none`},
		{[]string{"--report", "npd"}, "--report npd goes with --once"},
		{[]string{"--max-pods", "0"}, "--max-pods 0: give a positive number"},
		{[]string{"--http-max-conns", "-1"}, "--http-max-conns -1"},
		{[]string{"--max-podresources-size", "3Gi"}, "--max-podresources-size 3221225472"},
		{[]string{"--max-state-size", "lots"}, "-max-state-size: \"lots\": not a size: not a number with a unit (give a byte count"},
		{[]string{"--state-dir", ""}, `--state-dir "": give the kubelet root directory`},
		{[]string{"--once", "--interval", "10s"}, "--interval with --once: one round runs and nothing is served, so leave it out"},
		{[]string{"--once", "--listen", ":9999", "--http-max-conns", "4"}, "--http-max-conns, --listen with --once"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tt.args, &out, &errb)
		assert.Equal(t, 2, code, "%v: exit code", tt.args)
		assert.Contains(t, errb.String(), tt.want, "%v: stderr", tt.args)
		assert.Empty(t, out.String(), "%v: stdout", tt.args)
	}
	for _, h := range []string{"-h", "--help"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{h}, &out, &errb)
		assert.Equal(t, 0, code, "%s: exit code", h)
		assert.Contains(t, out.String(), "-state-dir DIR", "%s: usage on stdout", h)
		assert.Contains(t, out.String(), "Examples:", h)
		assert.GreaterOrEqual(t, strings.Count(out.String(), "\n  agent ")+strings.Count(out.String(), "\n  sudo agent "), 3, "%s: at least three examples", h)
		assert.Empty(t, errb.String(), "%s: stderr", h)
	}
}

func TestOnceInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--once", "--state-dir", nodeDir, "--sysfs", "none", "--socket", "none"}, &out, &errb)
	assert.Equal(t, 1, code, "exit code")
	assert.Empty(t, out.String(), "stdout")
	assert.Contains(t, errb.String(), "interrupted", "stderr")
}

func TestListenInUse(t *testing.T) {
	busy := httpListener(t)
	var errb bytes.Buffer
	code := run(context.Background(), []string{"--listen", busy, "--state-dir", nodeDir, "--socket", "none"}, io.Discard, &errb)
	assert.Equal(t, 2, code, "exit code")
	assert.Contains(t, errb.String(), busy, "stderr names the address")
}

// httpListener returns the address of a port in use for the test's duration.
func httpListener(t *testing.T) string {
	srv := &http.Server{}
	ln, err := listenLocal()
	require.NoError(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func listenLocal() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

var reAddress = regexp.MustCompile(`"address":"([^"]+)"`)

// waitAddress reads the listening address from the agent's start-up log line.
func waitAddress(t *testing.T, stderr interface{ String() string }) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := reAddress.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.FailNow(t, "agent did not log its address", "stderr: %s", stderr.String())
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "reading the body of %s", url)
	return resp.StatusCode, string(b)
}

// scrape returns every sample as "name{labels}" → value.
func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	code, body := get(t, base+"/metrics")
	require.Equal(t, 200, code, "/metrics status")
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(t, err, "/metrics does not parse:\n%s", body)
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := name + "{" + strings.Join(labels, ",") + "}"
			switch f.GetType() {
			case dto.MetricType_GAUGE:
				out[key] = m.Gauge.GetValue()
			case dto.MetricType_COUNTER:
				out[key] = m.Counter.GetValue()
			case dto.MetricType_HISTOGRAM:
				out[name+"_count{"+strings.Join(labels, ",")+"}"] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}

func TestIntervalServesMetrics(t *testing.T) {
	srv := startServer(t, podresourcestest.Sample())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket(),
			"--listen", "127.0.0.1:0", "--interval", "200ms", "--node", "node-a"}, &stdout, &stderr)
	}()
	base := waitAddress(t, &stderr)

	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := get(t, base+"/readyz") // only the status tells readiness
		if code == 200 {
			break
		}
		require.False(t, time.Now().After(deadline), "/readyz never became ready")
		time.Sleep(20 * time.Millisecond)
	}
	code, body := get(t, base+"/healthz")
	assert.Equal(t, 200, code, "/healthz status")
	assert.Equal(t, "ok\n", body, "/healthz body")
	code, _ = get(t, base+"/nothing")
	assert.Equal(t, 404, code, "/nothing status")

	m := scrape(t, base)
	want := map[string]float64{
		"numascope_checkpoint_present{file=" + nodeDir + "/cpu_manager_state,kind=cpu}":                           1,
		"numascope_checkpoint_valid{file=" + nodeDir + "/cpu_manager_state,kind=cpu}":                             1,
		"numascope_checkpoint_valid{file=" + nodeDir + "/memory_manager_state,kind=memory}":                       1,
		"numascope_checkpoint_valid{file=" + nodeDir + "/dra_manager_state,kind=dra}":                             1,
		"numascope_checkpoint_valid{file=" + nodeDir + "/device-plugins/kubelet_internal_checkpoint,kind=device}": 1,
		"numascope_checkpoint_kubelet_accepts{kind=cpu}":                                                          1,
		"numascope_checkpoint_kubelet_accepts{kind=memory}":                                                       1,
		"numascope_checkpoint_kubelet_accepts{kind=device}":                                                       1,
		"numascope_checkpoint_kubelet_accepts{kind=dra}":                                                          1,
		"numascope_checkpoint_problems{kind=cpu,severity=error}":                                                  0,
		"numascope_memory_free_bytes{numa_node=1,resource=memory}":                                                119235674112,
		"numascope_memory_reserved_bytes{numa_node=2,resource=memory}":                                            1600126976,
		"numascope_memory_allocatable_bytes{numa_node=0,resource=memory}":                                         98784247808,
		"numascope_memory_system_reserved_bytes{numa_node=1,resource=memory}":                                     3221225472,
		"numascope_memory_total_bytes{numa_node=3,resource=memory}":                                               136365211648,
		"numascope_numa_node_cpus{numa_node=0}":                                                                   16,
		"numascope_cpus_exclusive{numa_node=0}":                                                                   7,
		"numascope_cpus_shared{numa_node=3}":                                                                      13,
		"numascope_cpus_allocatable{numa_node=1}":                                                                 8,
		"numascope_cpus_free{numa_node=0}":                                                                        5,
		"numascope_podresources_up{}":                                                                             1,
		"numascope_podresources_pods{}":                                                                           3,
		"numascope_round_errors_total{source=podresources}":                                                       0,
	}
	for k, v := range want {
		if got, ok := m[k]; assert.True(t, ok, "missing series %s", k) {
			assert.Equal(t, v, got, "series %s", k)
		}
	}
	info := 0
	for k, v := range m {
		if strings.HasPrefix(k, "numascope_agent_info{node=node-a,version=") && v == 1 {
			info++
		}
	}
	assert.Equal(t, 1, info, "numascope_agent_info{node=node-a,version=...} series of value 1")
	for _, k := range []string{"numascope_rounds_total{}", "numascope_round_duration_seconds_count{}", "numascope_last_round_timestamp_seconds{}"} {
		assert.GreaterOrEqual(t, m[k], 1.0, "series %s", k)
	}
	for k := range m {
		if strings.HasPrefix(k, "numascope_findings{") {
			assert.Contains(t, k, "severity=", "finding series without severity")
		}
	}

	// The kubelet goes away: the next rounds say so, and the agent keeps going.
	srv.Close()
	deadline = time.Now().Add(10 * time.Second)
	for {
		m = scrape(t, base)
		if m["numascope_podresources_up{}"] == 0 && m["numascope_round_errors_total{source=podresources}"] >= 1 {
			break
		}
		require.False(t, time.Now().After(deadline), "socket gone, metrics still say up=%v, podresources round errors %v",
			m["numascope_podresources_up{}"], m["numascope_round_errors_total{source=podresources}"])
		time.Sleep(50 * time.Millisecond)
	}
	assert.Equal(t, 1.0, m["numascope_findings{code=PodResourcesUnavailable,severity=warning}"], "PodResourcesUnavailable finding series")
	assert.NotContains(t, m, "numascope_podresources_pods{}", "pod count still exported with the socket gone")
	assert.NotContains(t, m, "numascope_cpus_free{numa_node=0}", "free CPUs still exported with the socket gone")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "exit code after cancel")
	case <-time.After(3 * time.Second):
		require.FailNow(t, "agent did not stop within 3s of cancellation")
	}
	// Every stdout line is one report; rounds count up from 1.
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	sc.Buffer(nil, 1<<20)
	n := int64(0)
	for sc.Scan() {
		var r Report
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "stdout line %d is not a report", n+1)
		n++
		assert.EqualValues(t, n, r.Round, "line %d: round", n)
		assert.Equal(t, Schema, r.Schema, "line %d: schema", n)
		assert.Nil(t, r.NUMA, "line %d: the loop writes the summary form unless --report says otherwise", n)
		assert.Empty(t, r.Evidence, "line %d: the loop writes the summary form unless --report says otherwise", n)
	}
	require.NoError(t, sc.Err(), "reading stdout")
	assert.GreaterOrEqual(t, n, int64(2), "reports, want several")
	assert.Contains(t, stderr.String(), "numascope agent stopped", "stop line on stderr")
}

func TestHealthzFailsWhenRoundsStall(t *testing.T) {
	a := newAgent(config{interval: time.Minute, timeout: 10 * time.Second})
	now := a.started.Add(time.Minute)
	assert.NoError(t, a.healthy(now), "healthy one minute after start")
	err := a.healthy(a.started.Add(10 * time.Minute))
	if assert.Error(t, err, "healthy ten minutes after start with no round") {
		assert.Contains(t, err.Error(), "no round finished", "healthy ten minutes after start with no round")
	}
}

var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// buildAgent builds the agent binary once per test run.
func buildAgent(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "numascope-agent-bin")
		if err != nil {
			built.err = err
			return
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "agent")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
	})
	require.NoError(t, built.err, "go build:\n%s", built.out)
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestSIGTERM runs the built binary, as the DaemonSet does, and stops it
// with SIGTERM.
func TestSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildAgent(t)
	srv := startServer(t, podresourcestest.Sample())
	var stdout, stderr syncBuffer
	cmd := exec.Command(bin, "--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket(), "--listen", "127.0.0.1:0", "--interval", "1h")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	base := waitAddress(t, &stderr)
	deadline := time.Now().Add(10 * time.Second)
	for code, _ := get(t, base+"/readyz"); code != 200; code, _ = get(t, base+"/readyz") {
		require.False(t, time.Now().After(deadline), "/readyz not ready within 10s")
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		assert.NoError(t, err, "exit after SIGTERM; stderr:\n%s", stderr.String())
		t.Logf("stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	case <-time.After(2 * time.Second):
		require.FailNow(t, "still running 2s after SIGTERM")
	}
	assert.Equal(t, 1, strings.Count(stdout.String(), "\n"), "report lines")
	resp, err := http.Get(base + "/healthz")
	if err == nil {
		resp.Body.Close()
	}
	assert.Error(t, err, "still serving after exit")
}

// BenchmarkRound measures one round on the fixtures: four state files, a
// PodResources snapshot over the socket, sysfs and the diagnosis.
func BenchmarkRound(b *testing.B) {
	s, err := podresourcestest.StartInDir(podresourcestest.Sample())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a := newAgent(config{stateDir: nodeDir, sysfs: sysDir, socket: s.Socket(), timeout: 10 * time.Second, diagnose: true, interval: time.Minute})
	ctx := context.Background()
	for b.Loop() {
		if rep := a.round(ctx); !rep.PodResources.Available {
			b.Fatal(rep.PodResources.Error)
		}
	}
}
