//go:build linux

package evidence

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gzipRSSChild is set in the environment of the child process
// TestGzipPeakRSS runs: the path of the log it loads.
const gzipRSSChild = "NUMASCOPE_GZIP_RSS_CHILD"

// maxGzipRSS is the memory bound of every compressed log below.
const maxGzipRSS = 512 << 20

// TestGzipPeakRSS loads compressed logs that used to be inflated whole
// in memory (up to 256 MiB) before they were streamed or refused: the
// gzip of a 300 MB journal (a peak RSS of 625 MiB before), the same
// compressed twice (refused as corrupt before), and a gzip bomb of 1 GiB
// of blank lines (341 s and 599 MiB before). Each runs in a child
// process of its own, whose peak RSS must stay under 512 MiB; the log is
// read or refused with a message that names it.
func TestGzipPeakRSS(t *testing.T) {
	if path := os.Getenv(gzipRSSChild); path != "" {
		ev, err := Load(Sources{Logs: []string{path}})
		require.NoError(t, err)
		require.NoError(t, json.NewEncoder(os.Stdout).Encode(ev.items))
		return
	}
	if testing.Short() {
		t.Skip("writes and reads a 300 MB journal")
	}
	dir := t.TempDir()
	journal := func(w io.Writer) error { return compressibleJournal(w, 300<<20) }
	blank := func(w io.Writer) error {
		line := bytes.Repeat([]byte("\n"), 1<<20)
		for range 1 << 10 {
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range []struct {
		name, file string
		layers     int
		gen        func(io.Writer) error
		status     string
		want       string // in the item's note or error
	}{
		{name: "gzip of a 300 MB journal", file: "journal.log.gz", layers: 1, gen: journal, status: "read", want: "lines streamed"},
		{name: "gzip of a gzip of a 300 MB journal", file: "journal.log.gz.gz", layers: 2, gen: journal, status: "read", want: "lines streamed"},
		{name: "gzip bomb: 1 GiB of blank lines", file: "bomb.gz", layers: 1, gen: blank, status: "refused", want: "decompression bomb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			writeGzip(t, path, c.layers, c.gen)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard, not a measurement
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGzipPeakRSS$", "-test.count=1")
			cmd.Env = append(os.Environ(), gzipRSSChild+"="+path)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			start := time.Now()
			require.NoError(t, cmd.Run(), "child: %s", errOut.String())
			took := time.Since(start)
			var items []Item
			dec := json.NewDecoder(&out)
			require.NoError(t, dec.Decode(&items), "the child's output: %.2000s", out.String())
			require.Len(t, items, 1, "evidence items")
			it := items[0]
			assert.Equal(t, c.status, it.Status, "status (error %q)", it.Error)
			assert.Contains(t, it.Note+it.Error, c.want)
			if c.status == "refused" {
				assert.Contains(t, it.Error, c.file, "the error names the file")
			}
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			require.True(t, ok, "rusage")
			assert.Less(t, ru.Maxrss*1024, int64(maxGzipRSS), "peak RSS %d MiB", ru.Maxrss/1024) // Maxrss is in KiB on Linux
			st, _ := os.Stat(path)
			t.Logf("%s (%d bytes): %s, %s, peak RSS %d MiB", c.file, st.Size(), it.Status, took.Round(10*time.Millisecond), ru.Maxrss/1024)
		})
	}
}

// writeGzip writes what gen writes to path, compressed layers times over.
func writeGzip(t *testing.T, path string, layers int, gen func(io.Writer) error) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	defer fh.Close()
	var w io.Writer = fh
	var zs []*gzip.Writer
	for range layers {
		zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
		require.NoError(t, err)
		zs = append(zs, zw)
		w = zw
	}
	require.NoError(t, gen(w))
	for i := len(zs) - 1; i >= 0; i-- {
		require.NoError(t, zs[i].Close())
	}
}

// compressibleJournal writes a kubelet journal of about size bytes that
// compresses as a real one does (the 300 MB journal: 14.5 MB,
// 20:1; journalgen's random container IDs keep it at 5:1, so its gzip is
// over the in-memory limit and was streamed before too): the pods' sync,
// hint and probe lines, one pod after the other.
func compressibleJournal(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	put := func(format string, args ...any) {
		k, _ := fmt.Fprintf(bw, format, args...)
		n += int64(k)
	}
	put("Mar 05 09:00:00 worker-3 kubelet[2741]: I0305 09:00:00.000001    2741 server.go:487] \"Kubelet version\" kubeletVersion=\"v1.31.4\"\n")
	for i := 0; n < size; i++ {
		m, s, us := i/60000%60, i/1000%60, i%1000000
		put("Mar 05 09:%02d:%02d worker-3 kubelet[2741]: I0305 09:%02d:%02d.%06d    2741 kubelet.go:2380] \"SyncLoop ADD\" source=\"api\" pods=[\"default/web-%d\"]\n", m, s, m, s, us, i)
		put("Mar 05 09:%02d:%02d worker-3 kubelet[2741]: I0305 09:%02d:%02d.%06d    2741 scope_container.go:80] \"TopologyHints\" hints={\"cpu\":[{\"NUMANodeAffinity\":1,\"Preferred\":true},{\"NUMANodeAffinity\":3,\"Preferred\":false}]} pod=\"default/web-%d\" containerName=\"app\"\n", m, s, m, s, us, i)
		put("Mar 05 09:%02d:%02d worker-3 kubelet[2741]: I0305 09:%02d:%02d.%06d    2741 prober.go:107] \"Probe succeeded\" probeType=\"Readiness\" pod=\"default/web-%d\" containerName=\"app\"\n", m, s, m, s, us, i)
	}
	return bw.Flush()
}
