package topomgr

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/numascope/numascope/internal/poddoc"
	"github.com/numascope/numascope/internal/topotext"
	"github.com/numascope/numascope/internal/yamljson"
)

// The Looks functions tell, from the start of a document, whether it looks
// like one of the formats the Parse functions of this package read, and
// why (a phrase for messages: "a Deployment object"). They decide nothing
// about the content: the Parse function does.

// LooksLikePods reports a Kubernetes object ParsePods reads: a Pod, a list
// of pods (not of events), a workload with a pod template, a PodTemplate.
func LooksLikePods(head []byte) (why string, ok bool) {
	kind, events := yamljson.ObjectKind(head)
	switch {
	case kind == "Pod" || kind == "PodList" || kind == "PodTemplate" || poddoc.IsWorkload(kind),
		kind == "List" && !events:
		return "a " + kind + " object", true
	}
	return "", false
}

var rePodsTable = regexp.MustCompile(`(?m)^\s*(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\b`)

// LooksLikePodsTable reports a `kubectl get pods` table (its header row).
func LooksLikePodsTable(head []byte) (why string, ok bool) {
	if rePodsTable.Match(head) {
		return "a kubectl get pods table", true
	}
	return "", false
}

// configObjectKinds are the objects that carry a kubelet configuration:
// the KubeletConfiguration itself, OpenShift's KubeletConfig, kubeadm's
// Join/InitConfiguration, Cluster API's Cluster, MachineConfig, EKS
// nodeadm's NodeConfig.
var configObjectKinds = map[string]bool{"KubeletConfiguration": true, "KubeletConfig": true, "JoinConfiguration": true,
	"InitConfiguration": true, "Cluster": true, "MachineConfig": true, "NodeConfig": true}

// LooksLikeKubeletConfigObject reports an object ParseKubeletConfig reads
// the kubelet's configuration from.
func LooksLikeKubeletConfigObject(head []byte) (why string, ok bool) {
	if kind, _ := yamljson.ObjectKind(head); configObjectKinds[kind] {
		return "a " + kind + " object", true
	}
	return "", false
}

// flagTokens are what names the kubelet's flags in a paste: every flag
// ParseKubeletConfig reads (with - or _), and the wrappers that carry them.
var flagTokens = func() []string {
	out := []string{"KUBELET_KUBEADM_ARGS", "KUBELET_EXTRA_ARGS", "KUBELET_CONFIG_ARGS", "kubelet-arg",
		"extra-config=kubelet.", `"kubeletconfig"`, "kubeletConfig:"}
	for name, f := range kubeletFlags {
		if f.Field != "" {
			out = append(out, name, strings.ReplaceAll(name, "-", "_"))
		}
	}
	return out
}()

// LooksLikeKubeletFlags reports the kubelet's flags in any form
// ParseKubeletConfig reads (a command line, kubeadm-flags.env, a unit).
func LooksLikeKubeletFlags(head []byte) (why string, ok bool) {
	for _, t := range flagTokens {
		if bytes.Contains(head, []byte(t)) {
			return "kubelet flags", true
		}
	}
	return "", false
}

// reConfigField finds a field ParseKubeletConfig reads, as a key.
var reConfigField = regexp.MustCompile(`(?m)^\s*"?(?:` + strings.Join(kubeletConfigFields, "|") + `)"?\s*:`)

// LooksLikeKubeletConfigFields reports KubeletConfiguration fields as keys,
// without the object around them (a fragment, /configz output).
func LooksLikeKubeletConfigFields(head []byte) (why string, ok bool) {
	if reConfigField.Match(head) {
		return "KubeletConfiguration fields", true
	}
	return "", false
}

// LooksLikeMachine reports a NUMA topology listing ParseMachine reads
// (numactl -H, lscpu in any layout, sysfs listings, machine-info, lstopo).
func LooksLikeMachine(head []byte) (why string, ok bool) {
	if topotext.Looks(head) {
		return "a NUMA topology listing", true
	}
	return "", false
}
