package diagnose_test

import (
	"context"
	"fmt"
	"os"

	"github.com/numascope/numascope/diagnose"
)

// Diagnose a rejected pod from the files found on the node.
func Example() {
	src := diagnose.Sources{
		Logs:          []string{"testdata/tae-gpu-taken-restricted/kubelet.log"},
		Pods:          []string{"testdata/tae-gpu-taken-restricted/pod.yaml"},
		KubeletConfig: []string{"testdata/tae-gpu-taken-restricted/kubelet-config.yaml"},
	}
	ev, err := diagnose.Load(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := diagnose.Run(context.Background(), ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Println(f.Severity, f.Code, f.Pod)
		if a := f.TopologyAffinityError; a != nil {
			fmt.Println("cause:", a.Cause, "policy:", a.Policy, "container:", a.Container)
		}
	}
	// Output:
	// error TopologyAffinityError ml/trainer
	// cause: insufficient-resources policy: restricted container: cuda
}

// Evidence can also be added from memory, for example in a browser.
func ExampleEvidence_AddLog() {
	var ev diagnose.Evidence
	if err := ev.AddLog("kubelet.log", []byte(`I1129 10:00:00.000000 1 allocation_manager.go:660] "Pod admission denied" podUID="u" pod="perf/bench" reason="SMTAlignmentError" message="SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"`)); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := diagnose.Run(context.Background(), &ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Findings[0].Code)
	fmt.Println(rep.Findings[0].Remedy)
	// Output:
	// SMTAlignmentError
	// Request a multiple of 2 CPUs for each Guaranteed container with integer CPUs (for example 4), then delete the failed pod so its controller recreates it.
}

// Add a kubelet journal to the evidence and look at the admission attempts
// it records.
func ExampleEvidence_AddLog_attempts() {
	data, err := os.ReadFile("testdata/tae-cpu-memory-split/kubelet.log")
	if err != nil {
		fmt.Println(err)
		return
	}
	var ev diagnose.Evidence
	if err := ev.AddLog("kubelet.log", data); err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range ev.Logs[0].Attempts {
		fmt.Println(a.Pod, a.Reason)
		for _, c := range a.Containers {
			for _, p := range c.Providers {
				fmt.Println(" ", p.Provider, len(p.Resources), "resource(s)")
			}
			fmt.Println("  best", c.BestHint)
		}
	}
	// Output:
	// default/guaranteed TopologyAffinityError
	//   device 0 resource(s)
	//   cpu 1 resource(s)
	//   memory 1 resource(s)
	//   best {any non-preferred}
}

// Render a report as Markdown for a ticket.
func ExampleReport_WriteMarkdown() {
	ev := &diagnose.Evidence{}
	if err := ev.SetKubeletConfig("config.yaml", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmemoryManagerPolicy: static\n")); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := diagnose.Run(context.Background(), ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rep.WriteMarkdown(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ## numascope diagnosis
	//
	// **✗ PolicyNameCase: memoryManagerPolicy "static" is not a policy name the kubelet knows; the kubelet will not start — 1 error**
	//
	// Kubelet: v1.21 or later (config.yaml sets memoryManagerPolicy)
	//
	// | evidence | kind | status | format | note |
	// |---|---|---|---|---|
	// | `config.yaml` | kubelet-config | read | file | 3 fields set |
	//
	// ### Error `PolicyNameCase`: memoryManagerPolicy "static" is not a policy name the kubelet knows; the kubelet will not start
	//
	// Policy names are case-sensitive and the managers disagree: the memory manager's policies are `None` and `Static` (capitalised), the CPU manager's are `none` and `static`. memoryManagerPolicy "static" matches neither, so the manager fails with `unknown policy: "static"` and the kubelet stops at start-up.
	//
	// **Remedy:** Set memoryManagerPolicy to "Static" and restart the kubelet.
	//
	// Evidence:
	//
	// - `config.yaml#/memoryManagerPolicy`: `static`
}

// Add reads a paste of any kind: the kind comes from the content, and what
// the paste normaliser removed is listed with its line.
func ExampleEvidence_Add() {
	paste := "```\n$ kubectl get events -n ml\n" +
		"LAST SEEN   TYPE      REASON                  OBJECT            MESSAGE\n" +
		"41s         Warning   TopologyAffinityError   pod/trainer-0     Resources cannot be allocated with Topology locality\n```\n"
	var ev diagnose.Evidence
	it := ev.Add("ticket-4711.txt", "", []byte(paste))
	fmt.Println(it.Kind, it.Status, it.Note)
	for _, w := range it.Warnings {
		fmt.Println(w)
	}
	// A file given as a pod that is an events table is read as events.
	it = ev.Add("pod.yaml", "pod", []byte(paste))
	fmt.Println(it.Kind, it.Status, it.Given)
	// Output:
	// events read 1 events
	// line 1: removed a Markdown code fence (2 lines)
	// line 2: removed shell prompt and command
	// events read pod
}
