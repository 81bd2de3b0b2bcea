package evidence

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/internal/yamljson"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Set kinds, as Set.Add takes them and Item.Given names
// them. Read evidence carries the reader's own kind in Item.Kind
// ("state-cpu", "kubelet-log", ...).
const (
	KindConfig       = "kubelet-config"
	KindPod          = "pod"
	KindEvents       = "events"
	KindLog          = "kubelet-log"
	KindTopology     = "topology"
	KindState        = "state"
	KindPodResources = "podresources"
)

// kindFlag is the examples/diagnose flag that passes each kind.
var kindFlag = map[string]string{
	KindConfig: "--kubelet-config", KindPod: "--pod", KindEvents: "--events", KindLog: "--log",
	KindTopology: "--topology", KindState: "--state", KindPodResources: "--podresources",
}

// kindAliases are the other names Set.Add takes for a kind.
var kindAliases = map[string]string{
	"log": KindLog, "config": KindConfig, "kubeletconfig": KindConfig, "pods": KindPod, "event": KindEvents,
	"machine": KindTopology, "machine-info": KindTopology, "checkpoint": KindState, "statefile": KindState,
}

func normaliseKind(k string) (string, bool) {
	k = strings.ToLower(strings.TrimLeft(strings.TrimSpace(k), "-"))
	if a, ok := kindAliases[k]; ok {
		return a, true
	}
	_, ok := kindFlag[k]
	return k, ok
}

// candidate is a kind the content suggests, and why.
type candidate struct {
	kind, why string
}

// sniffHead bounds how much of a file the sniffers look at.
const sniffHead = 64 << 10

var (
	reNumascopeReport = regexp.MustCompile(`"schema"\s*:\s*"numascope\.|\A\s*(?:numascope diagnose: |## numascope diagnosis|[✓✗!] (?:no findings\b|[A-Za-z]+: [^\n]* — \d+ (?:error|warning|note)s?(?:, \d+ (?:error|warning|note)s?)*\n))`)
	reKlogHeader      = regexp.MustCompile(`(?m)^.{0,200}?\b[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\]`)
	reCutKlogHeader   = regexp.MustCompile(`(?m)^[ \t]*\d{1,10} +[\w.-]+\.go:\d+\] `)
	reSyslogKubelet   = regexp.MustCompile(`(?m)^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ (?:kubelet|hyperkube|k3s|rke2)\[\d+\]:`)
	reJSONLog         = regexp.MustCompile(`(?m)^\s*\{.*"(?:ts|__CURSOR|_SYSTEMD_UNIT)"\s*:.*"(?:msg|MESSAGE)"\s*:`)
	reSystemdKubelet  = regexp.MustCompile(`(?m)^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ systemd\[\d+\]: [\w.-]*(?:kubelet|kubelite|k3s|rke2)[\w.-]*\.service: `)
	reGoPanic         = regexp.MustCompile(`(?m)^(?:panic: |fatal error: )[^\n]*\n(?:[^\n]*\n){0,3}goroutine \d+ \[`)
	reEventsTable     = regexp.MustCompile(`(?m)^\s*(?:NAMESPACE\s+)?LAST SEEN\s+(?:TYPE|FIRST SEEN)\b`)
	reDescribeEvents  = regexp.MustCompile(`(?m)^Events:`)
	reDescribeHeader  = regexp.MustCompile(`(?m)^(?:Name|Namespace|QoS Class|Status|Node):\s+\S`)
)

// bareMessageTokens are the kubelet's admission texts, recognised on
// their own (a message quoted in a ticket).
var bareMessageTokens = []string{"Resources cannot be allocated with Topology locality", "Topology Affinity Error", "TopologyAffinityError",
	"SMT Alignment Error", "SMTAlignmentError", "UnexpectedAdmissionError", "Allocate failed due to", "not enough cpus available to satisfy request"}

// Format is one row of the formats table: a way the kubelet's evidence is
// written down, the kind of evidence it is (the reader that reads it), and
// the owner's Looks, which tells from the start of a text whether it looks
// like the format, and why (a phrase for messages).
type Format struct {
	Kind  string
	Name  string
	Looks func(head []byte) (why string, ok bool)
}

// formats is the one table Add recognises inputs by, most specific first:
// the first row that matches gives the kind read first, the others the
// kinds tried after it. A new format is a reader in its owner and one row
// here (with a fixture under testdata/formats: TestEveryFormatHasAFixture).
var formats = []Format{
	{KindState, "checkpoint", statefile.Looks},
	{KindPodResources, "podresources", podresources.Looks},
	{KindLog, "klog", looksRegexp(reKlogHeader, "klog lines")},
	{KindLog, "journald", looksRegexp(reSyslogKubelet, "journal lines of the kubelet")},
	{KindLog, "klog-cut", looksRegexp(reCutKlogHeader, "klog lines without their date and time")},
	{KindLog, "json-log", looksRegexp(reJSONLog, "JSON log records")},
	{KindLog, "systemd-unit", looksRegexp(reSystemdKubelet, "systemd's lines about the kubelet's unit")},
	{KindLog, "go-panic", looksRegexp(reGoPanic, "a Go panic with its goroutines")},
	{KindPod, "pod-object", topomgr.LooksLikePods},
	{KindEvents, "event-object", looksEventObject},
	{KindConfig, "config-object", topomgr.LooksLikeKubeletConfigObject},
	{KindTopology, "nrt-object", looksNRTObject},
	{KindEvents, "pods-table", topomgr.LooksLikePodsTable}, // a rejected pod's STATUS is its reason
	{KindEvents, "events-table", looksRegexp(reEventsTable, "a kubectl get events table")},
	{KindEvents, "describe", looksDescribe},
	{KindTopology, "listing", topomgr.LooksLikeMachine},
	{KindConfig, "flags", topomgr.LooksLikeKubeletFlags},
	{KindConfig, "config-fields", topomgr.LooksLikeKubeletConfigFields},
	{KindEvents, "kubelet-message", looksBareMessage},
}

// Formats returns the formats table Add recognises inputs by.
func Formats() []Format { return append([]Format(nil), formats...) }

func looksRegexp(re *regexp.Regexp, why string) func([]byte) (string, bool) {
	return func(head []byte) (string, bool) { return why, re.Match(head) }
}

// looksEventObject reports an Event, a list of them, or a List of events.
func looksEventObject(head []byte) (string, bool) {
	kind, events := yamljson.ObjectKind(head)
	if kind == "Event" || kind == "EventList" || events {
		return "a " + kind + " object", true
	}
	return "", false
}

// looksNRTObject reports a NodeResourceTopology object (or a list of them).
func looksNRTObject(head []byte) (string, bool) {
	if kind, _ := yamljson.ObjectKind(head); kind == "NodeResourceTopology" || kind == "NodeResourceTopologyList" {
		return "a " + kind + " object", true
	}
	return "", false
}

// looksDescribe reports `kubectl describe pod` output.
func looksDescribe(head []byte) (string, bool) {
	return "kubectl describe output", reDescribeEvents.Match(head) && reDescribeHeader.Match(head)
}

// looksBareMessage reports a kubelet admission message on its own.
func looksBareMessage(head []byte) (string, bool) {
	for _, t := range bareMessageTokens {
		if bytes.Contains(head, []byte(t)) {
			return "a kubelet admission message", true
		}
	}
	return "", false
}

// commandKind is the kind the command that printed a paste says it is.
func commandKind(cmd string) (string, bool) {
	c := strings.ToLower(cmd)
	switch {
	case namesCheckpoint(c):
		return KindState, true
	case strings.Contains(c, "journalctl") || strings.Contains(c, "kubelet.log") || strings.HasPrefix(c, "zcat"):
		return KindLog, true
	case strings.Contains(c, "numactl") || strings.Contains(c, "lscpu") || strings.Contains(c, "lstopo") || strings.Contains(c, "/sys/devices/system"):
		return KindTopology, true
	case strings.Contains(c, "configz") || strings.Contains(c, "config.yaml") || strings.Contains(c, "kubeadm-flags") ||
		strings.Contains(c, "systemctl") || strings.HasPrefix(c, "ps ") || strings.Contains(c, "cmdline") || strings.Contains(c, "kubeletconfig"):
		return KindConfig, true
	case strings.Contains(c, "describe") || strings.Contains(c, " events"):
		return KindEvents, true
	case strings.Contains(c, "get po"):
		return KindPod, true
	case strings.Contains(c, "podresources") || strings.Contains(c, "knit"):
		return KindPodResources, true
	}
	return "", false
}

// sniff lists the kinds the content (and the command lines stripped from
// it) suggests, most specific first, each with the reason. It looks at the
// first sniffHead bytes only. notEvidence is set for text that is known not
// to be evidence (a numascope report).
func sniff(text []byte, commands []string) (out []candidate, notEvidence string) {
	head := text
	if len(head) > sniffHead {
		head = head[:sniffHead]
	}
	if reNumascopeReport.Match(head) {
		return nil, "a numascope report, not evidence: pass the files it was made from"
	}
	seen := map[string]bool{}
	add := func(kind, why string) {
		if kind != "" && !seen[kind] {
			seen[kind] = true
			out = append(out, candidate{kind, why})
		}
	}
	for _, c := range commands {
		if k, ok := commandKind(c); ok {
			add(k, "printed by `"+words.Clip(c, 80)+"`")
		}
	}
	for _, f := range formats {
		if why, ok := f.Looks(head); ok {
			add(f.Kind, why)
		}
	}
	return out, ""
}

// isGzip reports whether data starts with the gzip magic number.
func isGzip(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
}
