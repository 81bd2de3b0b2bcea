package jsonptr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{"cpu": "cpu", "nvidia.com/gpu": "nvidia.com~1gpu", "a~b": "a~0b", "~/": "~0~1"} {
		assert.Equal(t, want, Escape(in), in)
	}
}

func TestSplit(t *testing.T) {
	cases := map[string]struct {
		tokens []string
		ok     bool
	}{
		"":                     {nil, true},
		"/":                    {[]string{""}, true},
		"/entries/pod/c":       {[]string{"entries", "pod", "c"}, true},
		"/a~1b/~0~1/x~01":      {[]string{"a/b", "~/", "x~1"}, true},
		"entries":              {nil, false},
		"/data/entries/p/c~1d": {[]string{"data", "entries", "p", "c/d"}, true},
	}
	for in, c := range cases {
		got, ok := Split(in)
		assert.Equal(t, c.ok, ok, in)
		assert.Equal(t, c.tokens, got, in)
		if ok && in != "" {
			var back string
			for _, tok := range got {
				back += "/" + Escape(tok)
			}
			assert.Equal(t, in, back, "Split then Escape gives the pointer back: %s", in)
		}
	}
}
