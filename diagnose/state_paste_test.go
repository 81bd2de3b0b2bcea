package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// golden files the kubelet's own code wrote, one per kind and format.
var pasteGolden = []string{
	"cpu/legacy-v1.21.0-cpu-v1-static-0.json",
	"cpu/v2-static.json",
	"cpu/v3-static.json",
	"cpu/v4-static.json",
	"memory/v1-static.json",
	"memory/v2-static.json",
	"memory/v3-static.json",
	"device/legacy-v1.30.0-device-v1-0.json",
	"device/v2-random-0.json",
	"dra/legacy-v1.27.0-dra-spew-no-handles-0.json",
	"dra/crc32-random-0.json",
}

func readGolden(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "statefile", "testdata", "kubelet", filepath.FromSlash(name)))
	require.NoError(t, err)
	return b
}

func indentJSON(t *testing.T, data []byte) string {
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, data, "", "  "))
	return b.String()
}

// content is what a decoded checkpoint holds, as JSON, to compare a
// repaired paste with the file.
func content(t *testing.T, f *statefile.File) string {
	b, err := json.Marshal([]any{f.Kind, f.Format, f.CPU, f.Memory, f.Device, f.DRA})
	require.NoError(t, err)
	return string(b)
}

var reAnyUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

const prompt = "[root@wrk-numa-07 ~]# cat /var/lib/kubelet/cpu_manager_state | jq .\n"

// pasteCase is one paste form applied to a golden file.
type pasteCase struct {
	name string
	make func(t *testing.T, data []byte) string
	// same: the repaired paste holds exactly the file's values.
	same bool
	// lossy: values may be missing or changed, so verification is skipped.
	lossy bool
	// lines are input lines a repair must name.
	lines []int
	// quote starts the quote of a repair the finding must cite.
	quote string
}

func addLineNote(s string, line int, note string) string {
	ls := strings.Split(s, "\n")
	if line-1 < len(ls) {
		ls[line-1] += note
	}
	return strings.Join(ls, "\n")
}

var pasteCases = []pasteCase{
	{name: "prompt and jq", same: true, lines: []int{1},
		make: func(t *testing.T, d []byte) string { return prompt + indentJSON(t, d) + "\n" }},
	{name: "plain cat with the prompt glued after", same: true,
		make: func(t *testing.T, d []byte) string { return string(d) + "[root@wrk-numa-07 ~]# " }},
	{name: "annotated with # and //", same: true, lines: []int{3, 4},
		make: func(t *testing.T, d []byte) string {
			s := prompt + indentJSON(t, d)
			s = addLineNote(s, 3, "    # <-- this one is on the wrong node")
			return addLineNote(s, 4, "  // checked on the node")
		}},
	{name: "trailing commas", same: true,
		make: func(t *testing.T, d []byte) string {
			return strings.ReplaceAll(indentJSON(t, d), "\n}", ",\n}")
		}},
	{name: "elision between members", same: true, lossy: true, quote: "elision: ...",
		make: func(t *testing.T, d []byte) string {
			s := indentJSON(t, d)
			i := strings.Index(s, ",\n")
			return s[:i+2] + "  ...\n" + s[i+2:]
		}},
	{name: "pod UID redacted", lossy: true,
		make: func(t *testing.T, d []byte) string {
			s := indentJSON(t, d)
			return reAnyUID.ReplaceAllString(s, "<uid>")
		}},
}

// TestStatePasteForms runs every paste form over a file of every kind and
// format: the paste is read, reported as a copy that is not the node's
// file, its repairs are named by line, and the kubelet's verdict is never
// claimed for it.
func TestStatePasteForms(t *testing.T) {
	for _, g := range pasteGolden {
		data := readGolden(t, g)
		file, err := statefile.Decode(data, statefile.Options{Name: "x"})
		require.NoError(t, err)
		for _, pc := range pasteCases {
			t.Run(g+"/"+pc.name, func(t *testing.T) {
				in := pc.make(t, data)
				if pc.name == "pod UID redacted" && !reAnyUID.MatchString(string(data)) {
					t.Skip("no UID in this file")
				}
				ev := &evidence.Set{}
				require.NoError(t, ev.AddStateFile("state.txt", []byte(in)))
				require.Len(t, ev.States, 1)
				f := ev.States[0]
				assert.Equal(t, file.Kind, f.Kind)
				assert.False(t, f.KubeletAccepts, "no kubelet verdict for a copy")
				if pc.same {
					assert.Empty(t, cmp.Diff(content(t, file), content(t, f)), "the paste holds the file's values")
				}
				r, err := Run(context.Background(), ev)
				require.NoError(t, err)
				require.Len(t, r.Evidence, 1)
				note := r.Evidence[0].Note
				assert.NotContains(t, note, "kubelet accepts")
				var paste *Finding
				for i := range r.Findings {
					g := &r.Findings[i]
					if g.Code == CodePastedCheckpoint {
						paste = g
					}
					assert.NotEqual(t, CodeCorruptCheckpoint, g.Code, "no checksum verdict on a repaired paste")
				}
				if pc.name == "pod UID redacted" && !strings.Contains(in, "<uid>") {
					return
				}
				if !strings.Contains(note, "repaired") {
					// A redacted paste that is still JSON is a re-formatted copy.
					assert.Contains(t, note, "copy")
					return
				}
				require.NotNil(t, paste, "findings: %v", r.Findings)
				assert.Contains(t, paste.Title, "not the node's file")
				assert.NotEqual(t, statefile.SeverityError, paste.Severity)
				assert.NotContains(t, strings.ToLower(paste.Remedy), "drain")
				assert.NotContains(t, strings.ToLower(paste.Remedy), "delete")
				if pc.lossy {
					assert.Contains(t, note, "verification skipped")
					assert.Contains(t, paste.Title, "verification skipped")
					assert.Equal(t, statefile.SeverityWarning, paste.Severity)
				} else if file.Checksum.Valid && !file.Checksum.ZeroSkipped {
					assert.Contains(t, paste.Title, "checksum matches the values")
					assert.Equal(t, statefile.SeverityInfo, paste.Severity)
				}
				if pc.quote != "" {
					found := false
					for _, ref := range paste.Evidence {
						found = found || strings.HasPrefix(ref.Quote, pc.quote)
					}
					assert.True(t, found, "a repair quoted %q: %v", pc.quote, paste.Evidence)
				}
				for _, line := range pc.lines {
					found := false
					for _, ref := range paste.Evidence {
						found = found || ref.Line == line
					}
					assert.True(t, found, "a repair on line %d: %v", line, paste.Evidence)
				}
			})
		}
	}
}

// TestStatePasteTruncated cuts every file at several points: the paste is
// read as far as it goes when only entries are cut, and refused with the
// field and line when a required member is cut.
func TestStatePasteTruncated(t *testing.T) {
	for _, g := range pasteGolden {
		data := readGolden(t, g)
		full := prompt + indentJSON(t, data)
		for _, frac := range []int{20, 50, 80, 95} {
			in := full[:len(full)*frac/100]
			ev := &evidence.Set{}
			err := ev.AddStateFile("state.txt", []byte(in))
			if err != nil {
				assert.Regexp(t, `^state file state.txt: (cannot decode checkpoint: truncated inside \S+ at line \d+|not valid JSON: no JSON object in it)`, err.Error(), "%s at %d%%", g, frac)
				assert.NotContains(t, err.Error(), "drain", "%s at %d%%", g, frac)
				continue
			}
			r, err := Run(context.Background(), ev)
			require.NoError(t, err)
			var paste *Finding
			for i := range r.Findings {
				if r.Findings[i].Code == CodePastedCheckpoint {
					paste = &r.Findings[i]
				}
			}
			require.NotNil(t, paste, "%s at %d%%", g, frac)
			assert.Contains(t, paste.Title, "cut at line")
			assert.Contains(t, paste.Explanation, "The paste ends at line")
			assert.Equal(t, statefile.SeverityWarning, paste.Severity)
		}
	}
}

func TestStatePasteRequiredCut(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"cpu defaultCpuSet", "{\n  \"policyName\": \"static\",\n  \"defaultCpuSet\": \"0-1,4-4",
			"state file s: cannot decode checkpoint: truncated inside defaultCpuSet at line 3 (the paste ends there; defaultCpuSet is required: paste the whole file, or run numascope on the node)"},
		{"cpu jq -S cut before policyName", "{\n  \"checksum\": 1,\n  \"defaultCpuSet\": \"0-3\",\n  \"entries\": {\n    \"a\": {\"c\": \"1",
			"state file s: cannot decode checkpoint: truncated inside /entries/a/c at line 5, before policyName (the paste ends there; policyName is required: paste the whole file, or run numascope on the node)"},
		{"memory machineState", "{\"policyName\":\"Static\",\n\"machineState\":{\"0\":{\"numberOfAssignments\":0,\"memoryMap\":{\"memory\":{\"total\":10",
			"state file s: cannot decode checkpoint: truncated inside machineState at line 2 (the paste ends there; machineState is required: paste the whole file, or run numascope on the node)"},
		{"device Data", "{\"Data\": {\n\"PodDeviceEntr",
			"state file s: cannot decode checkpoint: truncated inside Data at line 2 (the paste ends there; Data is required: paste the whole file, or run numascope on the node)"},
		{"nothing that names the kind", "{\n  \"checksum\": 12",
			"state file s: cannot decode checkpoint: truncated inside /checksum at line 2, before any member that names the checkpoint kind (paste the whole file)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &evidence.Set{}
			err := ev.AddStateFile("s", []byte(tc.in))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestStatePasteCutKeepsWhatWasRead checks the §7 example cut inside its
// second entry: the shared pool and the complete entry are used, the
// partial one is left out and named.
func TestStatePasteCutKeepsWhatWasRead(t *testing.T) {
	in := prompt + `{
  "policyName": "static",
  "defaultCpuSet": "0-1,6-47,50-95",
  "entries": {
    "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13": {
      "fwd": "2-3,48-49"          # <-- this one is on the wrong node
    },
    "8b0e2d1c-1111-4d1e-9c0a-5e2b8d7f6a13": {
      "db": "4-5",
      "sidecar": "4`
	ev := &evidence.Set{}
	require.NoError(t, ev.AddStateFile("cpu_manager_state.txt", []byte(in)))
	f := ev.States[0]
	require.NotNil(t, f.CPU)
	assert.Equal(t, "0-1,6-47,50-95", f.CPU.DefaultCPUSet.String())
	assert.Equal(t, []string{"3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13"}, keys(f.CPU.Entries))
	r, err := Run(context.Background(), ev)
	require.NoError(t, err)
	require.NotEmpty(t, r.Findings)
	p := r.Findings[0]
	assert.Equal(t, CodePastedCheckpoint, p.Code)
	assert.Equal(t, "cpu_manager_state.txt is a pasted copy of cpu_manager_state, repaired before it could be read: not the node's file; verification skipped; cut at line 11", p.Title)
	assert.Contains(t, p.Explanation, "The paste ends at line 11 inside /entries/8b0e2d1c-1111-4d1e-9c0a-5e2b8d7f6a13/sidecar; the partial /entries/8b0e2d1c-1111-4d1e-9c0a-5e2b8d7f6a13 was left out")
	assert.Contains(t, p.Explanation, "missing from the paste: checksum")
	assert.Contains(t, p.Explanation, `line 7: comment at /entries/3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13/fwd "<-- this one is on the wrong node"`)
	assert.Equal(t, "pasted copy, repaired (3 repairs: prompt, comment, truncation): verification skipped, content read from an unverified copy", r.Evidence[0].Note)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestStateCopyReformatted covers a copy that is still JSON: re-indented
// with the checksum matching, and re-indented with a value edited.
func TestStateCopyReformatted(t *testing.T) {
	data := readGolden(t, "cpu/v2-static.json")
	for _, tc := range []struct {
		name, in string
		note     string
		code     string
	}{
		{"re-indented, intact", indentJSON(t, data),
			"re-formatted copy: checksum matches: these values are what a kubelet wrote (not proof that the file on disk is intact)", ""},
		{"re-indented, a cpuset edited", strings.Replace(indentJSON(t, data), `"1,10"`, `"1,11"`, 1),
			"re-formatted copy: checksum does not match (an edited or truncated paste, or a corrupt file)", CodeCorruptCheckpoint},
		{"the node's layout, intact", string(data), "kubelet accepts it", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &evidence.Set{}
			require.NoError(t, ev.AddStateFile("cpu_manager_state", []byte(tc.in)))
			r, err := Run(context.Background(), ev)
			require.NoError(t, err)
			assert.Equal(t, tc.note, r.Evidence[0].Note)
			if tc.code == "" {
				assert.Empty(t, r.Findings)
				return
			}
			require.Len(t, r.Findings, 1)
			g := r.Findings[0]
			assert.Equal(t, tc.code, g.Code)
			assert.Equal(t, statefile.SeverityWarning, g.Severity)
			assert.Contains(t, g.Title, "an edited or truncated paste, or a corrupt file; the paste cannot tell which")
			assert.Contains(t, g.Remedy, "sha256sum /var/lib/kubelet/cpu_manager_state")
			assert.Contains(t, g.Remedy, "Do not delete the node's file or drain the node on the strength of a copy")
		})
	}
}

// TestStateDirIsNotAPaste: a file read from the kubelet's directory is the
// node's file; a cut one is the kubelet's problem, never repaired as a paste.
func TestStateDirIsNotAPaste(t *testing.T) {
	dir := t.TempDir()
	data := readGolden(t, "cpu/v2-static.json")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu_manager_state"), data[:len(data)/2], 0o600))
	ev, err := evidence.Load(evidence.Sources{StateDir: dir})
	require.NoError(t, err)
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	var item *evidence.Item
	for i := range rep.Evidence {
		if filepath.Base(rep.Evidence[i].File) == "cpu_manager_state" {
			item = &rep.Evidence[i]
		}
	}
	require.NotNil(t, item, "the node's file is listed in the evidence: %+v", rep.Evidence)
	assert.Equal(t, "refused", item.Status, "status of the cut node file")
	assert.Contains(t, item.Error, "not valid JSON", "why it was refused")
	assert.NotContains(t, item.Note, "pasted copy", "a node file is never read as a paste")
}

// TestStatePasteUnverifiedFindings: findings drawn from a paste's content
// still come, marked as resting on an unverified copy.
func TestStatePasteUnverifiedFindings(t *testing.T) {
	in := prompt + `{
  "policyName": "static",
  "defaultCpuSet": "0-1,4-47,50-95",
  "entries": {...},
  "checksum": 2231457734
}`
	ev := &evidence.Set{}
	require.NoError(t, ev.SetKubeletConfig("kubelet-config.yaml", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n")))
	require.NoError(t, ev.AddStateFile("cpu_manager_state.txt", []byte(in)))
	require.NotNil(t, ev.States[0].CPU)
	assert.Equal(t, "0-1,4-47,50-95", ev.States[0].CPU.DefaultCPUSet.String(), "the copy's values are read though its checksum fails")
	r, err := Run(context.Background(), ev)
	require.NoError(t, err)
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
		if f.Code == CodeCheckpointPolicyMismatch {
			assert.Contains(t, f.Title, "(from an unverified copy of cpu_manager_state.txt)")
			assert.Contains(t, f.Explanation, "an unverified copy of the checkpoint")
		}
	}
	assert.Contains(t, codes, CodeCheckpointPolicyMismatch)
	assert.Contains(t, codes, CodePastedCheckpoint)
}

// TestStatePasteEditedKeepsContent: an annotated paste whose values were
// edited fails its checksum, and the kubelet would keep nothing of it; the
// copy's values are still what numascope analyses.
func TestStatePasteEditedKeepsContent(t *testing.T) {
	for _, tc := range []struct {
		golden, old, new string
		check            func(t *testing.T, f *statefile.File)
	}{
		{"cpu/v2-static.json", `"1,10"`, `"1,11"`, func(t *testing.T, f *statefile.File) {
			require.NotNil(t, f.CPU)
			assert.Equal(t, "1,11", f.CPU.Entries["79ca8f13-a41f-14a9-217b-16ccb93f3d40"]["c"].String())
			assert.Equal(t, "static", f.CPU.PolicyName)
		}},
		{"cpu/v3-static.json", `"policyName": "static"`, `"policyName": "static"`, func(t *testing.T, f *statefile.File) {
			require.NotNil(t, f.CPU)
			assert.NotEmpty(t, f.CPU.PodEntries, "pod-level entries are kept")
		}},
		{"dra/crc32-random-0.json", `Namespace`, `Namespace`, func(t *testing.T, f *statefile.File) {
			require.NotNil(t, f.DRA)
			assert.NotEmpty(t, f.DRA.Claims)
		}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			data := readGolden(t, tc.golden)
			in := strings.Replace(indentJSON(t, data), tc.old, tc.new, 1)
			// a flipped checksum and a note: the paste fails verification
			in = regexp.MustCompile(`("[Cc]hecksum": \d*)(\d)`).ReplaceAllStringFunc(in, func(m string) string {
				return m[:len(m)-1] + string('0'+(m[len(m)-1]-'0'+1)%10)
			})
			in = prompt + addLineNote(in, 2, "  # <-- see here")
			ev := &evidence.Set{}
			require.NoError(t, ev.AddStateFile("state.txt", []byte(in)))
			f := ev.States[0]
			assert.False(t, f.Checksum.Valid)
			tc.check(t, f)
		})
	}
}

// FuzzStatePaste feeds pasted checkpoints through AddStateFile and Run:
// never a panic, never the kubelet's verdict for a repaired paste, and
// never advice to drain the node or delete its file because of one.
func FuzzStatePaste(f *testing.F) {
	f.Add([]byte(prompt + `{"policyName": "static", "defaultCpuSet": "0-1", "entries": {"a": {"c": "2-3"}  # <-- note
}, "checksum": 1}[root@h ~]#`))
	f.Add([]byte("{\n\"policyName\": \"Static\",\n\"machineState\": {\"0\": {\"numberOfAssignments\": 0, \"memoryMap\": {}, \"cells\": [0]}},\n\"entries\": {\"<uid>\": {\"c\": [{\"numaAffinity\": [0], \"type\": \"memory\", \"size\": 1"))
	f.Add([]byte(`{"Data": {"PodDeviceEntries": [{"PodUID": "xxxx", "ContainerName": "c", "ResourceName": "r", "DeviceIDs": {"0": ["d"]}, "AllocResp": "Cg=="},], ...`))
	f.Add([]byte(`{"Data": "{\"kind\":\"DRACheckpoint\"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			ev := &evidence.Set{}
			if err := ev.AddStateFile("state.txt", data); err != nil {
				require.NotContains(t, err.Error(), "cannot decode checkpoint: truncated inside  ")
				return
			}
			require.Len(t, ev.States, 1)
			st := ev.States[0]
			p := ev.Provenance(st)
			if p != nil && (p.Repair != nil || len(p.Redactions) > 0) {
				require.False(t, st.KubeletAccepts)
			}
			r, err := Run(context.Background(), ev)
			require.NoError(t, err)
			for _, g := range r.Findings {
				if g.Code == CodePastedCheckpoint || g.Code == CodeCorruptCheckpoint && p != nil {
					require.NotContains(t, strings.ToLower(g.Remedy), "drain the node,")
				}
			}
		})
	})
}
