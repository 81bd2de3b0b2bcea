package evidence

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/input"
)

const admitDenied131 = `"Pod admission denied" podUID="u1" pod="ns/p" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"`

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// TestParseLogWrappers reads the same kubelet line in every wrapper of
// evidence-formats.md §5.
func TestParseLogWrappers(t *testing.T) {
	klogLine := `I0305 09:14:02.118201    2741 kubelet.go:2310] ` + admitDenied131
	tests := []struct {
		name, in, wrapper, node, warning string
	}{
		{name: "bare klog", in: klogLine, wrapper: "plain"},
		{name: "journald short kubelet", in: "Mar 05 09:14:02 wrk-numa-07 kubelet[2741]: " + klogLine, wrapper: "journald-short", node: "wrk-numa-07"},
		{name: "journald short-precise kubenswrapper", in: "Mar 05 09:14:02.118201 wrk-numa-07 kubenswrapper[2741]: " + klogLine, wrapper: "journald-precise", node: "wrk-numa-07"},
		{name: "journald short-iso k3s", in: "2025-03-05T09:14:02+0000 wrk-numa-07 k3s[2741]: " + klogLine, wrapper: "journald-iso", node: "wrk-numa-07"},
		{name: "rke2 plain file", in: klogLine + "\r\n", wrapper: "plain"},
		{name: "hyperkube with banners", in: "-- Logs begin at Wed 2020-03-04 08:00:01 UTC. --\n-- Boot 0f3c --\nMar 05 09:14:02 n1 hyperkube[1]: " + klogLine, wrapper: "journald-short", node: "n1"},
		{name: "localised month", in: "5月 06 09:14:02 wrk-numa-07 kubelet[2741]: " + klogLine, wrapper: "journald-short", node: "wrk-numa-07", warning: "localised month names in the journald prefix (5月)"},
		{name: "German month", in: "Mär 05 09:14:02 wrk-numa-07 kubelet[2741]: " + klogLine, wrapper: "journald-short", node: "wrk-numa-07", warning: "localised month names in the journald prefix (Mär)"},
		{name: "ANSI colours", in: "Mar 05 09:14:02 wrk-numa-07 kubelet[2741]: \x1b[0;1;39m" + klogLine + "\x1b[0m", wrapper: "journald-short", node: "wrk-numa-07"},
		{name: "talosctl node prefix", in: "10.5.0.12: " + klogLine, wrapper: "node-prefix", node: "10.5.0.12"},
		{name: "node prefix before journald", in: "wrk-numa-07: Mar 05 09:14:02 ignored kubelet[2741]: " + klogLine, wrapper: "journald-short", node: "wrk-numa-07"},
		{name: "journal json", in: `{"__REALTIME_TIMESTAMP":"1741166042118201","_HOSTNAME":"wrk-numa-07","SYSLOG_IDENTIFIER":"kubelet","_PID":"2741","MESSAGE":` + jsonString(klogLine) + `}`, wrapper: "journal-json", node: "wrk-numa-07"},
		{name: "journal json byte array", in: `{"_HOSTNAME":"n2","MESSAGE":` + byteArray(klogLine) + `}`, wrapper: "journal-json", node: "n2"},
		{name: "gzip", in: string(gzipped(t, "Mar 05 09:14:02 wrk-numa-07 kubelet[2741]: "+klogLine+"\n")), wrapper: "journald-short", node: "wrk-numa-07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLog("k.log", strings.NewReader(tt.in))
			require.NoError(t, err)
			require.Len(t, l.Records, 1, "records")
			r := l.Records[0]
			assert.Equal(t, "Pod admission denied", r.Message, "message")
			assert.Equal(t, "kubelet.go:2310", r.Source, "source")
			assert.Equal(t, tt.node, r.Node, "node")
			assert.Equal(t, tt.wrapper, l.Wrapper, "wrapper")
			assert.Equal(t, "1.31 or later", l.Release.String(), "release")
			if tt.warning == "" {
				assert.Empty(t, l.Warnings, "warnings")
			} else if assert.Len(t, l.Warnings, 1, "warnings") {
				assert.Contains(t, l.Warnings[0], tt.warning, "warning")
			}
			k := l.interpret()
			if assert.Len(t, k.Attempts, 1, "attempts") {
				assert.Equal(t, "TopologyAffinityError", k.Attempts[0].Reason, "reason")
			}
		})
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

func byteArray(s string) string {
	parts := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		parts[i] = strings.TrimSpace(strings.Repeat(" ", 0) + itoa(int(s[i])))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}

// TestParseLogGzipBomb: a gzip stream that inflates past the limit stops
// there with an error naming the file, without holding the inflated log.
func TestParseLogGzipBomb(t *testing.T) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	require.NoError(t, err)
	line := []byte(strings.Repeat(" ", 1023) + "\n")
	for i := 0; i < 3<<10; i++ { // 3 MiB inflated
		_, err := zw.Write(line)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.Less(t, b.Len(), 64<<10, "the bomb is small")
	_, err = parseLog("/var/log/kubelet.log.gz", bytes.NewReader(b.Bytes()), 1<<20)
	require.Error(t, err)
	assert.True(t, errors.Is(err, input.ErrTooLarge), "wraps input.ErrTooLarge: %v", err)
	assert.Contains(t, err.Error(), "/var/log/kubelet.log.gz", "names the file")
	assert.Contains(t, err.Error(), "inflates to more than 1 MiB", "says it is the inflated size")
}

// TestParseLogGzipBombAtMaxLog runs the same bomb against the real limit.
func TestParseLogGzipBombAtMaxLog(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 256 MiB")
	}
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	require.NoError(t, err)
	line := []byte(strings.Repeat(" ", 1<<16-1) + "\n")
	for n := int64(0); n <= input.MaxLog; n += int64(len(line)) {
		_, err := zw.Write(line)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	_, err = ParseLog("bomb.gz", bytes.NewReader(b.Bytes()))
	require.Error(t, err)
	assert.True(t, errors.Is(err, input.ErrTooLarge), "wraps input.ErrTooLarge: %v", err)
	assert.Contains(t, err.Error(), "bomb.gz", "names the file")
}

func TestParseLogGzipProblems(t *testing.T) {
	_, err := ParseLog("x.gz", bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x.gz: starts with the gzip magic bytes but is not gzip", "error")

	// A cut download keeps the lines read before the cut, with a warning.
	var lines strings.Builder
	for i := 0; i < 2000; i++ {
		lines.WriteString("I0305 09:14:02.118201 1 kubelet.go:1] " + admitDenied131 + "\n")
	}
	z := gzipped(t, lines.String())
	l, err := ParseLog("cut.gz", bytes.NewReader(z[:len(z)-100]))
	require.NoError(t, err)
	assert.NotEmpty(t, l.Records, "records before the cut")
	assert.Contains(t, strings.Join(l.Warnings, "\n"), "the gzip stream ends early", "warning")
	assert.Equal(t, "gzip", l.Compressed, "compressed")
}

func TestParseLogContinuationsAndCuts(t *testing.T) {
	t.Run("F line continues without a header", func(t *testing.T) {
		in := "Mar 05 09:14:02 n kubelet[1]: F0305 09:14:02.000000 1 server.go:269] failed to run Kubelet: failed to start ContainerManager\n" +
			"Mar 05 09:14:02 n kubelet[1]: goroutine 1 [running]:\n" +
			"Mar 05 09:14:02 n kubelet[1]: main.main()\n" +
			"Mar 05 09:14:02 n kubelet[1]: I0305 09:14:03.000000 1 server.go:1] next\n"
		l, err := ParseLog("f.log", strings.NewReader(in))
		require.NoError(t, err)
		require.Len(t, l.Records, 2, "records")
		assert.Equal(t, "failed to run Kubelet: failed to start ContainerManager\ngoroutine 1 [running]:\nmain.main()", l.Records[0].Message, "joined message")
		assert.Equal(t, 0, l.Skipped, "no skipped lines")
	})
	t.Run("multi-line value behind journald prefixes", func(t *testing.T) {
		in := "Mar 05 09:14:02 n kubelet[1]: E0305 09:14:02.000000 1 a.go:1] \"Failed\" err=<\n" +
			"Mar 05 09:14:02 n kubelet[1]: \tline one\n" +
			"Mar 05 09:14:02 n kubelet[1]: \tline two\n" +
			"Mar 05 09:14:02 n kubelet[1]:  >\n"
		l, err := ParseLog("m.log", strings.NewReader(in))
		require.NoError(t, err)
		require.Len(t, l.Records, 1, "records")
		v, ok := l.Records[0].Get("err")
		assert.True(t, ok, "err value")
		assert.Equal(t, "line one\nline two", v, "err value")
	})
	t.Run("lines cut at a pager width", func(t *testing.T) {
		long := `I0305 09:14:02.118201 1 scope_container.go:80] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":1,"Preferred":true},{"NUMANodeAffinity":3,"Pref`
		in := long + ">\n" + long + ">\n"
		l, err := ParseLog("cut.log", strings.NewReader(in))
		require.NoError(t, err)
		if assert.Len(t, l.Warnings, 1, "warnings") {
			assert.Contains(t, l.Warnings[0], fmt.Sprintf("2 lines end inside a quoted or bracketed value (first at line 1), 2 of them at column %d: the log looks cut at a pager width", len(long)+1), "warning")
		}
	})
	t.Run("bare kubelet messages", func(t *testing.T) {
		in := "some prose\nAllocate failed due to rpc error: code = Unknown desc = device plugin lost its GPU, which is unexpected\n" +
			"endpoint not found in cache for a registered resource: nvidia.com/gpu\n"
		l, err := ParseLog("bare.log", strings.NewReader(in))
		require.NoError(t, err)
		assert.Len(t, l.Records, 2, "records")
		assert.Equal(t, 1, l.Skipped, "skipped")
		k := l.interpret()
		if s := k.SignalsOf(SignalDevicePluginRPC); assert.Len(t, s, 1, "rpc signals") {
			assert.Equal(t, "Unknown", s[0].Fields["code"], "code")
			assert.Equal(t, "device plugin lost its GPU", s[0].Fields["desc"], "desc")
		}
		if s := k.SignalsOf(SignalDeviceEndpointMissing); assert.Len(t, s, 1, "endpoint signals") {
			assert.Equal(t, "nvidia.com/gpu", s[0].Fields["resource"], "resource")
			assert.Equal(t, 3, s[0].Line, "line")
		}
		assert.Len(t, k.SignalsOf(SignalUnexpectedAdmission), 1, "unexpected-admission signals")
		j, err := ParseLog("bare.json", strings.NewReader(`{"__REALTIME_TIMESTAMP":"1741166042118201","MESSAGE":"endpoint not found in cache for a registered resource: a/b"}`))
		require.NoError(t, err)
		require.Len(t, j.Records, 1, "records of the journal export")
		assert.Equal(t, "1741166042118201", j.Records[0].Time, "journald time of a headerless message")
	})
	t.Run("nothing kubelet", func(t *testing.T) {
		_, err := ParseLog("prose.txt", strings.NewReader("hello\nworld\n"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "prose.txt: no kubelet log lines found in 2 lines", "error")
	})
}

func TestLogRelease(t *testing.T) {
	tests := []struct {
		name, in, want, warning string
		fixMinor, fixPatch      int
		has, known              bool
	}{
		{name: "start-up line", in: `I0305 09:14:02.1 1 server.go:487] "Kubelet version" kubeletVersion="v1.29.6"`, want: "v1.29.6", fixMinor: 29, fixPatch: 7, has: false, known: true},
		{name: "old start-up line", in: `I0305 09:14:02.1 1 server.go:416] Version: v1.16.3`, want: "v1.16.3", fixMinor: 16, fixPatch: 2, has: true, known: true},
		{name: "JSON masks in text", in: `I0305 09:14:02.1 1 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":1,"Preferred":true} pod="a/b" containerName="c"`, want: "1.28 or later", fixMinor: 27, has: true, known: true},
		{name: "admit handler with keys", in: `I0305 09:14:02.1 1 topology_manager.go:215] "Topology Admit Handler" podUID="u" podNamespace="a" podName="b"`, want: "1.27-1.30", fixMinor: 29, fixPatch: 1},
		{name: "flags", in: "I0305 09:14:02.1 1 flags.go:64] FLAG: --topology-manager-policy-options=\"\"\nI0305 09:14:02.1 1 flags.go:64] FLAG: --reserved-cpus=\"0\"", want: "1.26 or later", fixMinor: 25, has: true, known: true},
		{name: "status message before 1.26", in: `I0305 09:14:02.1 1 status_manager.go:1] "Patch status for pod" pod="a/b" podUID="u" patch="{\"status\":{\"message\":\"Pod Resources cannot be allocated with Topology locality\",\"reason\":\"TopologyAffinityError\"}}"`, want: "1.25 or older", fixMinor: 26, has: false, known: true},
		{name: "JSON start-up line", in: `{"ts":1.5,"caller":"app/server.go:487","msg":"Kubelet version","v":0,"kubeletVersion":{"major":"1","minor":"30","gitVersion":"v1.30.7"}}`, want: "v1.30.7", fixMinor: 31, has: false, known: true},
		{name: "JSON format with caller", in: `{"ts":1.5,"caller":"topologymanager/scope_container.go:79","msg":"TopologyHints","v":0,"hints":null,"pod":{"name":"b","namespace":"a"},"containerName":"c"}`, want: "1.22 or later"},
		{name: "contradiction", in: "I0305 09:14:02.1 1 topology_manager.go:1] [topologymanager] Topology Admit Handler\n" + `I0305 09:14:02.1 1 kubelet.go:2310] ` + admitDenied131,
			want: "1.20 or older", warning: `line 2: the "Pod admission denied" line (1.31 or later) contradicts the release the earlier lines imply (1.20 or older)`},
		{name: "nothing", in: `I0305 09:14:02.1 1 a.go:1] "hello"`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLog("v.log", strings.NewReader(tt.in))
			require.NoError(t, err)
			r := l.release()
			assert.Equal(t, tt.want, r.String(), "release; evidence %v", r.Evidence)
			if tt.want != "" {
				assert.NotZero(t, r.Line, "evidence line")
			}
			if tt.fixMinor != 0 {
				has, known := r.hasFix(tt.fixMinor, tt.fixPatch)
				assert.Equal(t, tt.known, known, "known")
				assert.Equal(t, tt.has, has, "has the fix")
			}
			if tt.warning == "" {
				assert.Empty(t, l.Warnings, "warnings")
			} else if assert.Len(t, l.Warnings, 1, "warnings") {
				assert.Contains(t, l.Warnings[0], tt.warning, "warning")
			}
		})
	}
}

func TestLogSignalsAdded(t *testing.T) {
	lines := []string{
		`E0305 09:14:02.1 1 policy_static.go:1] "Unable to allocate CPUs" err="not enough cpus available to satisfy request: requested=8, available=6" pod="ns/p" containerName="c"`,
		`E0305 09:14:02.1 1 manager.go:1] "Failed to allocate devices" err="rpc error: code = Unavailable desc = connection error" resourceName="nvidia.com/gpu"`,
		`I0305 09:14:02.1 1 kubelet.go:2310] "Pod admission denied" podUID="u" pod="ns/q" reason="UnexpectedAdmissionError" message="Allocate failed due to endpoint not found in cache for a registered resource: example.com/nic, which is unexpected"`,
	}
	l, err := ParseLog("s.log", strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	k := l.interpret()
	if s := k.SignalsOf(SignalNotEnoughCPUs); assert.Len(t, s, 1, "not-enough-cpus") {
		assert.Equal(t, map[string]string{"pod": "ns/p", "container": "c", "requested": "8", "available": "6"}, s[0].Fields, "fields")
	}
	if s := k.SignalsOf(SignalDevicePluginRPC); assert.Len(t, s, 1, "rpc") {
		assert.Equal(t, map[string]string{"pod": "", "code": "Unavailable", "desc": "connection error", "resource": "nvidia.com/gpu"}, s[0].Fields, "fields")
	}
	if s := k.SignalsOf(SignalDeviceEndpointMissing); assert.Len(t, s, 1, "endpoint") {
		assert.Equal(t, map[string]string{"pod": "ns/q", "resource": "example.com/nic"}, s[0].Fields, "fields")
	}
}
