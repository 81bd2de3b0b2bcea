package catalog

import (
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// noise are kubelet lines from outside the catalogue's scope, as a node's
// log interleaves them with the managers' lines.
var noise = []string{
	`I1202 03:15:00.123456    2741 kubelet.go:2455] "SyncLoop ADD" source="api" pods=["kube-system/kube-proxy-x7k2p"]`,
	`I1202 03:15:00.223456    2741 kuberuntime_manager.go:1011] "Creating PodSandbox for pod" pod="telco/dpdk-fwd-6f9c7d8b4-kx2lq"`,
	`I1202 03:15:00.323456    2741 reconciler_common.go:258] "operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-8xq2v\" (UniqueName: \"kubernetes.io/projected/3f1c9a2e-kube-api-access-8xq2v\") pod \"dpdk-fwd\" (UID: \"3f1c9a2e\") " pod="telco/dpdk-fwd"`,
	`E1202 03:15:00.423456    2741 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \"StartContainer\" for \"fwd\" with CrashLoopBackOff: \"back-off 5m0s restarting failed container=fwd pod=dpdk-fwd_telco(3f1c9a2e)\"" pod="telco/dpdk-fwd" podUID="3f1c9a2e"`,
	`W1202 03:15:00.523456    2741 watcher.go:93] Error while processing event ("/sys/fs/cgroup/kubepods.slice": 0x40000100 == IN_CREATE|IN_ISDIR): inotify_add_watch /sys/fs/cgroup/kubepods.slice: no such file or directory`,
	`I1202 03:15:00.623456    2741 prober.go:107] "Probe failed" probeType="Readiness" pod="kube-system/coredns-5d78c9869d-9xk2p" podUID="a1b2" containerName="coredns" probeResult="failure" output="HTTP probe failed with statuscode: 503"`,
	`Dec 02 03:15:00 worker-1 systemd[1]: Started Kubernetes Kubelet.`,
	`{"ts":1764645300123.4,"caller":"kubelet/kubelet_node_status.go:75","msg":"Attempting to register node","v":0,"node":"worker-1"}`,
}

var (
	benchOnce sync.Once
	benchLogs map[string]string
)

// syntheticLog is about size bytes of kubelet log: one line in every a
// catalogue entry rendered in a random form, the rest lines from outside
// the catalogue.
func syntheticLog(size, every int) string {
	entries := Entries()
	r := rand.New(rand.NewSource(1))
	var b strings.Builder
	b.Grow(size + 4096)
	for b.Len() < size {
		if r.Intn(every) == 0 {
			e := &entries[r.Intn(len(entries))]
			f := forms[r.Intn(len(forms))]
			b.WriteString(f.render(e, render(e)))
		} else {
			b.WriteString(noise[r.Intn(len(noise))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkMatch64MiB matches a 64 MiB synthetic kubelet log: dense has a
// catalogue line in every four (a start-up or admission failure told at
// length), sparse one in fifty (a node's ordinary log).
func BenchmarkMatch64MiB(b *testing.B) {
	benchOnce.Do(func() {
		benchLogs = map[string]string{"dense": syntheticLog(64<<20, 4), "sparse": syntheticLog(64<<20, 50)}
	})
	m := Default()
	m.Match("warm up") // compile outside the timing
	for _, name := range []string{"dense", "sparse"} {
		log := benchLogs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			hits := 0
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				hits = len(m.Match(log))
			}
			reportCPU(b, int64(len(log)), cpu)
			b.ReportMetric(float64(hits), "hits")
		})
	}
}

// BenchmarkMatchHostile matches 1 MiB lines that repeat one fragment: the
// work stays linear in the length.
func BenchmarkMatchHostile(b *testing.B) {
	m := Default()
	m.Match("warm up")
	for _, frag := range []string{"failed to run Kubelet: ", "unknown flag: --", `"`, `err="`, "Error: ", "a"} {
		line := strings.Repeat(frag, (1<<20)/len(frag))
		b.Run(strconv.Quote(frag), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				m.Match(line)
			}
			reportCPU(b, int64(len(line)), cpu)
		})
	}
}

// reportCPU reports the throughput per second of CPU used (the garbage
// collector's included), which a busy machine changes less than wall time.
func reportCPU(b *testing.B, size int64, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkCompile is the one-time cost of compiling the catalogue.
func BenchmarkCompile(b *testing.B) {
	es := Entries()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		NewMatcher(es)
	}
	b.ReportMetric(float64(len(es)), "entries")
}
