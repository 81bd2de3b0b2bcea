package jsonrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var records = Options{Records: []string{"/entries", "/podEntries", "/Data/PodDeviceEntries", "/Data/RegisteredDevices"}}

const section7 = `[root@wrk-numa-07 ~]# cat /var/lib/kubelet/cpu_manager_state | jq .
{
  "policyName": "static",
  "defaultCpuSet": "0-1,4-47,50-95",
  "entries": {
    "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13": {
      "fwd": "2-3,48-49"          # <-- this one is on the wrong node
    }
  },
  "checksum": 2231457734
}
`

func TestRepair(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		want  string
		kinds []Kind // the kinds of the repairs, in order
		lossy bool
		cut   *Cut
	}{
		{name: "section 7 example", in: section7,
			want:  `{"policyName":"static","defaultCpuSet":"0-1,4-47,50-95","entries":{"3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13":{"fwd":"2-3,48-49"}},"checksum":2231457734}`,
			kinds: []Kind{KindPrompt, KindComment}},
		{name: "prompt glued after plain cat", in: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}[root@wrk-numa-07 ~]# `,
			want: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`, kinds: []Kind{KindTrailingText}},
		{name: "dollar prompt and markdown fence", in: "```\n$ sudo cat /var/lib/kubelet/cpu_manager_state\n{\"policyName\":\"none\",\"defaultCpuSet\":\"4-6\",\"checksum\":354655845}\n```\n",
			want: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`, kinds: []Kind{KindPrompt, KindTrailingText}},
		{name: "slash comments and block comments", in: "{\n// the pool\n\"defaultCpuSet\": \"0-3\", /* was 0-7 */\n\"policyName\": \"static\"\n}",
			want: `{"defaultCpuSet":"0-3","policyName":"static"}`, kinds: []Kind{KindComment, KindComment}},
		{name: "trailing commas", in: `{"entries": {"a": {"c": "1",},}, "policyName": "static",}`,
			want: `{"entries":{"a":{"c":"1"}},"policyName":"static"}`, kinds: []Kind{KindComma, KindComma, KindComma}},
		{name: "elision between entries", in: "{\"entries\": {\n  \"a\": {\"c\": \"1\"},\n  ...\n  \"b\": {\"c\": \"2\"}\n}}",
			want: `{"entries":{"a":{"c":"1"},"b":{"c":"2"}}}`, kinds: []Kind{KindElision}, lossy: true},
		{name: "elision without its comma", in: "{\"entries\": {\n  \"a\": {\"c\": \"1\"}\n  …\n  \"b\": {\"c\": \"2\"}\n}}",
			want: `{"entries":{"a":{"c":"1"},"b":{"c":"2"}}}`, kinds: []Kind{KindElision, KindComma}, lossy: true},
		{name: "elided value", in: `{"policyName": "static", "entries": <snip>, "checksum": 1}`,
			want: `{"policyName":"static","checksum":1}`, kinds: []Kind{KindElision}, lossy: true},
		{name: "elided object body", in: `{"entries": {...}, "checksum": 1}`,
			want: `{"entries":{},"checksum":1}`, kinds: []Kind{KindElision}, lossy: true},
		{name: "more-lines comment", in: "{\"entries\": {\"a\": {\"c\": \"1\"}\n  # 40 more lines\n}}",
			want: `{"entries":{"a":{"c":"1"}}}`, kinds: []Kind{KindElision}, lossy: true},
		{name: "redacted key and value", in: `{"entries": {"<uid>": {"c": "REDACTED"}}}`,
			want: `{"entries":{"<uid>":{"c":"REDACTED"}}}`, kinds: []Kind{KindRedaction, KindRedaction}, lossy: true},
		{name: "bare redacted key", in: `{"entries": {<pod-uid>: {"c": "1"}}}`,
			want: `{"entries":{"<pod-uid>":{"c":"1"}}}`, kinds: []Kind{KindRedaction}, lossy: true},
		{name: "bare redacted value", in: `{"checksum": xxxxxxxx, "policyName": "static"}`,
			want: `{"policyName":"static"}`, kinds: []Kind{KindRedaction}, lossy: true},
		{name: "truncated inside a record", in: "{\n\"policyName\": \"static\",\n\"defaultCpuSet\": \"0-1\",\n\"entries\": {\n\"a\": {\"c\": \"1\"},\n\"b\": {\"c\": \"2\", \"d\": \"3-",
			want: `{"policyName":"static","defaultCpuSet":"0-1","entries":{"a":{"c":"1"}}}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 6, Path: "/entries/b/d", Field: "entries", Dropped: "/entries/b"}},
		{name: "truncated inside a required string", in: "{\"policyName\": \"static\",\n\"defaultCpuSet\": \"0-1,4-4",
			want: `{"policyName":"static"}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 2, Path: "/defaultCpuSet", Field: "defaultCpuSet", Dropped: "/defaultCpuSet"}},
		{name: "truncated in a number", in: `{"policyName": "none", "checksum": 3546`,
			want: `{"policyName":"none"}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 1, Path: "/checksum", Field: "checksum", Dropped: "/checksum"}},
		{name: "truncated between members", in: "{\"policyName\": \"none\",\n",
			want: `{"policyName":"none"}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 1, Path: "", Field: ""}},
		{name: "truncated device entry", in: `{"Data": {"PodDeviceEntries": [{"PodUID": "a", "DeviceIDs": {"0": ["x"]}}, {"PodUID": "b", "DeviceIDs": {"0": ["x"`,
			want: `{"Data":{"PodDeviceEntries":[{"PodUID":"a","DeviceIDs":{"0":["x"]}}]}}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 1, Path: "/Data/PodDeviceEntries/1/DeviceIDs/0", Field: "Data", Dropped: "/Data/PodDeviceEntries/1"}},
		{name: "records match case-insensitively", in: `{"ENTRIES": {"a": {"c": "1"}, "b": {"c": "2`,
			want: `{"ENTRIES":{"a":{"c":"1"}}}`, kinds: []Kind{KindTruncation}, lossy: true,
			cut: &Cut{Line: 1, Path: "/ENTRIES/b/c", Field: "ENTRIES", Dropped: "/ENTRIES/b"}},
		{name: "wrapped cpuset joined", in: "{\"defaultCpuSet\": \"0-1,4-47,\n    50-95\", \"policyName\": \"static\"}",
			want: `{"defaultCpuSet":"0-1,4-47,50-95","policyName":"static"}`, kinds: []Kind{KindJoinedLine}, lossy: true},
		{name: "line cut at terminal width", in: "{\"entries\": {\"a\": \"0-1,4-4\n\"b\": \"5\"}}",
			want: `{"entries":{"b":"5"}}`, kinds: []Kind{KindDropped, KindComma}, lossy: true},
		{name: "quote prefixes", in: "> {\n>   \"policyName\": \"none\"\n> }\n",
			want: `{"policyName":"none"}`, kinds: []Kind{KindQuotePrefix}},
		{name: "smart quotes", in: "{“policyName”: “none”}",
			want: `{"policyName":"none"}`, kinds: []Kind{KindSmartQuote, KindSmartQuote}},
		{name: "jq -C colours and CRLF", in: "\x1b[1;39m{\r\n  \x1b[0m\x1b[34;1m\"policyName\"\x1b[0m\x1b[1;39m:\x1b[0;32m\"none\"\x1b[0m\x1b[1;39m\r\n}\x1b[0m\r\n",
			want: `{"policyName":"none"}`, kinds: []Kind{KindPrompt, KindANSI, KindTrailingText}},
		{name: "escapes kept as written", in: `{"defaultCpuSet": "\u0030-3", "c": "a\"b<>"} `,
			want: `{"defaultCpuSet":"\u0030-3","c":"a\"b<>"}`},
		{name: "junk line inside", in: "{\"policyName\": \"none\",\nsh-5.1#\n\"defaultCpuSet\": \"0\"}",
			want: `{"policyName":"none","defaultCpuSet":"0"}`, kinds: []Kind{KindSkipped}, lossy: true},
		{name: "untouched", in: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`,
			want: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Repair([]byte(tc.in), records)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(res.JSON))
			var kinds []Kind
			for _, c := range res.Repairs {
				kinds = append(kinds, c.Kind)
			}
			assert.Empty(t, cmp.Diff(tc.kinds, kinds), "repairs: %v", res.Repairs)
			assert.Equal(t, tc.lossy, res.Lossy)
			assert.Empty(t, cmp.Diff(tc.cut, res.Cut))
			assert.True(t, json.Valid(res.JSON))
		})
	}
}

func TestRepairLines(t *testing.T) {
	res, err := Repair([]byte(section7), records)
	require.NoError(t, err)
	require.Len(t, res.Repairs, 2)
	assert.Equal(t, Change{Kind: KindComment, Line: 7, Path: "/entries/3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13/fwd", Text: "<-- this one is on the wrong node"}, res.Repairs[1])
	assert.Equal(t, `line 7: comment at /entries/3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13/fwd "<-- this one is on the wrong node"`, res.Repairs[1].String())
	assert.False(t, res.Lossy)
	assert.True(t, res.Changed())
	assert.Equal(t, 1, res.Count(KindComment))
}

func TestRepairRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		opts Options
		want error
	}{
		{"no object", []byte("[root@h ~]# cat /var/lib/kubelet/cpu_manager_state\ncat: No such file or directory\n"), Options{}, ErrNoObject},
		{"shell braces are not an object", []byte("echo ${HOME}"), Options{}, ErrNoObject},
		{"too large", bytes.Repeat([]byte(" "), 101), Options{MaxSize: 100}, ErrTooLarge},
		{"too deep", []byte(`{"a":` + strings.Repeat("[", 50)), Options{MaxDepth: 20}, ErrTooDeep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Repair(tc.in, tc.opts)
			assert.True(t, errors.Is(err, tc.want), "got %v", err)
		})
	}
}

// TestRepairBounded checks the bounds the package promises: repairs are
// capped and counted, and the output stays within twice the input.
func TestRepairBounded(t *testing.T) {
	in := "{" + strings.Repeat("\"a\": 1,,\n", 5000) + "\"b\": 2}"
	res, err := Repair([]byte(in), Options{})
	require.NoError(t, err)
	assert.Len(t, res.Repairs, maxRepairs)
	assert.Equal(t, 5000-maxRepairs, res.Omitted)
	assert.LessOrEqual(t, len(res.JSON), 2*len(in))
}

func BenchmarkRepair(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[root@h ~]# cat cpu_manager_state | jq .\n{\n  \"policyName\": \"static\",\n  \"defaultCpuSet\": \"0-1\",\n  \"entries\": {\n")
	for i := 0; i < 20000; i++ {
		sb.WriteString("    \"3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13\": {\"fwd\": \"2-3,48-49\"},   # note\n")
	}
	sb.WriteString("    ...\n")
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Repair(in, records); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzRepair(f *testing.F) {
	f.Add([]byte(section7))
	f.Add([]byte(`{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}[root@h ~]#`))
	f.Add([]byte("{\"entries\": {\"a\": {\"c\": \"1\",},\n ...\n \"<uid>\": {\"c\": \"2-"))
	f.Add([]byte("> {“policyName”: “none”, // x\n> \"Data\": {\"PodDeviceEntries\": [{\"PodUID\": xxxx}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			res, err := Repair(data, records)
			if err != nil {
				require.Nil(t, res)
				return
			}
			require.True(t, json.Valid(res.JSON), "not JSON: %q", res.JSON)
			require.LessOrEqual(t, len(res.JSON), 2*len(data)+10000+2)
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(res.JSON, &top), "top level is not an object")
			for _, c := range res.Repairs {
				require.True(t, utf8.ValidString(c.Text) || !utf8.Valid(data), "repair text cut inside a character: %q", c.Text)
			}
			// Repairing the repaired text changes nothing: it is plain JSON now.
			again, err := Repair(res.JSON, records)
			require.NoError(t, err)
			require.Equal(t, string(res.JSON), string(again.JSON))
		})
	})
}

func TestRedacted(t *testing.T) {
	for w, want := range map[string]bool{
		"<uid>":                                true,
		"pod <pod-name> in ns":                 true,
		"REDACTED":                             true,
		"[redacted]":                           true,
		"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": true,
		"XXXX":                                 true,
		"***":                                  true,
		"GPU-***":                              true,
		"3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13": false,
		"proxy":                                false,
		"xxx":                                  false,
		"unredacted-svc":                       false,
		"app-xxxxl":                            false,
		"a<b":                                  false,
		"0-3,8-11":                             false,
	} {
		assert.Equal(t, want, Redacted(w), w)
	}
}
