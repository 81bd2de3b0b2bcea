package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/require"
)

// FuzzReadSysfs writes the fuzzer's bytes as two NUMA nodes' cpulist files
// and the online CPU list, then reads them as the agent does: it never
// panics, stays within the budget, maps each CPU to the node whose list
// names it, and hands diagnose a copy it can parse.
func FuzzReadSysfs(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzReadSysfs.
	f.Fuzz(func(t *testing.T, list0, list1, online string) {
		root := t.TempDir()
		for i, list := range []string{list0, list1} {
			d := filepath.Join(root, "devices", "system", "node", "node"+strconv.Itoa(i))
			require.NoError(t, os.MkdirAll(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "cpulist"), []byte(list), 0o644))
		}
		cpu := filepath.Join(root, "devices", "system", "cpu")
		require.NoError(t, os.MkdirAll(cpu, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(cpu, "online"), []byte(online), 0o644))
		fuzzbudget.Run(t, func() {
			cpus, copyFS, err := readSysfs(root)
			if err != nil {
				return
			}
			for i, list := range []string{list0, list1} {
				set, err := cpulist.Parse(strings.TrimSpace(list))
				require.NoError(t, err, "node %d: readSysfs accepted %q, which the bounded parser refuses", i, list)
				for _, c := range set.List() {
					n, ok := cpus[c]
					require.True(t, ok, "CPU %d is on node %d, readSysfs does not know it", c, i)
					require.Equal(t, i, n, "CPU %d is on node %d, readSysfs says %d", c, i, n)
				}
			}
			if _, err := evidence.ParseSysfs(root, copyFS); err != nil && len(cpus) > 0 {
				t.Logf("diagnose refuses the copy: %v", err)
			}
		})
	})
}
