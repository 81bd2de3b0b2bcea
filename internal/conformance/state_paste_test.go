package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/jsonrepair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What survives when a checkpoint is copied through a terminal, jq, an
// editor or a chat: the kubelet's checksum is computed over the decoded
// values (dump.ForHash of the checkpoint struct), not over the bytes. The
// tests below take every file the kubelet v1.37.2 itself wrote and accepts,
// change it the way copies change, and run the kubelet's own restore path
// on the result. numascope's reader must decide the same.

// pasteForm is one way a copy differs from the file. survives is what the
// kubelet's restore path decides for the copy (nil: the form does not apply
// to the file).
type pasteForm struct {
	name     string
	edit     func(kind string, data []byte) []byte // nil result: not applicable
	survives bool
	// outer: the edit touches only the outer members, which cpu v4 and
	// memory v3 files carry beside their data string; the kubelet restores
	// those files from the data string alone (checked by dataChecksum), so
	// an edit of the outer members survives there.
	outer bool
}

func (p pasteForm) survivesIn(c ManifestCase) bool {
	dataFormat := c.Kind == KindCPU && c.Format == "v4" || c.Kind == KindMemory && c.Format == "v3"
	return p.survives || p.outer && dataFormat
}

func indent(data []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		panic(err)
	}
	return append(b.Bytes(), '\n')
}

// jqSorted renders data as `jq -S .` does: every object's keys sorted,
// numbers as written, indented by two spaces.
func jqSorted(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil { // encoding/json sorts map keys
		panic(err)
	}
	return b.Bytes()
}

var reTopKey = regexp.MustCompile(`^\{"([a-z])`)

var pasteForms = []pasteForm{
	{"re-indented (jq .)", func(_ string, d []byte) []byte { return indent(d) }, true, false},
	{"sorted keys (jq -S .)", func(_ string, d []byte) []byte { return jqSorted(d) }, true, false},
	{"CRLF line ends", func(_ string, d []byte) []byte { return bytes.ReplaceAll(indent(d), []byte("\n"), []byte("\r\n")) }, true, false},
	{"key case changed (policyName as PolicyName)", func(_ string, d []byte) []byte {
		if !reTopKey.Match(d) {
			return nil
		}
		return reTopKey.ReplaceAllFunc(d, bytes.ToUpper)
	}, true, false},
	{"unknown key added", func(_ string, d []byte) []byte {
		return append([]byte(`{"copiedBy":"ops","note":{"why":"ticket 42"},`), d[1:]...)
	}, true, false},
	{`a digit written as \u003N`, func(_ string, d []byte) []byte { return escapeFirstDigit(d) }, true, false},
	{"empty entries written out where the kubelet omits them", func(kind string, d []byte) []byte {
		if kind != KindCPU || bytes.Contains(d, []byte(`"entries"`)) {
			return nil
		}
		return append([]byte(`{"entries":{},`), d[1:]...)
	}, true, false},
	{`"entries": null where the kubelet omits them`, func(kind string, d []byte) []byte {
		if kind != KindCPU || bytes.Contains(d, []byte(`"entries"`)) {
			return nil
		}
		return append([]byte(`{"entries":null,`), d[1:]...)
	}, false, true},
	{"cpuset range written out (0-3 as 0,1,2,3)", func(kind string, d []byte) []byte {
		if kind != KindCPU {
			return nil
		}
		return expandFirstRange(d)
	}, false, true},
	{"pod UID redacted", func(kind string, d []byte) []byte {
		uid := reUID.Find(d)
		if uid == nil || kind == KindDRA {
			return nil
		}
		return bytes.ReplaceAll(d, uid, []byte("<uid>"))
	}, false, false},
}

var reUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// escapeFirstDigit writes the first digit inside a string as a \u escape.
func escapeFirstDigit(d []byte) []byte {
	in := false
	for i := 0; i < len(d); i++ {
		switch c := d[i]; {
		case c == '\\' && in:
			i++
		case c == '"':
			in = !in
		case in && c >= '0' && c <= '9':
			out := append([]byte{}, d[:i]...)
			out = append(out, `\u003`...)
			out = append(out, c)
			return append(out, d[i+1:]...)
		}
	}
	return nil
}

var reRange = regexp.MustCompile(`"defaultCpuSet":"(\d+)-(\d+)`)

// expandFirstRange rewrites the first range of defaultCpuSet as a list.
func expandFirstRange(d []byte) []byte {
	m := reRange.FindSubmatchIndex(d)
	if m == nil {
		return nil
	}
	lo, hi := atoiBytes(d[m[2]:m[3]]), atoiBytes(d[m[4]:m[5]])
	var parts []string
	for c := lo; c <= hi; c++ {
		parts = append(parts, strconv.Itoa(c))
	}
	out := append([]byte{}, d[:m[2]]...)
	out = append(out, strings.Join(parts, ",")...)
	return append(out, d[m[5]:]...)
}

func atoiBytes(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

// acceptedGolden lists the kubelet-written files kubelet v1.37.2 accepts.
func acceptedGolden(t *testing.T) []ManifestCase {
	m, err := ReadManifest(GoldenDir)
	require.NoError(t, err)
	var out []ManifestCase
	for _, c := range m.Cases {
		if c.KubeletAccepts && c.Tamper == "" {
			out = append(out, c)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestPasteFormsSurvive proves, with the kubelet's own restore path, which
// changes a copy of a checkpoint survives, and that numascope decides the
// same for each copy.
func TestPasteFormsSurvive(t *testing.T) {
	r := NewRestorer(t.TempDir())
	applied := map[string]int{}
	for _, c := range acceptedGolden(t) {
		data, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File)))
		require.NoError(t, err)
		orig, err := r.Restore(c.Kind, data, c.Policy)
		require.NoError(t, err)
		require.True(t, orig.Accepts, "%s: the manifest says the kubelet accepts it", c.File)
		for _, form := range pasteForms {
			copied := form.edit(c.Kind, data)
			if copied == nil {
				continue
			}
			applied[form.name]++
			t.Run(c.File+"/"+form.name, func(t *testing.T) {
				got, err := r.Restore(c.Kind, copied, c.Policy)
				require.NoError(t, err)
				assert.Equal(t, form.survivesIn(c), got.Accepts, "kubelet: %s", got.Error)
				if form.survivesIn(c) && got.Accepts {
					assert.Empty(t, cmp.Diff(string(orig.Restored), string(got.Restored)), "the kubelet restores the same state from the copy")
				}
				f, err := decodeNumascope(c.Kind, copied, c.Policy)
				require.NoError(t, err)
				assert.Equal(t, got.Accepts, f.KubeletAccepts, "numascope's verdict on the copy (kubelet: %s; numascope: %s)", got.Error, f.Reason)
			})
		}
	}
	for _, form := range pasteForms {
		assert.NotZero(t, applied[form.name], "form %q applied to no golden file", form.name)
	}
}

// pasted renders a checkpoint the way it arrives in an issue: the command
// with its prompt, jq's indentation, a note on the third line, trailing
// commas, and the next prompt glued after it.
func pasted(kind string, data []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(indent(data)), "\n"), "\n")
	if len(lines) > 3 {
		lines[2] += "   # <-- look at this one"
	}
	for i := range lines {
		if strings.HasSuffix(lines[i], "}") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "}") {
			lines[i] += ","
		}
	}
	return []byte("[root@wrk-numa-07 ~]# cat /var/lib/kubelet/" + FileNames[kind] + " | jq .\n" + strings.Join(lines, "\n") + "[root@wrk-numa-07 ~]# ")
}

// TestRepairedPasteKeepsValues proves that the repairs numascope makes to
// a paste that changed no value (prompt, notes, trailing commas) give back
// values the kubelet restores exactly as from the file, checksum included;
// and that numascope still never reports "kubelet accepts" for a repaired
// paste, nor for one cut short.
func TestRepairedPasteKeepsValues(t *testing.T) {
	r := NewRestorer(t.TempDir())
	for _, c := range acceptedGolden(t) {
		data, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File)))
		require.NoError(t, err)
		t.Run(c.File, func(t *testing.T) {
			orig, err := r.Restore(c.Kind, data, c.Policy)
			require.NoError(t, err)
			paste := pasted(c.Kind, data)
			raw, err := r.Restore(c.Kind, paste, c.Policy)
			require.NoError(t, err)
			assert.False(t, raw.Accepts, "the kubelet cannot read the pasted text itself")

			res, err := jsonrepair.Repair(paste, jsonrepair.Options{Records: []string{"/entries", "/podEntries", "/Data/PodDeviceEntries", "/Data/RegisteredDevices"}})
			require.NoError(t, err)
			assert.False(t, res.Lossy, "repairs: %v", res.Repairs)
			got, err := r.Restore(c.Kind, res.JSON, c.Policy)
			require.NoError(t, err)
			require.True(t, got.Accepts, "kubelet on the repaired paste: %s", got.Error)
			assert.Empty(t, cmp.Diff(string(orig.Restored), string(got.Restored)))

			codes := func(ev *evidence.Set, copied bool) (map[string]bool, []diagnose.Finding) {
				rep, err := diagnose.Run(t.Context(), ev)
				require.NoError(t, err)
				require.Len(t, rep.Evidence, 1)
				if copied {
					assert.NotContains(t, rep.Evidence[0].Note, "kubelet accepts")
				}
				out := map[string]bool{}
				for _, f := range rep.Findings {
					out[f.Code] = true
				}
				return out, rep.Findings
			}
			// The node's file as it is: what numascope finds in its content.
			node := &evidence.Set{}
			require.NoError(t, node.AddStateFile(FileNames[c.Kind], data))
			want, _ := codes(node, false)
			want["PastedCheckpointCopy"] = true

			// The whole paste: the same findings, plus the one saying it is a copy.
			whole := &evidence.Set{}
			require.NoError(t, whole.AddStateFile(FileNames[c.Kind]+".txt", paste))
			require.Len(t, whole.States, 1)
			assert.False(t, whole.States[0].KubeletAccepts, "a repaired paste never gets the kubelet's verdict")
			got2, _ := codes(whole, true)
			assert.Empty(t, cmp.Diff(want, got2))

			// A paste cut short: refused when a required member is cut,
			// otherwise read as far as it goes, and never a verdict on the
			// node's file or advice to drain it or delete the file.
			cut := &evidence.Set{}
			if err := cut.AddStateFile(FileNames[c.Kind]+".txt", paste[:len(paste)*2/3]); err != nil {
				assert.Contains(t, err.Error(), "cannot decode checkpoint: truncated inside")
				return
			}
			got3, findings := codes(cut, true)
			assert.True(t, got3["PastedCheckpointCopy"])
			for _, code := range []string{diagnose.CodeCorruptCheckpoint, diagnose.CodeKubeletStartFailed, diagnose.CodeMemoryStateReplay, diagnose.CodeUnexplainedNUMAGroup, diagnose.CodeOfflineCPUs, diagnose.CodeDeviceCheckpointUnreadable} {
				assert.False(t, got3[code], "%s from a cut paste", code)
			}
			for _, f := range findings {
				assert.NotContains(t, strings.ToLower(f.Remedy), "drain", "%s: %s", f.Code, f.Title)
				assert.NotContains(t, strings.ToLower(f.Remedy), "delete", "%s: %s", f.Code, f.Title)
			}
		})
	}
}
