package diagnose

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/journalgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadOneUnreadableOfThree is the acceptance rule: of three files, the
// two good ones are used, the third is listed with its error.
func TestLoadOneUnreadableOfThree(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	cfg := write("config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n")
	log := write("kubelet.log", "I0305 09:20:11.402913    2741 scope_container.go:77] \"TopologyHints\" hints=map[cpu:[{NUMANodeAffinity:01 Preferred:true}]] pod=\"telco/dpdk\" containerName=\"fwd\"\n")
	bad := write("pod.yaml", "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {cpu: x}}\n")
	ev, err := evidence.Load(evidence.Sources{KubeletConfig: []string{cfg}, Logs: []string{log}, Pods: []string{bad}})
	require.NoError(t, err)
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	var got []string
	for _, e := range rep.Evidence {
		got = append(got, filepath.Base(e.File)+" "+e.Kind+" "+e.Status)
	}
	assert.Empty(t, cmp.Diff([]string{"config.yaml kubelet-config read", "kubelet.log kubelet-log read", "pod.yaml pod refused"}, got), "evidence")
	assert.Contains(t, rep.Evidence[2].Error, "/spec/containers/0/resources/limits/cpu", "the error names the field")
	assert.NotNil(t, ev.Config, "configuration used")
	assert.Len(t, ev.Logs, 1, "logs used")
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "Evidence not used (1 of 3 inputs):\n  - "+bad+": refused: ", "text report")
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "**Evidence not used (1 of 3 inputs):**", "markdown report")
}

// comparable is what the findings of a run are: the JSON report without
// the evidence list, whose notes say how each input was read.
func comparable(t *testing.T, rep Report) string {
	t.Helper()
	rep.Evidence = nil
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	return b.String()
}

// TestLogStreamMatchesInMemory runs every scenario and every test log
// twice, read into memory and streamed, and wants the same findings: the
// records the stream drops are records no finding reads.
func TestLogStreamMatchesInMemory(t *testing.T) {
	compared := 0
	for _, dir := range scenarioDirs(t) {
		dir, err := filepath.Abs(dir)
		require.NoError(t, err)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			memory := runScenarioStreaming(t, dir, 0)
			if pastedLog(memory) {
				return // a pasted log is normalised in memory, never when streamed
			}
			compared++
			want := comparable(t, memory)
			got := comparable(t, runScenarioStreaming(t, dir, -1))
			require.NotEmpty(t, want)
			assert.Empty(t, cmp.Diff(want, got))
		})
	}
	assert.Greater(t, compared, 40, "scenarios compared")

	logs, err := filepath.Glob("testdata/logs/*.log")
	require.NoError(t, err)
	var gen bytes.Buffer
	_, _, err = journalgen.Write(&gen, 4<<20, 1)
	require.NoError(t, err)
	genPath := filepath.Join(t.TempDir(), "journal.log")
	require.NoError(t, os.WriteFile(genPath, gen.Bytes(), 0o600))
	logs = append(logs, genPath)
	for _, p := range logs {
		t.Run(filepath.Base(p), func(t *testing.T) {
			run := func(streamFrom int64) (string, *evidence.KubeletLog) {
				ev, err := evidence.Load(evidence.Sources{Logs: []string{p}, StreamFrom: streamFrom})
				require.NoError(t, err)
				require.Len(t, ev.Logs, 1)
				rep, err := Run(context.Background(), ev)
				require.NoError(t, err)
				return comparable(t, rep), ev.Logs[0]
			}
			want, wl := run(0)
			got, gl := run(-1)
			assert.Empty(t, cmp.Diff(want, got))
			assert.Empty(t, cmp.Diff(wl.Attempts, gl.Attempts))
			assert.Empty(t, cmp.Diff(wl.Signals, gl.Signals, cmp.AllowUnexported(evidence.Signal{})))
			assert.Equal(t, wl.Release, gl.Release)
			assert.Equal(t, wl.Warnings, gl.Warnings)
			assert.Equal(t, len(wl.Records), len(gl.Records)+gl.Dropped)
		})
	}
}

// BenchmarkLogStream diagnoses a generated 64 MiB `journalctl -u kubelet`
// log through the streaming reader, as the CLI reads a large --log file;
// MB/s is the log's bytes.
func BenchmarkLogStream(b *testing.B) {
	var gen bytes.Buffer
	_, _, err := journalgen.Write(&gen, 64<<20, 1)
	require.NoError(b, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(gen.Bytes())
	require.NoError(b, err)
	require.NoError(b, zw.Close())
	for _, c := range []struct {
		name string
		data []byte
	}{{"text", gen.Bytes()}, {"gzip", gz.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(gen.Len()))
			b.ReportAllocs()
			for b.Loop() {
				e := evidence.Set{StreamFrom: -1}
				it := e.AddLogStream("kubelet.log", bytes.NewReader(c.data), 0)
				if it.Status != "read" {
					b.Fatal(it.Error)
				}
				if _, err := Run(context.Background(), &e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// pastedLog reports whether a log of the report was changed by the paste
// normaliser (Markdown, prompts, entities...), which a streamed log does
// without: its warnings say what was changed, by line.
func pastedLog(r Report) bool {
	for _, it := range r.Evidence {
		if it.Kind == evidence.KindLog {
			for _, w := range it.Warnings {
				if strings.HasPrefix(w, "line ") {
					return true
				}
			}
		}
	}
	return false
}
