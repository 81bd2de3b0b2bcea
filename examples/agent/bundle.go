package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"testing/fstest"
	"time"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/nodebundle"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// writeBundle is `--once --report bundle`: instead of a report, the node's
// evidence as it is (the checkpoint files, config.yaml, a PodResources
// snapshot and the NUMA part of sysfs) as one numascope.bundle/v1 line, the
// one kubectl-numascope reads back from a short-lived pod's log. Every source
// is read with the same bounds as a round; one that cannot be read is listed
// in the bundle's errors and the others still go out.
func writeBundle(ctx context.Context, c config, w io.Writer) error {
	b := &nodebundle.Bundle{Node: c.node, Time: time.Now().UTC()}
	fail := func(p string, err error) {
		b.Errors = append(b.Errors, nodebundle.Error{Path: p, Message: err.Error()})
	}
	for _, kind := range statefile.Kinds() {
		p := kind.PathIn(c.stateDir)
		data, err := input.ReadFile(p, "state file", c.limits.state)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			fail(p, err)
		default:
			b.Files = append(b.Files, nodebundle.File{Path: filepath.ToSlash(kind.PathIn("")), Data: data})
		}
	}
	cfgPath, explicit := c.kubeletConfig, c.kubeletConfig != ""
	if !explicit {
		cfgPath = filepath.Join(c.stateDir, "config.yaml")
	}
	if !isOff(cfgPath) {
		data, err := input.ReadFile(cfgPath, "--kubelet-config", c.limits.config)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		case err != nil:
			fail(cfgPath, err)
		default:
			b.Files = append(b.Files, nodebundle.File{Path: "config.yaml", Data: data})
		}
	}
	if !isOff(c.sysfs) {
		if _, sys, err := readSysfs(c.sysfs); err != nil {
			fail(c.sysfs, err)
		} else if m, ok := sys.(fstest.MapFS); ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				b.Files = append(b.Files, nodebundle.File{Path: "sys/" + n, Data: m[n].Data})
			}
		}
	}
	var snap *podresources.Snapshot
	var err error
	src := c.socket + c.snapshot
	switch {
	case c.snapshot != "":
		snap, err = loadSnapshot(c.snapshot, c.limits)
	case isOff(c.socket):
	default:
		snap, err = readPodResources(ctx, c.socket, c.timeout, c.limits)
	}
	if err == nil && snap != nil && len(snap.Pods) > c.limits.pods {
		err = fmt.Errorf("%w: the answer lists %d pods, more than the %d of --max-pods", errTooManyPods, len(snap.Pods), c.limits.pods)
	}
	switch {
	case err != nil:
		fail(src, err)
	case snap != nil:
		data, err := json.Marshal(snap)
		if err != nil {
			return fmt.Errorf("encoding the PodResources snapshot: %w", err)
		}
		b.Files = append(b.Files, nodebundle.File{Path: "podresources.json", Data: data})
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nodebundle.Write(w, b)
}
