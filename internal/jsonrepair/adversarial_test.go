package jsonrepair

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adversarialSeeds are templates of pastes (see expand) whose repair could
// grow faster than the paste: a long key with many containers or repairs
// under it (repair rendered the parent's pointer for every container
// under it: 110 s for 1 MB), many repairs of one kind, a cut end.
var adversarialSeeds = []string{
	`{"entries": {"@K": [{"c": 1}@[,{"c": 1}@]]}}`,
	`{"entries": {"@K": {"c0": {}@[, "c@i": {}@]}}}`,
	`{"Data": {"PodDeviceEntries": [{"@K": [[{}@[,{}@]]]}]}}`,
	`{"entries": {"@K": [{"c": 1,}@[,{"c": 1,},@]]}}`,
	`{"entries": {"@K": [{"c": 1}@[,{"c": 1} # @i@]`,
	`{"@K": {"policyName": "static"@[, "x@i": xxxx@]}}`,
	"{\"a\": \"b\"@[\x1b[0m@]}",
	"{\"a\": 1@[ /* @i */@]}",
}

// expand writes a paste from a template: "@K" is a key of keyLen bytes,
// each "@[...@]" section is written n times, its "@i" the repeat's number
// (from 1). n is lowered so that the paste stays under size; nil when the
// template is larger than size without its sections.
func expand(template string, keyLen, n, size int) []byte {
	type section struct{ before, body string }
	var parts []section
	rest := template
	for {
		i := strings.Index(rest, "@[")
		j := strings.Index(rest, "@]")
		if i < 0 || j < i {
			break
		}
		parts = append(parts, section{rest[:i], rest[i+2 : j]})
		rest = rest[j+2:]
	}
	// fill writes s with its "@K" and "@i" replaced, in one pass (into
	// nothing when b is nil) and returns its length: no text larger
	// than size is ever made
	key := strings.Repeat("a", min(keyLen, size))
	fill := func(b *strings.Builder, s string, i int) int {
		l := 0
		for len(s) > 0 {
			switch {
			case strings.HasPrefix(s, "@K"):
				l += keyLen
				if b != nil {
					b.WriteString(key)
				}
				s = s[2:]
			case strings.HasPrefix(s, "@i"):
				num := strconv.Itoa(i)
				l += len(num)
				if b != nil {
					b.WriteString(num)
				}
				s = s[2:]
			default:
				l++
				if b != nil {
					b.WriteByte(s[0])
				}
				s = s[1:]
			}
		}
		return l
	}
	fixed := fill(nil, rest, 0)
	for _, p := range parts {
		fixed += fill(nil, p.before, 0)
	}
	if keyLen > size || fixed > size {
		return nil
	}
	// the length of one repeat of every section, its number written i
	per := func(i int) int {
		l := 0
		for _, p := range parts {
			l += fill(nil, p.body, i)
		}
		return max(l, 1)
	}
	if len(parts) > 0 {
		most := max(0, (size-fixed)/per(1))
		n = min(n, max(0, (size-fixed)/per(most)))
	}
	var b strings.Builder
	b.Grow(size + 64)
	for _, p := range parts {
		fill(&b, p.before, 0)
		for i := 1; i <= n; i++ {
			fill(&b, p.body, i)
		}
	}
	fill(&b, rest, 0)
	return []byte(b.String())
}

// TestRepairAdversarial repairs each adversarial paste at 4 MiB, half of
// it one key, within the fuzz budget, with bounded repairs.
func TestRepairAdversarial(t *testing.T) {
	for i, tmpl := range adversarialSeeds {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			in := expand(tmpl, 2<<20, 1<<30, 4<<20)
			require.Greater(t, len(in), 3<<20)
			var res *Result
			var err error
			fuzzbudget.Run(t, func() { res, err = Repair(in, records) })
			require.NoError(t, err)
			assert.True(t, json.Valid(res.JSON))
			checkBoundedRepairs(t, res)
		})
	}
}

// checkBoundedRepairs checks that the repairs are capped and their
// pointers short, whatever the keys.
func checkBoundedRepairs(t *testing.T, res *Result) {
	t.Helper()
	require.LessOrEqual(t, len(res.Repairs), maxRepairs)
	for _, c := range res.Repairs {
		require.LessOrEqual(t, len(c.Path), maxPathSeg*(cutTokenBytes*2+24)+2, "a pointer: %.200s", c.Path)
		require.LessOrEqual(t, len(c.Text), maxText+len("…"), "a text: %.200s", c.Text)
	}
	if res.Cut != nil {
		require.LessOrEqual(t, len(res.Cut.Path)+len(res.Cut.Dropped)+len(res.Cut.Field), 3*(maxPathSeg*(cutTokenBytes*2+24)+2))
	}
}

// FuzzRepairExpanded expands a template (see expand) into a paste of up to
// 1 MiB with a key as long, and holds Repair to the fuzz budget: the
// fuzzer looks for a shape whose repair grows faster than the paste (the
// old repair of the first seed took 58 s and 31 GB at 1 MiB).
func FuzzRepairExpanded(f *testing.F) {
	for _, s := range adversarialSeeds {
		f.Add(s, uint32(1<<19), uint32(1<<20))
	}
	f.Fuzz(func(t *testing.T, template string, keyLen, n uint32) {
		if len(template) > 4096 {
			return
		}
		in := expand(template, int(keyLen%(1<<20+1)), int(n%(1<<22)), 1<<20)
		if in == nil {
			return
		}
		fuzzbudget.Run(t, func() {
			res, err := Repair(in, records)
			if err != nil {
				return
			}
			require.True(t, json.Valid(res.JSON))
			checkBoundedRepairs(t, res)
		})
	})
}

// TestRepairLongKeys checks what a repair says of a key too long to write
// whole: its first bytes and its length, in every pointer; a record under
// it is still left out whole.
func TestRepairLongKeys(t *testing.T) {
	long := strings.Repeat("a", 1000)
	token := strings.Repeat("a", cutTokenBytes) + "… (1000 bytes)"
	res, err := Repair([]byte(`{"entries": {"`+long+`": {"c": "1",}, "b": {"c": "2`), records)
	require.NoError(t, err)
	assert.Equal(t, `{"entries":{"`+long+`":{"c":"1"}}}`, string(res.JSON), "the key itself is kept")
	require.Len(t, res.Repairs, 2)
	assert.Equal(t, Change{Kind: KindComma, Line: 1, Path: "/entries/" + token, Text: "trailing comma removed"}, res.Repairs[0])
	assert.Equal(t, &Cut{Line: 1, Path: "/entries/b/c", Field: "entries", Dropped: "/entries/b"}, res.Cut)

	res, err = Repair([]byte(`{"`+long+`": {"a": {"c": "2`), Options{Records: []string{"/" + long}})
	require.NoError(t, err)
	assert.Equal(t, `{"`+long+`":{}}`, string(res.JSON), "a record under a long key is left out whole")
	assert.Equal(t, &Cut{Line: 1, Path: "/" + token + "/a/c", Field: token, Dropped: "/" + token + "/a"}, res.Cut)
}

// BenchmarkRepairLongKey repairs a paste of one long key (half of it) with
// objects under it, from 64 KiB to 10 MiB: the time per byte stays flat.
func BenchmarkRepairLongKey(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20, 10 << 20} {
		in := expand(adversarialSeeds[0], size/2, 1<<30, size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Repair(in, records); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
