package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// maxInstall bounds the executable --install copies (the agent is about
// 15 MB).
const maxInstall = 256 << 20

// installName is the file --install DIR writes: npd-numascope.json's rule
// runs DIR/agent.
const installName = "agent"

// runInstall is --install DIR: 0 when the agent is there, 1 when it could
// not be written, 2 for an argument besides.
func runInstall(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "agent: unexpected argument %q: --install takes the directory as its value\n", args[0])
		return 2
	}
	dst, err := install(dir)
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
		return 1
	}
	fmt.Fprintf(stdout, "agent: installed %s\n", dst)
	return 0
}

// install copies the running executable to dir/agent, mode 0755: the init
// container of npd-daemonset.yaml puts the agent where node-problem-
// detector's custom plugin config points, from the agent image, which has
// no shell and no cp. The copy is written beside its name and renamed over
// it, so node-problem-detector never runs a half-written file.
func install(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("--install %s: %w (give the directory the volume is mounted at)", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("--install %s: not a directory", dir)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("--install: finding this program: %w", err)
	}
	src, err := os.Open(self)
	if err != nil {
		return "", fmt.Errorf("--install: reading this program: %w", err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, "."+installName+"-*")
	if err != nil {
		return "", fmt.Errorf("--install %s: %w", dir, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(src, maxInstall+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("--install %s: copying %s: %w", dir, self, err)
	case n > maxInstall:
		return "", fmt.Errorf("--install: %s is over %d MiB: not an agent", self, maxInstall>>20)
	}
	err = errors.Join(tmp.Chmod(0o755), tmp.Sync(), tmp.Close())
	if err != nil {
		return "", fmt.Errorf("--install %s: %w", dir, err)
	}
	dst := filepath.Join(dir, installName)
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("--install %s: %w", dir, err)
	}
	done = true
	return dst, nil
}
