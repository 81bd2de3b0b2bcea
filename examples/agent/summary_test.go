package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/numascope/numascope/statefile"
)

// hostileReport is a round with every list and string far over the
// summary's caps: 5,000 findings of 60 codes with 8 KB titles, four rejected
// checkpoints of 3,000 problems each, 2,000 memory rows in groups of 500
// NUMA nodes, 1,000 CPU rows and 300 errors.
func hostileReport() *Report {
	long := strings.Repeat("é", 4<<10) // 8 KB of two-byte characters
	no := false
	r := &Report{Schema: Schema, Node: "node-" + long, Time: time.Unix(0, 0).UTC(), Round: 1, StateDir: "/state/" + long,
		Checkpoints: []Checkpoint{}, Memory: []MemoryRow{}, CPUs: []CPURow{}, Evidence: []evidence.Item{}, Errors: []RoundError{}}
	for k, kind := range []statefile.Kind{statefile.KindCPU, statefile.KindMemory, statefile.KindDevice, statefile.KindDRA} {
		c := Checkpoint{File: fmt.Sprintf("/state/%d-%s", k, long), Kind: kind, Present: true, KubeletAccepts: &no,
			OnReject: "refuses-to-start", Reason: long, Error: long,
			Checksum: &statefile.ChecksumReport{Layouts: make([]statefile.Layout, 1000), Matched: long, Era: long}}
		for i := range 3000 {
			c.Problems = append(c.Problems, statefile.Problem{Path: "/data/entries/" + long, Message: fmt.Sprintf("problem %d %s", i, long),
				Remedy: long, Severity: statefile.SeverityError, Also: []string{long, long}})
		}
		r.Checkpoints = append(r.Checkpoints, c)
	}
	group := make([]int, 500)
	for i := range group {
		group[i] = i
	}
	for i := range 2000 {
		r.Memory = append(r.Memory, MemoryRow{NUMANode: i, Resource: "hugepages-" + long, Group: group})
	}
	for i := range 1000 {
		n := i
		r.CPUs = append(r.CPUs, CPURow{NUMANode: i, CPUs: &n, Free: &n})
	}
	for i := range 300 {
		r.Errors = append(r.Errors, RoundError{Source: "state", File: long, Message: fmt.Sprintf("error %d %s", i, long)})
	}
	r.PodResources = PodResourcesStatus{Socket: long, Error: long, Notes: []string{long, long}}
	severities := []statefile.Severity{statefile.SeverityError, statefile.SeverityWarning, statefile.SeverityInfo}
	for i := range 5000 {
		sev := severities[min(i/1000, 2)]
		r.Findings = append(r.Findings, diagnose.Finding{Code: fmt.Sprintf("Code%02d", i%60), Severity: sev,
			Title: fmt.Sprintf("finding %d %s", i, long), Pod: "ns/" + long, Explanation: long, Remedy: long,
			Evidence: []diagnose.Ref{{File: long, Quote: long}}})
	}
	r.Summary = diagnose.Summary{Errors: 1000, Warnings: 1000, Infos: 3000}
	return r
}

// TestSummaryIsBounded writes the summary of hostileReport: it stays under
// summaryMaxBytes, counts what it left out, and keeps the verdict, the
// counts, and a headline of each code and severity while there is room.
func TestSummaryIsBounded(t *testing.T) {
	full := hostileReport() // its full line is about 760 MB
	var sb bytes.Buffer
	require.NoError(t, writeReport(&sb, full, "summary"))
	t.Logf("summary line %d bytes", sb.Len())
	assert.LessOrEqual(t, sb.Len(), summaryMaxBytes, "the summary line")

	var s Report
	require.NoError(t, json.Unmarshal(sb.Bytes(), &s))
	assert.Equal(t, full.Summary, s.Summary, "the counts")
	require.NotNil(t, s.Omitted)
	assert.Equal(t, Omitted{Findings: 5000 - summaryFindings, Problems: 4 * (3000 - summaryProblems), Memory: 2000 - summaryRows,
		CPUs: 1000 - summaryRows, Errors: 300 - summaryErrors, FindingCounts: 180 - summaryFindings, Note: s.Omitted.Note}, *s.Omitted)
	assert.Equal(t, "4950 more findings, 11920 more problems, 1744 more memory rows, 744 more CPU rows, 280 more errors, 130 more finding codes not in this summary: --report full lists every one",
		s.Omitted.Note, "the note")
	assert.Len(t, s.Findings, summaryFindings)
	assert.Equal(t, "Code00", s.Findings[0].Code, "the verdict's finding comes first")
	assert.True(t, strings.HasPrefix(s.Findings[0].Title, "finding 0 "), "the verdict's finding comes first: %.40s", s.Findings[0].Title)
	groups := map[string]bool{}
	for _, f := range s.Findings {
		groups[f.Code+"/"+string(f.Severity)] = true
		assert.Empty(t, f.Explanation)
		assert.Empty(t, f.Evidence)
		assert.Less(t, len(f.Title), summaryText+40, "a clipped title")
	}
	assert.Len(t, groups, summaryFindings, "one headline per code and severity while the cap allows (60 codes of errors alone)")
	for _, f := range s.Findings {
		assert.Equal(t, statefile.SeverityError, f.Severity, "errors come before warnings")
	}
	// The counts of every code and severity: 60 codes × 3 severities is
	// over the cap of rows, errors first.
	if assert.Len(t, s.FindingCounts, summaryFindings) {
		assert.Equal(t, statefile.SeverityError, s.FindingCounts[0].Severity)
	}
	for _, c := range s.Checkpoints {
		assert.Len(t, c.Problems, summaryProblems)
		assert.Equal(t, 3000-summaryProblems, c.ProblemsOmitted)
		assert.Nil(t, c.Checksum.Layouts)
		assert.Nil(t, c.Problems[0].Also)
		assert.Contains(t, c.Reason, "more bytes)")
	}
	assert.Len(t, s.Memory[0].Group, summaryGroup)
	assert.Equal(t, 500-summaryGroup, s.Memory[0].GroupOmitted)

	// The same round as text: the summary's headlines and what they leave
	// out, bounded too.
	var tb bytes.Buffer
	require.NoError(t, writeReportAs(&tb, full, "summary", cliout.Text))
	assert.LessOrEqual(t, tb.Len(), 2*summaryMaxBytes, "the summary as text")
	assert.Contains(t, tb.String(), "not in this summary: --report full lists every one")
}

// nodesView is what `kubectl numascope nodes` reads of a report line
// (examples/kubectl-numascope/nodes.go, agentReport), with the findings as
// the set of codes per severity it shows.
type nodesView struct {
	Checkpoints []struct {
		Present        bool   `json:"present"`
		Error          string `json:"error"`
		KubeletAccepts *bool  `json:"kubeletAccepts"`
	} `json:"checkpoints"`
	Memory []struct {
		NUMANode int    `json:"numaNode"`
		Resource string `json:"resource"`
		Free     uint64 `json:"free"`
	} `json:"memory"`
	CPUs []struct {
		NUMANode int  `json:"numaNode"`
		Free     *int `json:"free"`
	} `json:"cpus"`
	Findings []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
	} `json:"findings"`
	Codes []string `json:"-"`
}

func viewOf(t *testing.T, line []byte) nodesView {
	t.Helper()
	var v nodesView
	require.NoError(t, json.Unmarshal(line, &v))
	seen := map[string]bool{}
	for _, f := range v.Findings {
		if k := f.Severity + " " + f.Code; !seen[k] {
			seen[k] = true
			v.Codes = append(v.Codes, k)
		}
	}
	sort.Strings(v.Codes)
	v.Findings = nil
	return v
}

// TestSummaryKeepsWhatNodesReads compares what `kubectl numascope nodes`
// shows of a node from the full and the summary line of the same round, on
// the fixtures and on a node of 2,000 pods over the real test socket (500
// stale entries, findings far over the cap): the same.
func TestSummaryKeepsWhatNodesReads(t *testing.T) {
	stateDir, sysfs := bigNode(t, 2000)
	big := startServer(t, podresourcestest.Generate(2000))
	small := startServer(t, podresourcestest.Sample())
	for _, tc := range []struct {
		name string
		cfg  config
	}{
		{"fixtures over the socket", config{stateDir: nodeDir, sysfs: sysDir, socket: small.Socket()}},
		{"a corrupt checkpoint", config{stateDir: badDir, sysfs: "none", socket: "none"}},
		{"2,000 pods", config{stateDir: stateDir, sysfs: sysfs, socket: big.Socket()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.timeout, tc.cfg.diagnose, tc.cfg.interval, tc.cfg.kubeletConfig = 10*time.Second, true, time.Minute, "none"
			rep := newAgent(tc.cfg).round(context.Background())
			require.NotNil(t, rep)
			var full, sum bytes.Buffer
			require.NoError(t, writeReport(&full, rep, "full"))
			require.NoError(t, writeReport(&sum, rep, "summary"))
			t.Logf("%d findings: full line %d bytes, summary line %d bytes", len(rep.Findings), full.Len(), sum.Len())
			assert.Empty(t, cmp.Diff(viewOf(t, full.Bytes()), viewOf(t, sum.Bytes())), "what nodes shows, full (-) and summary (+)")
			assert.LessOrEqual(t, sum.Len(), summaryMaxBytes)
		})
	}
}

func TestHeadlines(t *testing.T) {
	f := func(spec string) []diagnose.Finding { // "E:a W:b" → code a error, code b warning
		var out []diagnose.Finding
		for _, s := range strings.Fields(spec) {
			sev := map[byte]statefile.Severity{'E': statefile.SeverityError, 'W': statefile.SeverityWarning, 'I': statefile.SeverityInfo}[s[0]]
			out = append(out, diagnose.Finding{Severity: sev, Code: s[2:]})
		}
		return out
	}
	tests := []struct {
		name     string
		findings string
		n        int
		want     []int
	}{
		{"none", "", 3, []int{}},
		{"under the cap: all", "E:a W:b I:c", 5, []int{0, 1, 2}},
		{"errors first", "E:a E:a E:a W:b W:b", 3, []int{0, 1, 3}},
		{"one of each code before a second of any", "E:a E:a E:a E:b W:c I:d", 4, []int{0, 3, 4, 5}},
		{"the first finding even when it is not the worst", "I:z E:a E:a", 2, []int{0, 1}},
		{"codes over the cap: the most severe", "W:w1 W:w2 E:e1 E:e2 I:i1", 3, []int{0, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, headlines(f(tt.findings), tt.n))
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short", "abc", "abc"},
		{"at the cap", strings.Repeat("a", summaryText), strings.Repeat("a", summaryText)},
		{"over", strings.Repeat("a", summaryText+10), strings.Repeat("a", summaryText) + "… (10 more bytes)"},
		{"not inside a character", "a" + strings.Repeat("é", summaryText/2), "a" + strings.Repeat("é", summaryText/2-1) + "… (2 more bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clip(tt.in))
		})
	}
}

// TestReportDefaults: the loop writes the summary form, --once the full
// one, and --report picks either.
func TestReportDefaults(t *testing.T) {
	snap := filepath.Join("..", "..", "podresources", "testdata", "offline", "numascope")
	args := []string{"--state-dir", nodeDir, "--sysfs", sysDir, "--snapshot", snap}
	full, code, _ := runOnce(t, args...)
	require.Equal(t, 0, code)
	assert.NotNil(t, full.NUMA, "--once: the full report")
	sum, code, _ := runOnce(t, append(args, "--report", "summary")...)
	require.Equal(t, 0, code)
	assert.Nil(t, sum.NUMA, "--once --report summary")
	assert.NotEmpty(t, sum.FindingCounts, "--once --report summary: the counts by code")
}
