package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/numascope/numascope/internal/nodebundle"
)

// gatherOptions are the options of `gather node/NAME --out DIR`.
type gatherOptions struct {
	streams
	cluster clusterFlags
	dir     string
	node    string
}

func newGather(s streams) *command {
	o := &gatherOptions{streams: s}
	c := newCommand("gather")
	c.use = "gather node/NAME --out DIR [--no-node-access]"
	c.short = "write a node's evidence to a directory, for later or for someone else"
	c.long = `Gathers what diagnose gathers for a node, plus the pods bound to it and the events of
its failed pods, and writes it to a new or empty directory, named as diagnose --dir
(go run ./examples/diagnose in a clone of numascope) reads it. It prints no report.`
	c.example = `  # save a node's evidence for later (or for someone else)
  kubectl numascope gather node/worker-3 --out ./worker-3

  # the API objects and the kubelet's answers only: no pod on the node
  kubectl numascope gather node/worker-3 --out ./worker-3 --no-node-access`
	c.exit = "0 the directory is written, 2 the command line is wrong or the node cannot be read."
	c.own.StringVar(&o.dir, "out", "", "the directory to write (must not exist, or be empty)")
	o.cluster.bind(c.own, c.shared, withAgentImage|withAgentNamespace|withNoNodeAccess)
	c.opts = o
	c.cluster = &o.cluster
	return c
}

// Complete reads the node's name.
func (o *gatherOptions) Complete(args []string) error {
	name, err := objectName("gather", "node", args)
	o.node = name
	return err
}

// Validate checks --out and the connection flags.
func (o *gatherOptions) Validate() error {
	if o.dir == "" {
		return errors.New("gather needs --out DIR (a new or empty directory)")
	}
	return o.cluster.validate()
}

// Run writes the node's evidence to --out.
func (o *gatherOptions) Run(ctx context.Context) int {
	return o.cluster.run(ctx, o.streams, func(ctx context.Context, k *kube) int {
		return gatherNode(ctx, k, o, o.stderr)
	})
}

// gatherNode is `gather node/NAME --out DIR`.
func gatherNode(ctx context.Context, k *kube, o *gatherOptions, stderr io.Writer) int {
	if err := emptyDir(o.dir); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	c := &collection{}
	if err := collectNode(ctx, k, o.cluster, c, o.node); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	collectNodePods(ctx, k, c, o.node)
	for _, n := range c.notes {
		fmt.Fprintln(stderr, "kubectl-numascope:", n)
	}
	if err := c.writeDir(o.dir); err != nil {
		fmt.Fprintln(stderr, "kubectl-numascope:", err)
		return 2
	}
	var names []string
	for _, f := range c.files {
		if !strings.HasPrefix(f.path, "sys/") {
			names = append(names, f.path)
		}
	}
	fmt.Fprintf(stderr, "kubectl-numascope: wrote %s: %s; read it with diagnose --dir %s (go run ./examples/diagnose in a clone of numascope)\n", o.dir, strings.Join(names, ", "), o.dir)
	return 0
}

// emptyDir makes sure dir is new or empty: a gather never mixes its files
// with others.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("--out %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("--out %s is not empty: give a new directory", dir)
	}
	return nil
}

// collectNodePods adds the pods bound to the node (a gather has no one pod)
// and the events of those that failed.
func collectNodePods(ctx context.Context, k *kube, c *collection, node string) {
	list := &corev1.PodList{}
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String(), Limit: pageSize}
	for {
		page, err := k.cs.CoreV1().Pods("").List(ctx, opts)
		if err != nil {
			c.note("%v", checked(err, permission{"list", "", "pods", ""}, "listing the pods of node "+node))
			if len(list.Items) == 0 {
				return
			}
			c.note("node %s: only the first %d pods are in pods.yaml", node, len(list.Items))
			break
		}
		list.Items = append(list.Items, page.Items...)
		if page.Continue == "" {
			break
		}
		if len(list.Items) >= maxNodePods {
			c.note("node %s has more than %d pods: only the first %d are in pods.yaml", node, maxNodePods, len(list.Items))
			break
		}
		opts.Continue = page.Continue
	}
	// numascope's own short-lived pods are not the node's workload.
	kept := list.Items[:0]
	for _, p := range list.Items {
		if p.Labels[gatherLabel] != gatherValue {
			kept = append(kept, p)
		}
	}
	list.Items = kept
	var failed []corev1.Event
	for i := range list.Items {
		p := &list.Items[i]
		p.ManagedFields = nil
		if p.Status.Phase != corev1.PodFailed || len(failed) >= maxEvents {
			continue
		}
		evs, err := k.cs.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.kind", "Pod"),
			fields.OneTermEqualSelector("involvedObject.name", p.Name)).String(), Limit: maxEvents})
		if err != nil {
			c.note("%v", checked(err, permission{"list", "", "events", p.Namespace}, "listing the events of pod "+p.Namespace+"/"+p.Name))
			continue
		}
		for _, e := range evs.Items {
			e.ManagedFields = nil
			failed = append(failed, e)
		}
	}
	list.APIVersion, list.Kind = "v1", "List"
	if data, err := toYAML(list); err == nil {
		c.add("pods.yaml", "pod", data)
	}
	if len(failed) > 0 {
		if data, err := toYAML(corev1.EventList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: failed}); err == nil {
			c.add("events.yaml", "events", data)
		}
	}
}

// writeDir writes the collection as a directory examples/diagnose --dir reads.
func (c *collection) writeDir(dir string) error {
	b := &nodebundle.Bundle{Node: c.node}
	for _, f := range c.files {
		b.Files = append(b.Files, nodebundle.File{Path: f.path, Data: f.data})
	}
	if err := b.WriteDir(dir); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Clean(dir), err)
	}
	return nil
}
