// Command klgen121 runs kubelet v1.21.0's own Topology Manager on scripted
// hint providers and writes the log lines it prints through klog v2.8.0's
// text output (the %+v era: hint maps as map[...], masks as binary strings),
// plus what the kubelet decided, for numascope's log parser tests.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	cadvisorapi "github.com/google/cadvisor/info/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

type hint struct {
	Nodes     []int `json:"nodes"` // nil: any NUMA node
	Preferred bool  `json:"preferred"`
}

// answer is one provider's hints: Nil for a nil map, otherwise per resource
// a list, where a nil list means "no preference" and [] "nowhere".
type answer struct {
	Nil       bool               `json:"nil,omitempty"`
	Resources map[string]*[]hint `json:"resources,omitempty"`
}

type provider struct {
	name    string
	answers map[string]answer // container name ("" for the pod) -> answer
}

func (a answer) kubelet() map[string][]tm.TopologyHint {
	if a.Nil {
		return nil
	}
	out := map[string][]tm.TopologyHint{}
	for r, list := range a.Resources {
		if list == nil {
			out[r] = nil
			continue
		}
		hs := []tm.TopologyHint{}
		for _, h := range *list {
			var m bitmask.BitMask
			if h.Nodes != nil {
				m, _ = bitmask.NewBitMask(h.Nodes...)
			}
			hs = append(hs, tm.TopologyHint{NUMANodeAffinity: m, Preferred: h.Preferred})
		}
		out[r] = hs
	}
	return out
}

func (p provider) GetTopologyHints(_ *v1.Pod, c *v1.Container) map[string][]tm.TopologyHint {
	return p.answers[c.Name].kubelet()
}
func (p provider) GetPodTopologyHints(*v1.Pod) map[string][]tm.TopologyHint {
	return p.answers[""].kubelet()
}
func (p provider) Allocate(*v1.Pod, *v1.Container) error { return nil }

type testCase struct {
	Pod        string              `json:"pod"`
	Policy     string              `json:"policy"`
	Scope      string              `json:"scope"`
	Containers []string            `json:"containers"`
	Providers  []map[string]answer `json:"providers"` // device, cpu, memory
	Admit      bool                `json:"admit"`
	Reason     string              `json:"reason,omitempty"`
	Message    string              `json:"message,omitempty"`
}

func l(h ...hint) *[]hint {
	if h == nil {
		h = []hint{}
	}
	return &h
}
func n(nodes ...int) hint  { return hint{Nodes: nodes, Preferred: true} }
func np(nodes ...int) hint { return hint{Nodes: nodes} }

func main() {
	cases := []testCase{
		{Pod: "tm/split", Policy: "single-numa-node", Scope: "container", Containers: []string{"app"},
			Providers: []map[string]answer{{"app": {Resources: map[string]*[]hint{}}}, {"app": {Resources: map[string]*[]hint{"cpu": l(n(1), np(0, 1))}}}, {"app": {Resources: map[string]*[]hint{"memory": l(n(0))}}}}},
		{Pod: "tm/gpu", Policy: "restricted", Scope: "container", Containers: []string{"init", "cuda"},
			Providers: []map[string]answer{
				{"init": {Nil: true}, "cuda": {Resources: map[string]*[]hint{"nvidia.com/gpu": l()}}},
				{"init": {Nil: true}, "cuda": {Resources: map[string]*[]hint{"cpu": l(n(0), n(1), np(0, 1))}}},
				{"init": {Nil: true}, "cuda": {Nil: true}}}},
		{Pod: "tm/fits", Policy: "best-effort", Scope: "container", Containers: []string{"a", "b"},
			Providers: []map[string]answer{
				{"a": {Nil: true}, "b": {Resources: map[string]*[]hint{"example.com/nic": nil}}},
				{"a": {Resources: map[string]*[]hint{"cpu": l(n(0), n(1), np(0, 1))}}, "b": {Resources: map[string]*[]hint{"cpu": l(n(1), np(0, 1))}}},
				{"a": {Resources: map[string]*[]hint{"memory": l(n(0), n(1), np(0, 1)), "hugepages-1Gi": l(n(0), n(1), np(0, 1))}}, "b": {Nil: true}}}},
		{Pod: "tm/twin", Policy: "single-numa-node", Scope: "pod", Containers: []string{"a", "b"},
			Providers: []map[string]answer{{"": {Resources: map[string]*[]hint{}}}, {"": {Resources: map[string]*[]hint{"cpu": l(n(0, 1))}}}, {"": {Nil: true}}}},
		{Pod: "tm/wide", Policy: "restricted", Scope: "pod", Containers: []string{"a"},
			Providers: []map[string]answer{{"": {Nil: true}}, {"": {Resources: map[string]*[]hint{"cpu": l(n(0, 1))}}}, {"": {Resources: map[string]*[]hint{"memory": l(n(0, 1))}}}}},
	}
	fs := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(fs)
	must(fs.Set("logtostderr", "false"))
	must(fs.Set("alsologtostderr", "false"))
	must(fs.Set("v", "4"))
	var text bytes.Buffer
	klog.SetOutput(&text)
	for i := range cases {
		c := &cases[i]
		km, err := tm.NewManager([]cadvisorapi.Node{{Id: 0}, {Id: 1}}, c.Policy, c.Scope)
		if err != nil {
			panic(err)
		}
		for i, name := range []string{"device", "cpu", "memory"} {
			km.AddHintProvider(provider{name: name, answers: c.Providers[i]})
		}
		ns, name, _ := cut(c.Pod)
		pod := &v1.Pod{}
		pod.Namespace, pod.Name, pod.UID = ns, name, types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
		for j, cn := range c.Containers {
			ct := v1.Container{Name: cn, Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}
			if cn == "init" || (j == 0 && len(c.Containers) > 1 && c.Pod == "tm/gpu") {
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, ct)
			} else {
				pod.Spec.Containers = append(pod.Spec.Containers, ct)
			}
		}
		res := km.Admit(&lifecycle.PodAdmitAttributes{Pod: pod})
		c.Admit, c.Reason, c.Message = res.Admit, res.Reason, res.Message
	}
	klog.Flush()
	must(os.WriteFile(os.Args[1]+"-text.log", text.Bytes(), 0o644))
	b, _ := json.MarshalIndent(cases, "", " ")
	must(os.WriteFile(os.Args[1]+"-expected.json", append(b, '\n'), 0o644))
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
