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
	"io"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kubelet-restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "memory", "cpu or memory")
	policy := fs.String("policy", "Static", "the configured policy (cpu: none or static; memory: None or Static)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *kind != "cpu" && *kind != "memory" {
		fmt.Fprintln(stderr, "usage: kubelet-restore [-kind cpu|memory] [-policy P] DIR...")
		return 2
	}
	refused := 0
	for _, dir := range fs.Args() {
		if _, err := os.Stat(dir); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		var err error
		if *kind == "cpu" {
			_, err = cpustate.NewCheckpointState(logr.Discard(), dir, "cpu_manager_state", *policy, containermap.ContainerMap{})
		} else {
			_, err = memstate.NewCheckpointState(logr.Discard(), dir, "memory_manager_state", *policy)
		}
		if err != nil {
			refused++
			fmt.Fprintf(stderr, "%s: the kubelet refuses it: %v\n", dir, err)
		}
	}
	fmt.Fprintf(stdout, "%d of %d accepted\n", fs.NArg()-refused, fs.NArg())
	if refused > 0 {
		return 1
	}
	return 0
}
