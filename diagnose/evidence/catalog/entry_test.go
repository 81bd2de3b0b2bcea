package catalog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		minors []int
		text   string
	}{
		{nil, ""},
		{[]int{16}, "1.16"},
		{[]int{16, 17, 18, 19, 20, 22, 23, 37}, "1.16-1.20,1.22-1.23,1.37"},
		{[]int{20, 18, 19, 19}, "1.18-1.20"},
	} {
		r := RangesOf(tc.minors)
		assert.Equal(t, tc.text, r.String())
		back, err := ParseRanges(tc.text)
		require.NoError(t, err)
		assert.Empty(t, cmp.Diff(r, back))
	}
	r, _ := ParseRanges("1.16-1.20,1.22")
	assert.True(t, r.Contains(18))
	assert.False(t, r.Contains(21))
	assert.Equal(t, 22, r.Newest())
	assert.Equal(t, 16, r.Oldest())
	assert.Equal(t, []int{16, 17, 18, 19, 20, 22}, r.Minors())
	for _, bad := range []string{"1.20-1.16", "1.16,1.16", "2.1", "1.x", "1.16-", "1.16,1.17"} {
		_, err := ParseRanges(bad)
		assert.Error(t, err, bad)
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []Piece
	}{
		{"plain", []Piece{{Lit: "plain"}}},
		{"100%% of %d CPUs", []Piece{{Lit: "100% of "}, {Verb: "%d", Char: 'd'}, {Lit: " CPUs"}}},
		{"%-10s|%+v|%#q|%[2]d|%*d|%.3f", []Piece{{Verb: "%-10s", Char: 's'}, {Lit: "|"}, {Verb: "%+v", Char: 'v'}, {Lit: "|"},
			{Verb: "%#q", Char: 'q'}, {Lit: "|"}, {Verb: "%[2]d", Char: 'd'}, {Lit: "|"}, {Verb: "%*d", Char: 'd'}, {Lit: "|"}, {Verb: "%.3f", Char: 'f'}}},
		{"ends in %", []Piece{{Lit: "ends in %"}}},
		{"wrapped: %w", []Piece{{Lit: "wrapped: "}, {Verb: "%w", Char: 'w'}}},
	} {
		assert.Empty(t, cmp.Diff(tc.want, ParseFormat(tc.format)), tc.format)
	}
	assert.Equal(t, []string{"%d", "%q"}, Verbs("%d of %q"))
	assert.Equal(t, "100%% sure", EscapeFormat("100% sure"))
}

func TestDecodeRefuses(t *testing.T) {
	e := Entry{Kind: KindLog, Level: LevelInfo, Form: FormPrintf, Format: "x %d", Releases: Ranges{{16, 16}}}
	e.ID = ID(&e)
	var good bytes.Buffer
	require.NoError(t, Encode(&good, Header{Catalogue: "kubelet", Generator: "test"}, []Entry{e}))
	_, es, err := Decode(bytes.NewReader(good.Bytes()))
	require.NoError(t, err)
	require.Len(t, es, 1)
	lines := strings.Split(strings.TrimSuffix(good.String(), "\n"), "\n")
	for _, tc := range []struct {
		name, text, err string
	}{
		{"empty", "", "empty"},
		{"another schema", strings.Replace(good.String(), `"schema":1`, `"schema":2`, 1), "schema 2"},
		{"an unknown field", strings.Replace(good.String(), `"kind":"log"`, `"kind":"log","color":"red"`, 1), "unknown field"},
		{"an unknown kind", strings.Replace(good.String(), `"kind":"log"`, `"kind":"poem"`, 1), "unknown kind"},
		{"an id that is not the entry's", strings.Replace(good.String(), `"format":"x %d"`, `"format":"y %d"`, 1), "the id of what it records"},
		{"a count that does not add up", strings.Replace(good.String(), `"entries":1`, `"entries":2`, 1), "counts 2 entries"},
		{"a repeated entry", good.String() + lines[1] + "\n", "out of order or repeated"},
		{"an errs index past the verbs", strings.Replace(good.String(), `"releases"`, `"errs":[3],"releases"`, 1), "errs names verb 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
