// Command kubelet-restore runs kubelet v1.37.2's own start-up restore of the
// CPU or memory manager (state.NewCheckpointState: the checkpoint manager
// reads the file, verifies its checksum and migrates it) on each directory
// given, which holds the state file under the kubelet's name. It is the
// kubelet's side of the README's whole-process comparison with inspect:
//
//	go run ./cmd/kubelet-restore -kind memory -policy Static DIR...
//
// It prints how many files the kubelet accepted and exits 1 if it refused
// one. It writes nothing unless a directory has no state file (the kubelet
// then creates an empty one, as it does on a new node).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

func main() {
	kind := flag.String("kind", "memory", "cpu or memory")
	policy := flag.String("policy", "Static", "the configured policy (cpu: none or static; memory: None or Static)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: kubelet-restore [-kind cpu|memory] [-policy P] DIR...")
		os.Exit(2)
	}
	refused := 0
	for _, dir := range flag.Args() {
		if _, err := os.Stat(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var err error
		switch *kind {
		case "cpu":
			_, err = cpustate.NewCheckpointState(logr.Discard(), dir, "cpu_manager_state", *policy, containermap.ContainerMap{})
		case "memory":
			_, err = memstate.NewCheckpointState(logr.Discard(), dir, "memory_manager_state", *policy)
		default:
			fmt.Fprintf(os.Stderr, "-kind %q: give cpu or memory\n", *kind)
			os.Exit(2)
		}
		if err != nil {
			refused++
			fmt.Fprintf(os.Stderr, "%s: the kubelet refuses it: %v\n", dir, err)
		}
	}
	fmt.Printf("%d of %d accepted\n", flag.NArg()-refused, flag.NArg())
	if refused > 0 {
		os.Exit(1)
	}
}
