package evidence

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	msgSMT     = "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"
	msgSMTFree = "SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 4, requested CPUs = 8, CPUs per core = 2"
)

func warn(line int, e Event) Event {
	e.Line = line
	if e.Type == "" {
		e.Type = "Warning"
	}
	return e
}

type eventsCase struct {
	name     string
	in       string
	format   string
	events   []Event
	warnings []string // substrings, in any warning
	pod      *DescribedPod
}

func checkEvents(t *testing.T, tc eventsCase) {
	t.Helper()
	ev, err := ParseEvents("paste.txt", []byte(tc.in))
	require.NoError(t, err)
	assert.Equal(t, tc.format, ev.Format, "format")
	assert.Empty(t, cmp.Diff(tc.events, ev.Events), "events (-want +got)")
	for _, w := range tc.warnings {
		assert.True(t, strings.Contains(strings.Join(ev.Warnings, "\n"), w), "a warning says %q: %q", w, ev.Warnings)
	}
	if tc.warnings == nil {
		assert.Empty(t, ev.Warnings, "warnings")
	}
	if tc.pod != nil {
		assert.Empty(t, cmp.Diff(tc.pod, ev.Pod), "described pod (-want +got)")
	}
}

func TestParseEventsGetPodsTables(t *testing.T) {
	tae := func(line int, obj, ctrl string) Event {
		return warn(line, Event{Reason: "TopologyAffinityError", Object: obj, Count: 1, Controller: ctrl})
	}
	for _, tc := range []eventsCase{
		{name: "1.21 default columns, no restart age",
			in: `NAME                        READY   STATUS                  RESTARTS   AGE
dpdk-fwd-6f9c7d8b4-kx2lq    0/1     TopologyAffinityError   0          41s
dpdk-fwd-6f9c7d8b4-p8v5n    0/1     TopologyAffinityError   0          38s
web-5d8f7b9c4-zx9wq         1/1     Running                 0          3d
`, format: "get-pods-table",
			events:   []Event{tae(2, "pod/dpdk-fwd-6f9c7d8b4-kx2lq", "dpdk-fwd-6f9c7d8b4"), tae(3, "pod/dpdk-fwd-6f9c7d8b4-p8v5n", "dpdk-fwd-6f9c7d8b4")},
			warnings: []string{"1 of 3 pod rows are not admission failures (Running 1)"}},
		{name: "1.29 -A with restarts ago, every admission reason",
			in: `NAMESPACE   NAME                       READY   STATUS                     RESTARTS       AGE
telco       dpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError      0              41s
telco       vrouter-0                  0/1     SMTAlignmentError          0              12s
telco       gpu-infer-7c5b9-wq2zd      0/1     UnexpectedAdmissionError   0              5m
batch       etl-28391-xq2lk            0/1     OutOfcpu                   0              2m
batch       etl-28390-fghjk            0/1     Completed                  0              1h
kube-system sriov-agent-b7x4p          1/1     Running                    2 (3m4s ago)   9d
telco       init-wait-7d9f8-zzk2p      0/1     Init:0/1                   0              10s
telco       old-6f9c7d8b4-w4c2n        0/1     Terminating                0              2h
`, format: "get-pods-table",
			events: []Event{tae(2, "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", "dpdk-fwd-6f9c7d8b4"),
				warn(3, Event{Reason: "SMTAlignmentError", Object: "pod/telco/vrouter-0", Count: 1, Controller: "vrouter"}),
				warn(4, Event{Reason: "UnexpectedAdmissionError", Object: "pod/telco/gpu-infer-7c5b9-wq2zd", Count: 1, Controller: "gpu-infer-7c5b9"}),
				warn(5, Event{Reason: "OutOfcpu", Object: "pod/batch/etl-28391-xq2lk", Count: 1, Controller: "etl-28391"})},
			warnings: []string{"4 of 8 pod rows are not admission failures (Completed 1, Init:0/1 1, Running 1, Terminating 1)"}},
		{name: "-o wide on two nodes",
			in: `NAME                       READY   STATUS                  RESTARTS   AGE   IP       NODE          NOMINATED NODE   READINESS GATES
dpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError   0          41s   <none>   wrk-numa-07   <none>           <none>
dpdk-fwd-6f9c7d8b4-p8v5n   0/1     TopologyAffinityError   0          38s   <none>   wrk-numa-08   <none>           <none>
`, format: "get-pods-table",
			events:   []Event{tae(2, "pod/dpdk-fwd-6f9c7d8b4-kx2lq", "dpdk-fwd-6f9c7d8b4"), tae(3, "pod/dpdk-fwd-6f9c7d8b4-p8v5n", "dpdk-fwd-6f9c7d8b4")},
			warnings: []string{"on 2 nodes (wrk-numa-07, wrk-numa-08)"}},
		{name: "1.16 three-word status",
			in: `NAME                       READY   STATUS                    RESTARTS   AGE
dpdk-fwd-6f9c7d8b4-kx2lq   0/1     Topology Affinity Error   0          41s
`, format: "get-pods-table",
			events: []Event{warn(2, Event{Reason: "Topology Affinity Error", Object: "pod/dpdk-fwd-6f9c7d8b4-kx2lq", Count: 1, Controller: "dpdk-fwd-6f9c7d8b4"})}},
		{name: "collapsed to single spaces, fenced, with a prompt",
			in:       "```\n$ kubectl get pods -n telco\nNAME READY STATUS RESTARTS AGE\ndpdk-fwd-6f9c7d8b4-kx2lq 0/1 Topology Affinity Error 0 41s\nvrouter-0 1/1 Running 2 (3m4s ago) 9d\n```\n",
			format:   "get-pods-table",
			events:   []Event{warn(4, Event{Reason: "Topology Affinity Error", Object: "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", Count: 1, Controller: "dpdk-fwd-6f9c7d8b4"})},
			warnings: []string{"line 3: the table's spacing was collapsed", "Running 1"}},
		{name: "rows without a header",
			in:     "telco   dpdk-fwd-6f9c7d8b4-kx2lq   0/1   TopologyAffinityError   0   41s\n",
			format: "get-pods-table",
			events: []Event{tae(1, "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", "dpdk-fwd-6f9c7d8b4")}},
		{name: "a row without a header, cut after RESTARTS",
			in:       "kube-system   coredns-7d8f9c6b5-x2kqp   0/1     Topology Affinity Error   0    \n",
			format:   "get-pods-table",
			events:   []Event{warn(1, Event{Reason: "Topology Affinity Error", Object: "pod/kube-system/coredns-7d8f9c6b5-x2kqp", Count: 1, Controller: "coredns-7d8f9c6b5"})},
			warnings: []string{"line 1: a `kubectl get pods` row without its AGE column"}},
		{name: "nothing failed",
			in:       "NAME    READY   STATUS    RESTARTS   AGE\nweb-0   1/1     Running   0          3d\n",
			format:   "get-pods-table",
			warnings: []string{"no row of the `kubectl get pods` table shows an admission failure"}},
		{name: "CRLF, ANSI colours and quote prefixes",
			in:     "> NAME                       READY   STATUS                  RESTARTS   AGE\r\n> dpdk-fwd-6f9c7d8b4-kx2lq   0/1     \x1b[31mTopologyAffinityError\x1b[0m   0          41s\r\n",
			format: "get-pods-table",
			events: []Event{tae(2, "pod/dpdk-fwd-6f9c7d8b4-kx2lq", "dpdk-fwd-6f9c7d8b4")}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEvents(t, tc) })
	}
}

func TestParseEventsEventTables(t *testing.T) {
	for _, tc := range []eventsCase{
		{name: "get events -A",
			in: `NAMESPACE   LAST SEEN   TYPE      REASON                  OBJECT                         MESSAGE
telco       41s         Warning   TopologyAffinityError   pod/dpdk-fwd-6f9c7d8b4-kx2lq   Resources cannot be allocated with Topology locality
telco       41s         Normal    Scheduled               pod/dpdk-fwd-6f9c7d8b4-kx2lq   Successfully assigned telco/dpdk-fwd-6f9c7d8b4-kx2lq to wrk-numa-07
`, format: "events-table",
			events: []Event{warn(2, Event{Reason: "TopologyAffinityError", Object: "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", Message: msgTAE, Count: 1}),
				{Line: 3, Type: "Normal", Reason: "Scheduled", Object: "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", Message: "Successfully assigned telco/dpdk-fwd-6f9c7d8b4-kx2lq to wrk-numa-07", Count: 1}}},
		{name: "get events -o wide with an empty SUBOBJECT",
			in: `LAST SEEN   TYPE      REASON              OBJECT         SUBOBJECT   SOURCE           MESSAGE                                                               FIRST SEEN   COUNT   NAME
12s         Warning   SMTAlignmentError   pod/vrouter-0               kubelet, wrk-7   SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2   2m           9       vrouter-0.17f3a9c2d1e0b4a5
`, format: "events-table",
			events: []Event{warn(2, Event{Reason: "SMTAlignmentError", Object: "pod/vrouter-0", Message: msgSMT, Count: 9, From: "kubelet, wrk-7"})}},
		{name: "before 1.14",
			in: `LAST SEEN   FIRST SEEN   COUNT     NAME         KIND      SUBOBJECT   TYPE      REASON                    SOURCE           MESSAGE
1m          5m           7         guaranteed   Pod                   Warning   Topology Affinity Error   kubelet, node1   Resources cannot be allocated with Topology Locality
`, format: "events-table",
			events: []Event{warn(2, Event{Reason: "Topology Affinity Error", Object: "pod/guaranteed", Message: "Resources cannot be allocated with Topology Locality", Count: 7, From: "kubelet, node1"})}},
		{name: "kubectl events",
			in: `LAST SEEN            TYPE      REASON                  OBJECT                         MESSAGE
3m (x9 over 11m)     Warning   TopologyAffinityError   Pod/dpdk-fwd-6f9c7d8b4-kx2lq   Resources cannot be allocated with Topology locality
`, format: "kubectl-events",
			events: []Event{warn(2, Event{Reason: "TopologyAffinityError", Object: "pod/dpdk-fwd-6f9c7d8b4-kx2lq", Message: msgTAE, Count: 9})}},
		{name: "collapsed kubectl events",
			in:       "LAST SEEN TYPE REASON OBJECT MESSAGE\n3m (x9 over 11m) Warning UnexpectedAdmissionError Pod/gpu-infer-7c5b9-wq2zd Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 2, Available: 1, which is unexpected\n",
			format:   "kubectl-events",
			events:   []Event{warn(2, Event{Reason: "UnexpectedAdmissionError", Object: "pod/gpu-infer-7c5b9-wq2zd", Message: "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 2, Available: 1, which is unexpected", Count: 9})},
			warnings: []string{"collapsed"}},
		{name: "rows without a header",
			in:     "41s         Warning   TopologyAffinityError   pod/dpdk-fwd-6f9c7d8b4-kx2lq   Resources cannot be allocated with Topology locality\n",
			format: "events-table",
			events: []Event{warn(1, Event{Reason: "TopologyAffinityError", Object: "pod/dpdk-fwd-6f9c7d8b4-kx2lq", Message: msgTAE, Count: 1})}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEvents(t, tc) })
	}
}

func TestParseEventsKubeletMessages(t *testing.T) {
	inferred := func(line int, reason, msg, obj string) Event {
		return warn(line, Event{Reason: reason, Message: msg, Object: obj, Inferred: true, Controller: controllerOf(obj[strings.LastIndexByte(obj, '/')+1:])})
	}
	uae := "Allocate failed due to not enough cpus available to satisfy request: requested=8, available=6, which is unexpected"
	mem := "Allocate failed due to [memorymanager] failed to find NUMA nodes to extend the current topology hint, which is unexpected"
	dev := `Allocate failed due to rpc error: code = Unknown desc = "nvidia.com/gpu": device GPU-3f1c9a2e is unhealthy, which is unexpected`
	for _, tc := range []eventsCase{
		{name: "plain", in: msgTAE + "\n", format: "kubelet-message",
			events: []Event{inferred(1, "TopologyAffinityError", msgTAE, "")}, warnings: []string{"line 1: reason TopologyAffinityError inferred"}},
		{name: "1.16 Locality, quoted", in: `"Resources cannot be allocated with Topology Locality"`, format: "kubelet-message",
			events:   []Event{inferred(1, "TopologyAffinityError", "Resources cannot be allocated with Topology Locality", "")},
			warnings: []string{"1.16/1.17"}},
		{name: "status message prefixes, backticks, prose", format: "kubelet-message",
			in:       "The pod shows `Pod was rejected: " + msgTAE + "` and the old one said Pod " + msgTAE + ".\n",
			events:   []Event{inferred(1, "TopologyAffinityError", msgTAE, ""), inferred(1, "TopologyAffinityError", msgTAE, "")},
			warnings: []string{"inferred"}},
		{name: "SMT, both forms, with the numbers", format: "kubelet-message",
			in:       "first: " + msgSMT + "\nafter the restart: '" + msgSMTFree + "'\n",
			events:   []Event{inferred(1, "SMTAlignmentError", msgSMT, ""), inferred(2, "SMTAlignmentError", msgSMTFree, "")},
			warnings: []string{"inferred"}},
		{name: "UnexpectedAdmissionError keeps the inner error verbatim", format: "kubelet-message",
			in:       uae + "\n" + "Warning: " + mem + "\n" + "{\"message\":\"" + strings.ReplaceAll(dev, `"`, `\"`) + "\"}\n",
			events:   []Event{inferred(1, "UnexpectedAdmissionError", uae, ""), inferred(2, "UnexpectedAdmissionError", mem, ""), inferred(3, "UnexpectedAdmissionError", dev, "")},
			warnings: []string{"inferred"}},
		{name: "plugin update and predicate failures", format: "kubelet-message",
			in: "Update plugin resources failed due to no containers return in allocation response, which is unexpected.\n" +
				"Node didn't have enough resource: cpu, requested: 4000, used: 62000, capacity: 64000\n" +
				"Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 4, capacity: 4\n",
			events: []Event{inferred(1, "UnexpectedAdmissionError", "Update plugin resources failed due to no containers return in allocation response, which is unexpected.", ""),
				inferred(2, "OutOfcpu", "Node didn't have enough resource: cpu, requested: 4000, used: 62000, capacity: 64000", ""),
				inferred(3, "OutOfnvidia.com/gpu", "Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 4, capacity: 4", "")},
			warnings: []string{"inferred"}},
		{name: "a log line names the pod and the reason", format: "kubelet-message",
			in:     `I0305 09:20:11.403101    2741 kubelet.go:2347] "Pod admission denied" podUID="3f1c9a2e" pod="telco/dpdk-fwd-6f9c7d8b4-kx2lq" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"` + "\n",
			events: []Event{warn(1, Event{Reason: "TopologyAffinityError", Message: msgTAE, Object: "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", Controller: "dpdk-fwd-6f9c7d8b4"})}},
		{name: "the pasted command names the pod", format: "kubelet-message",
			in:       "$ kubectl get pod vrouter-0 -n telco -o jsonpath='{.status.message}'\nPod was rejected: " + msgSMT + "\n",
			events:   []Event{inferred(2, "SMTAlignmentError", msgSMT, "pod/telco/vrouter-0")},
			warnings: []string{"inferred"}},
		{name: "describe lines without a header", format: "describe-fragment",
			in: "  Warning  TopologyAffinityError  41s  kubelet  Resources cannot be allocated with Topology locality\n" +
				"Warning  UnexpectedAdmissionError  3m (x4 over 5m)  kubelet, wrk-7  " + uae + "\n" +
				"Warning SMTAlignmentError 12s kubelet " + msgSMT + "\n",
			events: []Event{warn(1, Event{Reason: "TopologyAffinityError", Message: msgTAE, From: "kubelet"}),
				warn(2, Event{Reason: "UnexpectedAdmissionError", Message: uae, From: "kubelet, wrk-7", Count: 4}),
				warn(3, Event{Reason: "SMTAlignmentError", Message: msgSMT, From: "kubelet"})}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEvents(t, tc) })
	}
}

func TestParseEventsDescribeFragments(t *testing.T) {
	for _, tc := range []eventsCase{
		{name: "Events section only", format: "describe-fragment",
			in: `Events:
  Type     Reason                 Age   From               Message
  ----     ------                 ----  ----               -------
  Normal   Scheduled              10m   default-scheduler  Successfully assigned default/guaranteed to dell8
  Warning  TopologyAffinityError  10m   kubelet, dell8     Resources cannot be allocated with Topology locality
`,
			events: []Event{{Line: 4, Type: "Normal", Reason: "Scheduled", From: "default-scheduler", Message: "Successfully assigned default/guaranteed to dell8"},
				warn(5, Event{Reason: "TopologyAffinityError", From: "kubelet, dell8", Message: msgTAE})}},
		{name: "old describe columns, tab separated", format: "describe-fragment",
			in: "Events:\n  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tType\t\tReason\t\t\tMessage\n  ---------\t--------\t-----\t----\t\t\t-------------\t--------\t------\t\t\t-------\n" +
				"  1m\t\t1m\t\t3\tkubelet, node1\t\t\tWarning\t\tTopology Affinity Error\tResources cannot be allocated with Topology Locality\n",
			events: []Event{warn(4, Event{Reason: "Topology Affinity Error", Message: "Resources cannot be allocated with Topology Locality", Count: 3})}},
		{name: "Status, Reason and Message lines", format: "describe-fragment",
			in:     "Status:           Failed\nReason:           SMTAlignmentError\nMessage:          Pod was rejected: " + msgSMT + "\n",
			pod:    &DescribedPod{Status: "Failed", Reason: "SMTAlignmentError", Message: "Pod was rejected: " + msgSMT, Lines: map[string]int{"Status": 1, "Reason": 2, "Message": 3}},
			events: nil},
		{name: "a Message line alone", format: "describe-fragment",
			in:       "Message:  Pod " + msgTAE + "\n",
			pod:      &DescribedPod{Reason: "TopologyAffinityError", Message: "Pod " + msgTAE, Lines: map[string]int{"Message": 1}},
			warnings: []string{"line 1: reason TopologyAffinityError inferred"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEvents(t, tc) })
	}
}

func TestParseEventsRefusesWhatItCannotRead(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"prose":                      {"the pod does not start, please help\n", "no admission or start-up error recognised"},
		"word: value lines":          {"note: the node was rebooted\ncause: unknown\n", "no admission or start-up error recognised"},
		"a table of another kind":    {"NAME      STATUS   ROLES    AGE   VERSION\nwrk-7     Ready    <none>   9d    v1.29.6\n", "not a kubectl table"},
		"describe Status alone":      {"Status:  Running\n", "no admission or start-up error recognised"},
		"a cut row of a running pod": {"web-0   1/1   Running   0\n", "not a kubectl table"},
		"a fragment evicted":         {"Status:  Failed\nReason:  Evicted\nMessage: The node was low on resource: memory.\n", "no admission or start-up error recognised"},
	} {
		_, err := ParseEvents("paste.txt", []byte(tc.in))
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), tc.want, name)
			assert.Contains(t, err.Error(), "paste.txt", "%s: the error names the file", name)
		}
	}
}

func TestControllerOf(t *testing.T) {
	for pod, want := range map[string]string{
		"dpdk-fwd-6f9c7d8b4-kx2lq": "dpdk-fwd-6f9c7d8b4", // Deployment: the ReplicaSet
		"sriov-agent-b7x4p":        "sriov-agent",        // DaemonSet
		"vrouter-0":                "vrouter",            // StatefulSet
		"nightly-28391040-q2w4z":   "nightly-28391040",   // CronJob's Job
		"guaranteed":               "",
		"etl-abcde":                "", // vowels never appear in generated suffixes
		"x-":                       "",
	} {
		assert.Equal(t, want, controllerOf(pod), pod)
	}
}

func TestParseEventsMoreShapes(t *testing.T) {
	for _, tc := range []eventsCase{
		{name: "kubectl get pods -o yaml given as events", format: "list",
			in: "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: vrouter-0, namespace: telco}\n  status: {phase: Failed, reason: SMTAlignmentError, message: 'Pod was rejected: " + msgSMT + "'}\n" +
				"- kind: Pod\n  metadata: {name: web-0, namespace: telco}\n  status: {phase: Running}\n",
			events:   []Event{{Path: "/items/0/status/reason", Type: "Warning", Reason: "SMTAlignmentError", Object: "pod/telco/vrouter-0", Message: msgSMT, Count: 1, Controller: "vrouter"}},
			warnings: []string{"2 pods read for their status: 1 show an admission failure"}},
		{name: "a fenced event list with a prompt", format: "list",
			in:     "```yaml\n$ kubectl get events -n telco -o yaml\napiVersion: v1\nkind: List\nitems:\n- kind: Event\n  type: Warning\n  reason: TopologyAffinityError\n  message: " + msgTAE + "\n  involvedObject: {kind: Pod, name: x, namespace: telco}\n```\n",
			events: []Event{{Path: "/items/0", Type: "Warning", Reason: "TopologyAffinityError", Object: "pod/telco/x", Message: msgTAE}}},
		{name: "JSON kubelet log lines given as events", format: "kubelet-message",
			in:       `{"ts":1741166042118.2,"caller":"kubelet/kubelet.go:2347","msg":"Pod admission denied","v":0,"pod":{"name":"x","namespace":"telco"},"reason":"UnexpectedAdmissionError","message":"Allocate failed due to not enough cpus available to satisfy request, which is unexpected"}` + "\n" + `{"ts":1741166042119.2,"msg":"Started"}` + "\n",
			events:   []Event{warn(1, Event{Reason: "UnexpectedAdmissionError", Message: "Allocate failed due to not enough cpus available to satisfy request, which is unexpected", Inferred: true})},
			warnings: []string{"read as text", "inferred"}},
		{name: "kubectl describe pods: two pods", format: "describe",
			in: "Name:         dpdk-fwd-6f9c7d8b4-kx2lq\nNamespace:    telco\nStatus:       Failed\nReason:       TopologyAffinityError\nMessage:      Pod was rejected: " + msgTAE + "\nQoS Class:    Guaranteed\nEvents:       <none>\n\n" +
				"Name:         vrouter-0\nNamespace:    telco\nStatus:       Failed\nReason:       SMTAlignmentError\nMessage:      Pod was rejected: " + msgSMT + "\nEvents:\n  Type     Reason             Age   From     Message\n  ----     ------             ----  ----     -------\n  Warning  SMTAlignmentError  12s   kubelet  " + msgSMT + "\n",
			events: []Event{warn(4, Event{Reason: "TopologyAffinityError", Object: "pod/telco/dpdk-fwd-6f9c7d8b4-kx2lq", Message: msgTAE, Count: 1, Controller: "dpdk-fwd-6f9c7d8b4"}),
				warn(17, Event{Reason: "SMTAlignmentError", Object: "pod/telco/vrouter-0", Message: msgSMT, From: "kubelet"})},
			pod: &DescribedPod{Name: "vrouter-0", Namespace: "telco", Status: "Failed", Reason: "SMTAlignmentError", Message: "Pod was rejected: " + msgSMT,
				Lines: map[string]int{"Name": 9, "Namespace": 10, "Status": 11, "Reason": 12, "Message": 13}}},
		{name: "a wide table wrapped by mail at 80 columns", format: "get-pods-table",
			in: "NAME                       READY   STATUS                  RESTARTS   AGE   IP\n" +
				"     NODE          NOMINATED NODE   READINESS GATES\n" +
				"dpdk-fwd-6f9c7d8b4-kx2lq   0/1     TopologyAffinityError   0          41s   <none>\n" +
				"     wrk-numa-07   <none>           <none>\n",
			events:   []Event{warn(3, Event{Reason: "TopologyAffinityError", Object: "pod/dpdk-fwd-6f9c7d8b4-kx2lq", Count: 1, Controller: "dpdk-fwd-6f9c7d8b4"})},
			warnings: []string{"line 2: skipped: not a row of the table headed on line 1", "line 4: skipped"}},
		{name: "rows cut at the terminal's width", format: "get-pods-table",
			in:       "NAMESPACE   NAME                       READY   STATUS                     RESTARTS   AGE\ntelco       gpu-infer-7c5b9-wq2zd      0/1     UnexpectedAdmissionErr\n",
			events:   []Event{warn(2, Event{Reason: "UnexpectedAdmissionError", Object: "pod/telco/gpu-infer-7c5b9-wq2zd", Count: 1, Controller: "gpu-infer-7c5b9"})},
			warnings: []string{`line 2: STATUS "UnexpectedAdmissionErr" is cut at the terminal's width: read as UnexpectedAdmissionError`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEvents(t, tc) })
	}
}

// BenchmarkParseEventsPodsTable reads a 10,000-row `kubectl get pods -A -o wide` table.
func BenchmarkParseEventsPodsTable(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("NAMESPACE   NAME                       READY   STATUS                  RESTARTS       AGE   IP       NODE          NOMINATED NODE   READINESS GATES\n")
	for i := range 10000 {
		status := "Running                "
		if i%3 == 0 {
			status = "TopologyAffinityError  "
		}
		sb.WriteString("telco       dpdk-fwd-6f9c7d8b4-kx2lq   0/1     " + status + " 2 (3m4s ago)   41s   <none>   wrk-numa-07   <none>           <none>\n")
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ev, err := ParseEvents("pods.txt", data)
		if err != nil || len(ev.Events) != 3334 {
			b.Fatalf("%v, %d events", err, len(ev.Events))
		}
	}
}

func TestParseEventsOldReasonsWithoutHeaders(t *testing.T) {
	checkEvents(t, eventsCase{name: "1.16 describe row, no header", format: "describe-fragment",
		in:     "  Warning  Topology Affinity Error  2m  kubelet, node1  Resources cannot be allocated with Topology Locality\n",
		events: []Event{warn(1, Event{Reason: "Topology Affinity Error", From: "kubelet, node1", Message: "Resources cannot be allocated with Topology Locality"})}})
	_, err := ParseEvents("prose.txt", []byte("It fails.  Then it retries.\n"))
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "no admission or start-up error recognised", "prose with two spaces after a stop is not a table")
	}
}

// BenchmarkParseEventsBlankLines reads 32 MiB of newlines: no line slice
// is built for it.
func BenchmarkParseEventsBlankLines(b *testing.B) {
	data := []byte(strings.Repeat("\n", 32<<20) + msgTAE + "\n")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := ParseEvents("blank.txt", data)
		if err != nil || len(ev.Events) != 1 {
			b.Fatalf("%v", err)
		}
	}
}

// msgTAE is TopologyAffinityError.Error() of the kubelet's topologymanager.
const msgTAE = "Resources cannot be allocated with Topology locality"
