package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// FuzzValidJSON holds the fast scanner's syntax check to encoding/json's.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `{"a":[true,false,null,-0.5e+3]}`, `"\u00e9\ud800"`, `01`, `{"a":1,}`, `[1 2]`, "\"\x01\"", `"\x"`, ` 1 `, `{"a"}`, `1.`, `-`, `1e`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Run(t, func() {
			require.Equal(t, json.Valid(b), validJSON(b), "validJSON(%q) against encoding/json's Valid", b)
		})
	})
}

// FuzzUnquote holds the data-section unescaping to encoding/json's.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"abc"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"\n\t\/\\\""`, "\"\xed\xa0\x80\"",
		`"{\"numaAffinity\":[0,1],\"type\":\"memory\",\"size\":1024}"`, `"\"numaAffinity\":"`, `"\"numaAffinity\":["`, `"\"type\":\"memory\",\"size\":"`, `"\"type\":\"memory\",\"size\""`, `"\"type\":\"memory\",\"size\":\u0030"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Run(t, func() {
			s := fastScanner{b: b}
			start, end, _, ok := s.str()
			if !ok || s.i != len(b) {
				d := fastScanner{b: b}
				if _, _, ok := d.dataString(nil); ok {
					require.NotEqual(t, len(b), d.i, "dataString accepts all of %q, the scanner does not", b)
				}
				return
			}
			var want string
			require.NoError(t, json.Unmarshal(b, &want), "scanner accepted %q, encoding/json", b)
			require.Equal(t, want, string(unquoteInto(nil, b[start:end])), "unquote(%q) against encoding/json", b)
			d := fastScanner{b: b}
			got, sum, ok := d.dataString(nil)
			require.True(t, ok, "dataString(%q) refuses what the scanner and encoding/json read", b)
			require.Equal(t, want, string(got), "dataString(%q) against encoding/json", b)
			require.Equal(t, stringChecksum(want), sum, "dataString(%q): checksum", b)
			require.Equal(t, len(b), d.i, "dataString(%q): bytes read", b)
		})
	})
}

// FuzzCPUSet holds the allocation-free cpuset check to cpuset.Parse.
func FuzzCPUSet(f *testing.F) {
	for _, s := range []string{"", "0-3,7", "+1", "1-+2", "1--2", "-1", ",", "3-1", "1-1", "007", "9223372036854775808", " 1", "9223372036854775807-9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			// cpuset.Parse builds ranges CPU by CPU; keep it to small ones
			ok := validCPUSet([]byte(s))
			if ok {
				_, err := cpuset.Parse(s)
				require.NoError(t, err, "validCPUSet(%q) = true, cpuset.Parse", s)
				return
			}
			// refused: either Parse refuses, or a range is wider than maxCPURange
			if !hugeRange(s) {
				_, err := cpuset.Parse(s)
				require.Error(t, err, "validCPUSet(%q) = false, cpuset.Parse accepts it", s)
			}
		})
	})
}

func hugeRange(s string) bool {
	for _, r := range bytes.Split([]byte(s), []byte(",")) {
		if i := bytes.IndexByte(r, '-'); i >= 0 {
			a, ok1 := atoi(r[:i])
			b, ok2 := atoi(r[i+1:])
			if ok1 && ok2 && a <= b && (b-a > maxCPURange || b == math.MaxInt) {
				return true
			}
		}
	}
	return false
}

// FuzzVerifyFast holds the fast path to the exact path: whenever it answers,
// the exact path must accept the file with the same checksum.
func FuzzVerifyFast(f *testing.F) {
	cpu, err := Encode(&File{Kind: KindCPU, CPU: sampleCPU()}, FormatV4)
	require.NoError(f, err)
	mem, err := Encode(&File{Kind: KindMemory, Memory: sampleMemory()}, FormatV3)
	require.NoError(f, err)
	f.Add(cpu, true, "")
	f.Add(mem, false, "")
	f.Add(mem, false, "Static")
	f.Add(cpu, true, "none")
	f.Fuzz(func(t *testing.T, data []byte, isCPU bool, policy string) {
		// the exact path decodes the bytes up to twice
		fuzzbudget.RunWith(t, decodes(2), func() {
			kind := KindMemory
			if isCPU {
				kind = KindCPU
			}
			opts := Options{Name: "fuzz", Kind: kind, Policy: policy}
			// whatever the stored checksum: a file the scanner reads is one
			// encoding/json reads, and the data checksum is the same
			if sum, ok := dataComputed(data, kind); ok {
				file, err := Decode(data, Options{Name: "fuzz", Kind: kind})
				require.NoError(t, err, "fast scanner reads it, Decode fails")
				want := layoutCPUV4
				if kind == KindMemory {
					want = layoutMemV3
				}
				found := false
				for _, l := range file.Checksum.Layouts {
					if l.Name == want {
						found = true
						require.Equal(t, l.Computed, sum, "data checksum: fast path against exact path")
					}
				}
				require.True(t, found, "exact path has no %s layout", want)
				if !file.KubeletAccepts {
					// only a checksum, a policy or a value the kubelet cannot parse
					require.Regexp(t, `checkpoint is corrupted|policy|parse`, file.Reason, "fast scanner reads it, the kubelet cannot")
				}
			}
			fast, ok := verifyFast(data, opts)
			// reading the data section first, or alongside its scan, changes
			// the order of work, not the answer
			inOrder, ok2 := verifyFastAt(data, opts, -1)
			require.Equal(t, ok, ok2, "fast path taken with the data section read first / in file order")
			require.Equal(t, fast, inOrder, "verdict with the data section read first / in file order")
			along, ok2 := withTinyFeed(func() (*Verdict, bool) { return verifyFast(data, opts) })
			require.Equal(t, ok, ok2, "fast path taken with the data section read first / alongside")
			require.Equal(t, fast, along, "verdict with the data section read first / alongside")
			if !ok {
				return
			}
			file, err := Decode(data, opts)
			require.NoError(t, err, "fast path accepts, Decode fails")
			require.True(t, file.KubeletAccepts, "fast path accepts; exact path refuses: %s", file.Reason)
			require.Equal(t, fast.Format, file.Format, "format of the fast and exact paths")
			require.Equal(t, fast.Checksum.Stored, file.Checksum.Stored, "stored checksum of the fast and exact paths")
			require.True(t, file.Checksum.Valid, "fast path accepts; exact path finds the checksum invalid")
		})
	})
}

// FuzzTypedNumbers holds the typed number scanners to encoding/json.
func FuzzTypedNumbers(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "1.5", "1e3", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "9223372036854775808", "-", "00", "0x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Run(t, func() {
			doc := append(append([]byte(`{"u":`), b...), '}')
			var u struct{ U uint64 }
			var i struct{ U int }
			errU := json.Unmarshal(doc, &u)
			errI := json.Unmarshal(doc, &i)
			s := fastScanner{b: b}
			v, ok := s.typedUint64()
			whole := ok && s.i == len(b)
			if whole {
				require.NoError(t, errU, "typedUint64 reads all of %q, encoding/json refuses it", b)
				require.Equal(t, u.U, v, "typedUint64(%q) against encoding/json", b)
			}
			s = fastScanner{b: b}
			iv, ok := s.parsedIntFast()
			whole = ok && s.i == len(b)
			if whole {
				require.NoError(t, errI, "parsedIntFast reads all of %q, encoding/json refuses it", b)
				require.Equal(t, int64(i.U), iv, "parsedIntFast(%q) against encoding/json", b)
			}
			if errU == nil && b[0] != ' ' && b[0] != '\t' && b[0] != '\n' && b[0] != '\r' && b[len(b)-1] >= '0' && b[len(b)-1] <= '9' {
				s = fastScanner{b: b}
				_, ok := s.typedUint64()
				require.True(t, ok, "typedUint64(%q) refuses what encoding/json accepts", b)
			}
		})
	})
}

// FuzzSkipPlain holds the eight-bytes-at-a-time string scan to a byte loop.
func FuzzSkipPlain(f *testing.F) {
	for _, s := range []string{"", "abcdefgh\"", "0123456789abcdef\\", "\x1f", "\xff\xfe\x80abcdefghij\x00", "aaaaaaa\"bbbbbbbb\"", "\x21\x5b\x5d\x23\x60"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		fuzzbudget.Run(t, func() {
			if i < 0 || i > len(b) {
				i = 0
			}
			want := i
			for want < len(b) && strPlain[b[want]] {
				want++
			}
			require.Equal(t, want, skipPlain(b, i), "skipPlain(%q, %d)", b, i)
		})
	})
}

// TestVerifyDataFirst covers the files where reading the data section
// first cannot shortcut the outer copy: a decoy `"data":"` before the real
// member, an outer copy that differs from the data section, and an outer
// copy the kubelet cannot read. Verify must agree with Decode on each, and
// with the fast path taken in file order.
func TestVerifyDataFirst(t *testing.T) {
	cpu, err := Encode(&File{Kind: KindCPU, CPU: sampleCPU()}, FormatV4)
	require.NoError(t, err)
	mem, err := Encode(&File{Kind: KindMemory, Memory: sampleMemory()}, FormatV3)
	require.NoError(t, err)
	for _, c := range []struct {
		name      string
		kind      Kind
		data      string
		accepts   bool
		fastTaken bool
	}{
		{"cpu as written", KindCPU, string(cpu), true, true},
		{"memory as written", KindMemory, string(mem), true, true},
		// a container named "data" in the outer copy comes first
		{"cpu decoy data member", KindCPU, strings.Replace(string(cpu), `"side":"4"`, `"data":"4"`, 1), true, true},
		// the outer copy differs (only the data section counts)
		{"cpu outer copy differs", KindCPU, strings.Replace(string(cpu), `"pod-b":{"db":"5"}`, `"pod-b":{"db":"9"}`, 1), true, true},
		{"memory outer copy differs", KindMemory, strings.Replace(string(mem), `"size":2147483648}]}},"checksum"`, `"size":1}]}},"checksum"`, 1), true, true},
		// the outer copy is not the kubelet's type: json.Unmarshal fails
		{"cpu outer copy mistyped", KindCPU, strings.Replace(string(cpu), `"pod-b":{"db":"5"}`, `"pod-b":{"db":5}`, 1), false, false},
		{"memory outer copy mistyped", KindMemory, strings.Replace(string(mem), `"size":2147483648}]}},"checksum"`, `"size":-1}]}},"checksum"`, 1), false, false},
		// the outer copy holds the data section's entries and more after them
		{"cpu outer copy longer", KindCPU, strings.Replace(string(cpu), `"pod-b":{"db":"5"}},"checksum"`, `"pod-b":{"db":"5"},"pod-c":{}},"checksum"`, 1), true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.data)
			if c.name != "cpu as written" {
				require.NotEqual(t, string(cpu), c.data, "the edit did not apply")
			}
			if c.name != "memory as written" {
				require.NotEqual(t, string(mem), c.data, "the edit did not apply")
			}
			opts := Options{Name: "f", Kind: c.kind}
			f, err := Decode(data, opts)
			require.NoError(t, err)
			v, err := Verify(data, opts)
			require.NoError(t, err)
			fast, ok := verifyFast(data, opts)
			inOrder, ok2 := verifyFastAt(data, opts, -1)
			assert.Equal(t, c.accepts, f.KubeletAccepts, "Decode accepts (%s)", f.Reason)
			assert.Equal(t, c.accepts, v.KubeletAccepts, "Verify accepts")
			assert.Equal(t, c.fastTaken, ok, "fast path taken")
			assert.Equal(t, ok, ok2, "fast path taken in file order")
			assert.Equal(t, fast, inOrder, "verdict of the fast path / in file order")
		})
	}
}

// withTinyFeed runs f with the data section of any file read on a second
// goroutine in chunks of a few bytes, so that chunk and window boundaries
// fall everywhere.
func withTinyFeed(f func() (*Verdict, bool)) (*Verdict, bool) {
	chunk, window, least := feedChunk, feedWindow, feedMin
	defer func() { feedChunk, feedWindow, feedMin = chunk, window, least }()
	feedChunk, feedWindow, feedMin = 5, 11, 0
	return f()
}

// TestVerifyAlongside holds the data section read on a second goroutine to
// the plain reading on large files: as written, with a corrupt data
// section, with invalid UTF-8 (which the reading goroutine leaves to the
// plain reading), and with a member longer than the scan's window.
func TestVerifyAlongside(t *testing.T) {
	mem := benchMemoryFile(t, FormatV3)
	cpu := benchCPUFile(t, FormatV4)
	// a cpuset string longer than the window: every other CPU of 40,000
	big := sampleCPU()
	var every []int
	for i := 0; i < 40000; i += 2 {
		every = append(every, i)
	}
	big.Entries["pod-big"] = map[string]cpuset.CPUSet{"wide": cpuset.New(every...)}
	bigData, err := Encode(&File{Kind: KindCPU, CPU: big}, FormatV4)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		kind Kind
		data []byte
		// whether readDataAlongside itself takes it (or leaves it to
		// the plain reading): "yes", "no", or "either" where it depends
		// on timing (a value longer than the window fails the scan only
		// if the scan catches up with the reader before it is done)
		alongside string
	}{
		{"memory", KindMemory, mem, "yes"},
		{"cpu", KindCPU, cpu, "yes"},
		{"memory corrupt", KindMemory, bytes.Replace(mem, []byte(`\"size\":1048576`), []byte(`\"size\":1048577`), 1), "yes"},
		{"cpu bad cpuset late", KindCPU, resum(t, lastReplace(t, cpu, `\"sidecar\":\"25`, `\"sidecar\":\"x`)), "no"},
		{"memory invalid utf-8", KindMemory, resum(t, lastReplace(t, mem, `\"type\":\"memory\"`, "\\\"type\\\":\\\"mem\xffory\\\"")), "no"},
		{"cpu string over the window", KindCPU, bigData, "either"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.GreaterOrEqual(t, len(c.data), feedMin, "too small to be read alongside")
			k := bytes.Index(c.data, dataKey)
			// the second result is the reader's buffer, for reuse; no error
			p, _ := readDataAlongside(c.data, k+len(`"data":`), nil, spansReader(c.kind))
			if c.alongside != "either" {
				require.Equal(t, c.alongside == "yes", p != nil, "read alongside (want %s)", c.alongside)
			}
			opts := Options{Name: "f", Kind: c.kind}
			along, ok := verifyFast(c.data, opts)
			inOrder, ok2 := verifyFastAt(c.data, opts, -1)
			require.Equal(t, ok2, ok, "fast path taken alongside / in file order")
			require.Equal(t, inOrder, along, "verdict read alongside / in file order")
			v, err := Verify(c.data, opts)
			require.NoError(t, err)
			f, err := Decode(c.data, opts)
			require.NoError(t, err)
			assert.Equal(t, f.KubeletAccepts, v.KubeletAccepts, "accepts for Verify and Decode (%s)", f.Reason)
			assert.Equal(t, f.Checksum.Valid, v.Checksum.Valid, "checksum valid for Verify and Decode")
			t.Logf("%d bytes, fast path %v, accepts %v", len(c.data), ok, v.KubeletAccepts)
		})
	}
}

// lastReplace replaces the last old in data by new.
func lastReplace(t *testing.T, data []byte, old, new string) []byte {
	i := bytes.LastIndex(data, []byte(old))
	require.GreaterOrEqual(t, i, 0, "no %q", old)
	return append(append(append([]byte(nil), data[:i]...), new...), data[i+len(old):]...)
}

// resum rewrites the dataChecksum at the end of a v3/v4 file to match its
// data section.
func resum(t *testing.T, data []byte) []byte {
	k := bytes.LastIndex(data, []byte(`","dataChecksum":`))
	d := bytes.Index(data, dataKey)
	require.GreaterOrEqual(t, k, 0, "not a v3/v4 file: no dataChecksum")
	require.GreaterOrEqual(t, d, 0, "not a v3/v4 file: no data")
	sum := bytesStringChecksum(unquoteInto(nil, data[d+len(dataKey):k]))
	return fmt.Appendf(append([]byte(nil), data[:k]...), `","dataChecksum":%d}`, sum)
}

// TestFeedWindow shows a scan over a data section still being read
// failing, rather than misreading, at a value longer than its window: the
// reader has stopped in the middle of the value.
func TestFeedWindow(t *testing.T) {
	window := feedWindow
	defer func() { feedWindow = window }()
	feedWindow = 16
	section := []byte(`{"policyName":"static","defaultCpuSet":"` + strings.Repeat("1,", 100) + `1","entries":{}}`)
	f := &dataFeed{buf: section, more: make(chan struct{}, 1), done: make(chan struct{})}
	inValue := bytes.Index(section, []byte(`1,1,`)) + 20
	f.publish(inValue)
	s := fastScanner{b: f.buf[:0], feed: f}
	_, _, ok := s.innerSpans(KindCPU, nil)
	require.False(t, ok, "the scan read a section that was read only up to the middle of a value")
	assert.False(t, s.final, "the scan saw the section as final")
	assert.Len(t, s.b, inValue, "bytes the scan saw, against those the reader published")
	// once the reader is done, the same section reads
	f.n, f.ok = len(section), true
	f.publish(len(section))
	close(f.done)
	s = fastScanner{b: f.buf[:0], feed: f}
	_, _, ok = s.innerSpans(KindCPU, nil)
	require.True(t, ok, "the whole section does not read")
}

// TestSpewLongAffinity decodes a block with a long NUMA list on Decode's
// fast path of the spew layouts.
func TestSpewLongAffinity(t *testing.T) {
	m := sampleMemory()
	var nodes []int
	for n := 0; n < 64; n++ {
		nodes = append(nodes, n*1000003)
	}
	m.Entries["pod-wide"] = map[string][]Block{"app": {{NUMAAffinity: nodes, Type: "memory", Size: 1 << 62}, {NUMAAffinity: []int{}, Type: "hugepages-1Gi", Size: 0}}}
	for _, format := range []Format{FormatV1, FormatV2} {
		data, err := Encode(&File{Kind: KindMemory, Memory: m}, format)
		require.NoError(t, err)
		r, ok := fastRestoreMemorySpew(data, true)
		require.True(t, ok, "%s: the fast path does not read the file", format)
		assert.True(t, r.checksum.Valid, "%s: the fast path does not accept the kubelet's own checksum", format)
		assert.Equal(t, format, r.format, "%s: format of the fast path", format)
		diff, _ := fastDiff(t, data, Options{Name: "m"})
		assert.Empty(t, diff, "%s: exact (-) and fast (+)", format)
	}
}
