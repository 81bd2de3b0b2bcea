package main

import (
	"flag"
	"fmt"
	"io"
)

type nodeFlags struct {
	pod string
}

func addNodeFlags(fs *flag.FlagSet) *nodeFlags {
	nf := &nodeFlags{}
	fs.StringVar(&nf.pod, "pod", "", "pod YAML or JSON (as kubectl get pod -o yaml prints it)")
	return nf
}

func runNode(nf *nodeFlags, asJSON bool, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "admit: --pod needs --state-dir and --topology")
	return 2
}
