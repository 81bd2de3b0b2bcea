package evidence_test

import (
	"fmt"
	"os"

	"github.com/numascope/numascope/diagnose/evidence"
)

// Add a kubelet journal to the evidence and look at the admission attempts
// it records.
func ExampleSet_AddLog() {
	data, err := os.ReadFile("../testdata/tae-cpu-memory-split/kubelet.log")
	if err != nil {
		fmt.Println(err)
		return
	}
	var ev evidence.Set
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

// Add reads a paste of any kind: the kind comes from the content, and what
// the paste normaliser removed is listed with its line.
func ExampleSet_Add() {
	paste := "```\n$ kubectl get events -n ml\n" +
		"LAST SEEN   TYPE      REASON                  OBJECT            MESSAGE\n" +
		"41s         Warning   TopologyAffinityError   pod/trainer-0     Resources cannot be allocated with Topology locality\n```\n"
	var ev evidence.Set
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
