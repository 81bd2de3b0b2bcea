package catalog

import (
	"bytes"
	_ "embed"
	"sync"
)

// kubeletData is the kubelet message catalogue, generated from the
// kubelet's sources by internal/conformance/cmd/kubelet-catalog.
//
//go:embed kubelet.jsonl
var kubeletData []byte

var loaded = sync.OnceValues(func() (*catalogue, error) {
	h, es, err := Decode(bytes.NewReader(kubeletData))
	if err != nil {
		return &catalogue{}, err
	}
	c := &catalogue{header: h, entries: es, byID: make(map[string]*Entry, len(es))}
	for i := range c.entries {
		c.byID[c.entries[i].ID] = &c.entries[i]
	}
	return c, nil
})

var defaultMatcher = sync.OnceValue(func() *Matcher {
	c, _ := loaded()
	return newMatcherShared(c.entries)
})

type catalogue struct {
	header  Header
	entries []Entry
	byID    map[string]*Entry
}

// Err reports whether the embedded catalogue could be read; when it
// cannot, Entries is empty and Match finds nothing.
func Err() error {
	_, err := loaded()
	return err
}

// Info describes the embedded catalogue: its generator and the module
// versions it was read from.
func Info() Header {
	c, _ := loaded()
	return c.header
}

// Entries returns the entries of the embedded kubelet catalogue, sorted by
// ID. The slice is the caller's; the entries' own slices are shared.
func Entries() []Entry {
	c, _ := loaded()
	return append([]Entry(nil), c.entries...)
}

// Lookup returns the entry with an ID.
func Lookup(id string) (*Entry, bool) {
	c, _ := loaded()
	e, ok := c.byID[id]
	return e, ok
}

// Match finds the embedded catalogue's entries in text (see Matcher.Match).
// The hits point at the catalogue's entries, as Lookup does.
func Match(text string) []Hit { return defaultMatcher().Match(text) }

// Default returns the matcher of the embedded catalogue.
func Default() *Matcher { return defaultMatcher() }
