// Package journalgen writes generated kubelet journals for the tests and
// benchmarks of the log readers: a busy node's `journalctl -u kubelet`
// text, the same bytes for the same seed.
package journalgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Write writes about size bytes of `journalctl -u kubelet` text of a
// busy node running kubelet 1.31 (journald short-precise prefixes): mostly
// other components' lines (PLEG, probes, volumes, pod workers, events,
// status patches of several KiB, container specs, cAdvisor's printf
// lines, containerd lines in the unit, a boot banner), and, every few
// hundred lines, a pod's pass through the Topology Manager, the CPU and
// memory managers, with a TopologyAffinityError rejection every 10th
// admission. The same seed gives the same bytes. It returns the number of
// admissions and rejections written.
func Write(w io.Writer, size int64, seed uint64) (admitted, rejected int, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &journalGen{w: bw, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), node: "worker-17"}
	g.startup()
	for g.n < size {
		switch r := g.rnd.IntN(1000); {
		case r < 4:
			rej := g.admission()
			admitted++
			if rej {
				rejected++
			}
		default:
			g.noise(r)
		}
	}
	return admitted, rejected, bw.Flush()
}

type journalGen struct {
	w     *bufio.Writer
	rnd   *rand.Rand
	node  string
	n     int64 // bytes written
	usec  int64 // microseconds since the first line
	pods  int
	err   error
	buf   []byte
	admit int
}

// line writes one kubelet line: the journald prefix, then the klog header
// of severity sev from file:line, then body.
func (g *journalGen) line(sev byte, src, body string) {
	g.usec += int64(g.rnd.IntN(40000))
	s := g.usec / 1e6
	us := g.usec % 1e6
	hh, mm, ss := 10+s/3600%14, s/60%60, s%60
	b := g.buf[:0]
	b = fmt.Appendf(b, "Dec 01 %02d:%02d:%02d.%06d %s kubelet[2143]: %c1201 %02d:%02d:%02d.%06d    2143 %s] %s\n",
		hh, mm, ss, us, g.node, sev, hh, mm, ss, us, src, body)
	g.write(b)
}

// raw writes a line of the unit that is not the kubelet's klog output.
func (g *journalGen) raw(ident, body string) {
	g.usec += int64(g.rnd.IntN(40000))
	s := g.usec / 1e6
	b := fmt.Appendf(g.buf[:0], "Dec 01 %02d:%02d:%02d.%06d %s %s: %s\n", 10+s/3600%14, s/60%60, s%60, g.usec%1e6, g.node, ident, body)
	g.write(b)
}

func (g *journalGen) write(b []byte) {
	g.buf = b
	n, err := g.w.Write(b)
	g.n += int64(n)
	if err != nil && g.err == nil {
		g.err = err
	}
}

func (g *journalGen) uid(n int) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", n*2654435761%(1<<32), n%0xffff, n%0xfff, (n*7)%0xfff, uint64(n)*11400714819323198485%(1<<48))
}

func (g *journalGen) pod() (ns, name, uid string) {
	n := g.rnd.IntN(400)
	return fmt.Sprintf("team-%d", n%13), fmt.Sprintf("web-%d-%05x", n, n*40503%0xfffff), g.uid(n)
}

func (g *journalGen) startup() {
	g.raw("systemd[1]", "Started kubelet: The Kubernetes Node Agent.")
	g.line('I', "server.go:486", `"Kubelet version" kubeletVersion="v1.31.4"`)
	g.line('I', "server.go:488", `"Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""`)
	g.line('I', "container_manager_linux.go:300", `"Creating device plugin manager"`)
	g.line('I', "topology_manager.go:138", `"Creating topology manager with policy per scope" topologyPolicyName="single-numa-node" topologyScopeName="container" topologyPolicyOptions={"PreferClosestNUMA":false,"MaxAllowableNUMANodes":8}`)
	g.line('I', "memory_manager.go:170", `"Starting memorymanager" policy="Static"`)
	g.line('I', "cpu_manager.go:217", `"Starting CPU manager" policy="static"`)
}

// noise writes one line of the kubelet's other components; r in [4, 1000)
// picks the shape.
func (g *journalGen) noise(r int) {
	ns, name, uid := g.pod()
	pod := ns + "/" + name
	cid := fmt.Sprintf("%016x%016x%016x%016x", g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64())
	switch {
	case r < 200:
		g.line('I', "kubelet.go:2482", fmt.Sprintf(`"SyncLoop (PLEG): event for pod" pod=%q event={"ID":%q,"Type":"ContainerStarted","Data":%q}`, pod, uid, cid))
	case r < 350:
		g.line('I', "prober.go:107", fmt.Sprintf(`"Probe failed" probeType="Readiness" pod=%q podUID=%q containerName="app" probeResult="failure" output="Get \"http://10.244.%d.%d:8080/healthz\": dial tcp 10.244.%d.%d:8080: connect: connection refused"`, pod, uid, r%250, r%200, r%250, r%200))
	case r < 470:
		g.line('I', "reconciler_common.go:258", fmt.Sprintf(`"operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-%05x\" (UniqueName: \"kubernetes.io/projected/%s-kube-api-access-%05x\") pod \"%s\" (UID: \"%s\") " pod=%q`, r*37, uid, r*37, name, uid, pod))
	case r < 560:
		g.line('E', "pod_workers.go:1301", fmt.Sprintf(`"Error syncing pod, skipping" err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff: \"back-off 5m0s restarting failed container=app pod=%s_%s(%s)\"" pod=%q podUID=%q`, name, ns, uid, pod, uid))
	case r < 660:
		reasons := []string{"Pulled", "Created", "Started", "Killing", "BackOff", "Unhealthy", "SandboxChanged"}
		g.line('I', "event.go:389", fmt.Sprintf(`"Event occurred" object=%q fieldPath="spec.containers{app}" kind="Pod" apiVersion="v1" type="Normal" reason=%q message="Container image \"registry.example.com/team/app:1.%d.%d\" already present on machine"`, pod, reasons[r%len(reasons)], r%9, r%31))
	case r < 720:
		g.patch(pod, uid, r)
	case r < 760:
		g.line('I', "kuberuntime_manager.go:1053", fmt.Sprintf(`"Creating container in pod" containerType="container" container="&Container{Name:app,Image:registry.example.com/team/app:1.%d,Command:[],Args:[--port=8080 --log-level=info],WorkingDir:,Ports:[]ContainerPort{ContainerPort{Name:http,HostPort:0,ContainerPort:8080,Protocol:TCP,HostIP:,},},Env:[]EnvVar{%s},Resources:ResourceRequirements{Limits:ResourceList{cpu: {{2 0} {<nil>} 2 DecimalSI},memory: {{4294967296 0} {<nil>} 4Gi BinarySI},},Requests:ResourceList{cpu: {{2 0} {<nil>} 2 DecimalSI},memory: {{4294967296 0} {<nil>} 4Gi BinarySI},},},VolumeMounts:[]VolumeMount{VolumeMount{Name:kube-api-access-%05x,ReadOnly:true,MountPath:/var/run/secrets/kubernetes.io/serviceaccount,SubPath:,MountPropagation:nil,SubPathExpr:,},},}" pod=%q`, r, envVars(r), r*37, pod))
	case r < 820:
		g.line('W', "container.go:586", fmt.Sprintf(`Failed to get RecentStats("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope") while determining the next housekeeping: unable to find data in memory cache`, strings.ReplaceAll(uid, "-", "_"), cid))
	case r < 860:
		g.line('I', "kubelet_getters.go:218", fmt.Sprintf(`"Pod status updated" pod=%q status="Running"`, pod))
	case r < 880:
		g.line('I', "cpu_manager.go:434", fmt.Sprintf(`"ReconcileState: updating container" pod=%q containerName="app" containerID=%q cpuSet="%d-%d"`, pod, cid, 2*(r%16), 2*(r%16)+3))
	case r < 900:
		g.line('I', "kubelet.go:2397", fmt.Sprintf(`"SyncLoop UPDATE" source="api" pods=[%q]`, pod))
	case r < 915:
		g.line('I', "topology_manager.go:275", fmt.Sprintf(`"Topology manager admission check" pod=%q`, pod))
		g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={} pod=%q containerName="app"`, pod))
	case r < 960:
		g.raw("containerd[911]", fmt.Sprintf(`time="2026-12-01T10:00:00.%09dZ" level=info msg="StartContainer for \"%s\" returns successfully"`, r, cid))
	case r < 962:
		g.raw("kubelet[2143]", "Flag --container-runtime-endpoint has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag.")
	case r < 963:
		g.write([]byte("-- Boot 3f1c2a9be8d44b6f9d1e0a7c5b3d2e1f --\n"))
	default:
		g.line('I', "generic.go:334", fmt.Sprintf(`"Generic (PLEG): container finished" podID=%q containerID=%q exitCode=%d`, uid, cid, r%3))
	}
}

func envVars(r int) string {
	var b strings.Builder
	for i := range 8 + r%24 {
		fmt.Fprintf(&b, "EnvVar{Name:SETTING_%d,Value:value-%d-of-the-service-configuration,ValueFrom:nil,},", i, i*r)
	}
	return b.String()
}

// patch writes a status patch of a few KiB, as status_manager.go logs at -v=3.
func (g *journalGen) patch(pod, uid string, r int) {
	var conds strings.Builder
	for i := range 4 + r%6 {
		if i > 0 {
			conds.WriteByte(',')
		}
		fmt.Fprintf(&conds, `{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-12-01T10:%02d:00Z\",\"status\":\"True\",\"type\":\"Ready%d\"}`, i, i)
	}
	var cs strings.Builder
	for i := range 1 + r%5 {
		if i > 0 {
			cs.WriteByte(',')
		}
		fmt.Fprintf(&cs, `{\"containerID\":\"containerd://%016x%016x\",\"image\":\"registry.example.com/team/app:1.%d\",\"imageID\":\"registry.example.com/team/app@sha256:%016x%016x%016x%016x\",\"lastState\":{},\"name\":\"app-%d\",\"ready\":true,\"restartCount\":%d,\"started\":true,\"state\":{\"running\":{\"startedAt\":\"2026-12-01T10:00:0%dZ\"}}}`,
			g.rnd.Uint64(), g.rnd.Uint64(), i, g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64(), g.rnd.Uint64(), i, r%7, i)
	}
	g.line('I', "status_manager.go:877", fmt.Sprintf(`"Patch status for pod" pod=%q podUID=%q patch="{\"metadata\":{\"uid\":\"%s\"},\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"}],\"conditions\":[%s],\"containerStatuses\":[%s],\"phase\":\"Running\"}}"`, pod, uid, uid, conds.String(), cs.String()))
}

// admission writes one guaranteed pod's admission; it reports a rejection.
func (g *journalGen) admission() bool {
	g.admit++
	g.pods++
	ns, name := "numa", fmt.Sprintf("db-%d", g.pods)
	uid := g.uid(100000 + g.pods)
	pod := ns + "/" + name
	reject := g.admit%10 == 0
	node := g.admit % 4
	g.line('I', "topology_manager.go:275", fmt.Sprintf(`"Topology manager admission check" pod=%q`, pod))
	g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={} pod=%q containerName="db"`, pod))
	if reject {
		g.line('I', "policy_static.go:536", fmt.Sprintf(`"TopologyHints generated" pod=%q containerName="db" cpuHints=[{"NUMANodeAffinity":%d,"Preferred":true},{"NUMANodeAffinity":%d,"Preferred":false}]`, pod, 1<<node, 1<<node|1<<((node+1)%4)))
		g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={"cpu":[{"NUMANodeAffinity":%d,"Preferred":true},{"NUMANodeAffinity":%d,"Preferred":false}]} pod=%q containerName="db"`, 1<<node, 1<<node|1<<((node+1)%4), pod))
		g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={"memory":[{"NUMANodeAffinity":%d,"Preferred":true}]} pod=%q containerName="db"`, 1<<((node+1)%4), pod))
		g.line('I', "policy.go:71", `"Hint Provider has no preference for NUMA affinity with any resource"`)
		g.line('I', "scope_container.go:83", `"ContainerTopologyHint" bestHint={"NUMANodeAffinity":null,"Preferred":false}`)
		g.line('I', "scope_container.go:50", fmt.Sprintf(`"Best TopologyHint" bestHint={"NUMANodeAffinity":null,"Preferred":false} pod=%q containerName="db"`, pod))
		g.line('I', "topology_manager.go:282", fmt.Sprintf(`"Pod Admit Result" Message="Resources cannot be allocated with Topology locality" pod=%q`, pod))
		g.line('I', "predicate.go:152", fmt.Sprintf(`"Pod admission denied" podUID=%q pod=%q reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"`, uid, pod))
		g.line('I', "event.go:389", fmt.Sprintf(`"Event occurred" object=%q fieldPath="" kind="Pod" apiVersion="v1" type="Warning" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"`, pod))
		g.line('I', "status_manager.go:877", fmt.Sprintf(`"Patch status for pod" pod=%q podUID=%q patch="{\"metadata\":{\"uid\":\"%s\"},\"status\":{\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\",\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\"}}"`, pod, uid, uid))
		return true
	}
	g.line('I', "policy_static.go:536", fmt.Sprintf(`"TopologyHints generated" pod=%q containerName="db" cpuHints=[{"NUMANodeAffinity":%d,"Preferred":true}]`, pod, 1<<node))
	g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={"cpu":[{"NUMANodeAffinity":%d,"Preferred":true}]} pod=%q containerName="db"`, 1<<node, pod))
	g.line('I', "scope_container.go:75", fmt.Sprintf(`"TopologyHints" hints={"memory":[{"NUMANodeAffinity":%d,"Preferred":true}]} pod=%q containerName="db"`, 1<<node, pod))
	g.line('I', "scope_container.go:83", fmt.Sprintf(`"ContainerTopologyHint" bestHint={"NUMANodeAffinity":%d,"Preferred":true}`, 1<<node))
	g.line('I', "scope_container.go:50", fmt.Sprintf(`"Best TopologyHint" bestHint={"NUMANodeAffinity":%d,"Preferred":true} pod=%q containerName="db"`, 1<<node, pod))
	g.line('I', "scope_container.go:61", fmt.Sprintf(`"Topology Affinity" bestHint={"NUMANodeAffinity":%d,"Preferred":true} pod=%q containerName="db"`, 1<<node, pod))
	g.line('I', "policy_static.go:642", fmt.Sprintf(`"Allocated exclusive CPUs" pod=%q podUID=%q containerName="db" cpuset="%d-%d"`, pod, uid, 16*node+2, 16*node+5))
	g.line('I', "policy_static.go:450", fmt.Sprintf(`"Memory affinity" pod=%q containerName="db" numaNodes=[%d]`, pod, node))
	return false
}
