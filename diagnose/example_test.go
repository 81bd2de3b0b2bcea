package diagnose_test

import (
	"context"
	"fmt"
	"os"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
)

// Diagnose a rejected pod from the files found on the node.
func Example() {
	src := evidence.Sources{
		Logs:          []string{"testdata/tae-gpu-taken-restricted/kubelet.log"},
		Pods:          []string{"testdata/tae-gpu-taken-restricted/pod.yaml"},
		KubeletConfig: []string{"testdata/tae-gpu-taken-restricted/kubelet-config.yaml"},
	}
	ev, err := evidence.Load(src)
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
func ExampleRun_fromMemory() {
	var ev evidence.Set
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

// Render a report as Markdown for a ticket.
func ExampleReport_WriteMarkdown() {
	ev := &evidence.Set{}
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
