package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// evidenceNames are the names evidence.SourcesFromDir picks up, in the order the
// parts of a fuzz input fill them.
var evidenceNames = []string{"kubelet-config.yaml", "machine-info.json", "pod.yaml", "events.yaml", "kubelet.log",
	"cpu_manager_state", "memory_manager_state", "podresources.json"}

// fuzzSeparator splits a fuzz input into the files of an evidence set.
const fuzzSeparator = "\n--8<--\n"

// scenarioSeed joins a scenario's files into one fuzz input.
func scenarioSeed(t testing.TB, dir string) []byte {
	var parts []string
	for _, n := range evidenceNames {
		b, err := os.ReadFile(filepath.Join("testdata", dir, n))
		if os.IsNotExist(err) {
			parts = append(parts, "")
			continue
		}
		require.NoError(t, err)
		parts = append(parts, string(b))
	}
	return []byte(strings.Join(parts, fuzzSeparator))
}

// FuzzLoadDir writes the parts of the input as an evidence directory and
// runs evidence.SourcesFromDir, evidence.Load and Run on it: any input ends, within the
// budget, with an error or a report.
func FuzzLoadDir(f *testing.F) {
	f.Add(scenarioSeed(f, "troubleshooting-page"))
	f.Add(scenarioSeed(f, "tae-state-only"))
	f.Add([]byte("reservedSystemCPUs: 0-400000000" + fuzzSeparator + `{"topology":[{"node_id":0,"cores":[{"thread_ids":[9223372036854775807]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for i, part := range strings.SplitN(string(data), fuzzSeparator, len(evidenceNames)) {
			if part != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, evidenceNames[i]), []byte(part), 0o600))
			}
		}
		fuzzbudget.Run(t, func() {
			src, err := evidence.SourcesFromDir(dir)
			require.NoError(t, err)
			ev, err := evidence.Load(src)
			if err != nil {
				assert.Contains(t, err.Error(), dir, "an error names the file")
				return
			}
			rep, err := Run(context.Background(), ev)
			if err != nil {
				return
			}
			for _, fd := range rep.Findings {
				assert.NotEmpty(t, fd.Code)
			}
		})
	})
}

// FuzzRun adds the parts of the input as evidence, each through its own
// parser, and runs the diagnosis on what parsed.
func FuzzRun(f *testing.F) {
	f.Add(scenarioSeed(f, "troubleshooting-page"))
	f.Add(scenarioSeed(f, "tae-state-only"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			ev := &evidence.Set{}
			parts := strings.SplitN(string(data), fuzzSeparator, len(evidenceNames))
			for i, part := range parts {
				b := []byte(part)
				var err error
				switch n := evidenceNames[i]; n {
				case "kubelet-config.yaml":
					err = ev.SetKubeletConfig(n, b)
				case "machine-info.json":
					err = ev.SetMachineInfo(n, b)
				case "pod.yaml":
					err = ev.AddPods(n, b)
				case "events.yaml":
					err = ev.AddEvents(n, b)
				case "kubelet.log":
					err = ev.AddLog(n, b)
				case "cpu_manager_state", "memory_manager_state":
					err = ev.AddStateFile(n, b)
				}
				if err != nil {
					assert.Contains(t, err.Error(), evidenceNames[i], "an error names the file")
				}
			}
			rep, err := Run(context.Background(), ev)
			if err != nil {
				return
			}
			for _, fd := range rep.Findings {
				assert.NotEmpty(t, fd.Code)
			}
		})
	})
}

// TestLoadDirRefusesAFIFOByName: a FIFO under an evidence name in a
// directory is refused, by its name, instead of blocking the read.
func TestLoadDirRefusesAFIFOByName(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "kubelet.log")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	src, err := evidence.SourcesFromDir(dir)
	require.NoError(t, err)
	ev, err := evidence.Load(src)
	require.NoError(t, err)
	require.Len(t, ev.Items(), 1, "evidence items")
	assert.Equal(t, "refused", ev.Items()[0].Status, "status of the FIFO")
	assert.Contains(t, ev.Items()[0].Error, "--log "+fifo+": not a regular file: it is a FIFO")
}
