package statefile

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func TestNameRendering(t *testing.T) {
	long := strings.Repeat("a", 131072)
	wide := strings.Repeat("é", 200) // 400 bytes; a cut at 32 bytes falls between two
	tests := []struct {
		name, in            string
		quoted, text, token string
		prefix              string // what CutToken reads back from the token
		size                int
		cut                 bool
	}{
		{name: "a pod UID", in: "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13",
			quoted: `"3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13"`, text: "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13", token: "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13"},
		{name: "the longest name kept whole", in: strings.Repeat("b", maxNameBytes),
			quoted: `"` + strings.Repeat("b", maxNameBytes) + `"`, text: strings.Repeat("b", maxNameBytes), token: strings.Repeat("b", maxNameBytes)},
		{name: "a long key", in: long,
			quoted: `"` + strings.Repeat("a", 32) + `…" (131072 bytes)`, text: `"` + strings.Repeat("a", 32) + `…" (131072 bytes)`,
			token: strings.Repeat("a", 32) + "… (131072 bytes)", prefix: strings.Repeat("a", 32), size: 131072, cut: true},
		{name: "cut at the start of a character", in: wide,
			quoted: `"` + strings.Repeat("é", 16) + `…" (400 bytes)`, text: `"` + strings.Repeat("é", 16) + `…" (400 bytes)`,
			token: strings.Repeat("é", 16) + "… (400 bytes)", prefix: strings.Repeat("é", 16), size: 400, cut: true},
		{name: "control characters quoted", in: "a\nb" + strings.Repeat("c", 400),
			quoted: `"a\nb` + strings.Repeat("c", 29) + `…" (403 bytes)`, text: `"a\nb` + strings.Repeat("c", 29) + `…" (403 bytes)`,
			token: "a\nb" + strings.Repeat("c", 29) + "… (403 bytes)", prefix: "a\nb" + strings.Repeat("c", 29), size: 403, cut: true},
		{name: "a short key that reads like a cut one", in: "a… (999 bytes)",
			quoted: `"a… (999 bytes)"`, text: "a… (999 bytes)", token: "a… (999 bytes)", prefix: "a", size: 999, cut: true},
		{name: "a short key that claims a short length", in: "a… (99 bytes)",
			quoted: `"a… (99 bytes)"`, text: "a… (99 bytes)", token: "a… (99 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.quoted, quoteName(tc.in))
			assert.Equal(t, tc.quoted, qname(tc.in).String())
			assert.Equal(t, tc.text, nameText(tc.in))
			assert.Equal(t, tc.text, fmt.Sprint(bname(tc.in)))
			assert.Equal(t, tc.token, nameToken(tc.in))
			toks, ok := jsonptr.Split(pointer("entries", tc.in, "c"))
			require.True(t, ok)
			assert.Equal(t, []string{"entries", tc.token, "c"}, toks, "a pointer holds the token")
			prefix, size, cut := CutToken(tc.token)
			assert.Equal(t, tc.cut, cut, "CutToken")
			assert.Equal(t, tc.prefix, prefix)
			assert.Equal(t, tc.size, size)
			if cut && len(tc.in) > maxNameBytes {
				assert.True(t, strings.HasPrefix(tc.in, prefix) && len(tc.in) == size, "the name matches its token")
			}
		})
	}
}

func TestCutTokenRefuses(t *testing.T) {
	for _, tok := range []string{"", "entries", "… (400 bytes)x", "a (400 bytes)", "a… (0400 bytes)", "a… (-400 bytes)", "a… (400 KiB)",
		strings.Repeat("a", 3*cutNameBytes+1) + "… (400 bytes)"} {
		_, _, ok := CutToken(tok)
		assert.False(t, ok, "%q", tok)
	}
}

func TestTemplateText(t *testing.T) {
	for format, want := range map[string]string{
		"%s assigned to both %s and %s":                            "… assigned to both … and …",
		"NUMA node %d's group %v names node %d":                    "NUMA node …'s group … names node …",
		"%d%% of %-8.3f, %[1]q":                                    "…% of …, …",
		"could not parse cpuset %s for container %s in pod %s: %v": "could not parse cpuset … for container … in pod …: …",
		"no verb": "no verb",
	} {
		assert.Equal(t, want, templateText(format), format)
	}
}

func TestShortLists(t *testing.T) {
	assert.Equal(t, "[]", groupText(nil).String())
	assert.Equal(t, "[0 1]", groupText{0, 1}.String())
	assert.Equal(t, fmt.Sprint(make([]int, 64)), groupText(make([]int, 64)).String(), "64 ids are written whole")
	assert.Equal(t, "[0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 …] (65536 ids)", groupText(make([]int, 65536)).String())

	assert.Equal(t, "0-3,7", setShort(cpuset.New(0, 1, 2, 3, 7)))
	var every []int
	for c := 0; c < 2000; c += 2 {
		every = append(every, c)
	}
	s := setShort(cpuset.New(every...))
	assert.True(t, strings.HasPrefix(s, `"0,2,4,6,8,`) && strings.HasSuffix(s, `…" (1000 CPUs)`), s)
	assert.LessOrEqual(t, len(s), 100)
}

// TestProblemsOfAKind checks the cap: the first maxOfAKind problems of a
// kind are listed, then one problem counts the rest, right after them and
// of their severity; problems of other kinds are not affected.
func TestProblemsOfAKind(t *testing.T) {
	entries := map[string]map[string]string{"pod": {}}
	for i := range maxOfAKind + 10 {
		entries["pod"][fmt.Sprintf("c%03d", i)] = "1" // each after the first holds CPU 1 too
	}
	entries["bad"] = map[string]string{"c": "x"}
	f, err := Decode(cpuFile(t, map[string]any{"policyName": "static", "defaultCpuSet": "0", "entries": entries, "checksum": 0}), Options{Name: "cpu_manager_state"})
	require.NoError(t, err)
	var overlaps []Problem
	at := -1
	for i, p := range f.Problems {
		switch {
		case strings.Contains(p.Message, "more problems like"):
			at = i
		case strings.Contains(p.Message, "assigned to both"):
			overlaps = append(overlaps, p)
			require.Len(t, p.Also, 1, "the other holder: %s", p.Message)
		}
	}
	require.Len(t, overlaps, maxOfAKind)
	assert.Equal(t, `cpu_manager_state: CPU 1 is assigned to both container "c000" of pod "pod" and container "c001" of pod "pod"`, overlaps[0].Message)
	assert.Equal(t, "/entries/pod/c000", overlaps[0].Path)
	assert.Equal(t, []string{"/entries/pod/c001"}, overlaps[0].Also)
	require.GreaterOrEqual(t, at, 1, "one problem counts the rest")
	assert.Empty(t, cmp.Diff(Problem{
		Message:  `cpu_manager_state: 9 more problems like "… assigned to both … and …" are not listed (the first 50 are)`,
		Remedy:   "fix the ones listed and check the file again",
		Severity: SeverityError,
	}, f.Problems[at]))
	assert.Equal(t, overlaps[maxOfAKind-1], f.Problems[at-1], "it follows the last one listed")
	assert.True(t, slices.ContainsFunc(f.Problems, func(p Problem) bool {
		return strings.HasPrefix(p.Message, `cpu_manager_state: could not parse cpuset "x" for container "c" in pod "bad"`)
	}), "a problem of another kind is listed")
}
