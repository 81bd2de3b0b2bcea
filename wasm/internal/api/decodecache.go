package api

import (
	"strings"
	"sync"

	"github.com/numascope/numascope/statefile"
)

// The engine keeps the decoded form of the last few checkpoints it was
// given, so that a page that re-runs inspect after an edit of one tab does
// not decode the unchanged tabs again (the 10,000-container memory file
// takes seconds in the browser). The key is the content itself and every
// decode option, so a hit is the decode of the same bytes the same way (a
// hash would bring crypto/sha256 into the browser build, 180 KB, and a
// string comparison of a few MB takes a millisecond); Decode is
// deterministic and its File is only read afterwards. Only
// files that decode are kept: the other inputs (logs, pods, configuration)
// fail Decode at once, and keeping them would push the checkpoints out.
const (
	decodeCacheEntries = 8
	decodeCacheBytes   = 16 << 20 // of content, over all entries: the decoded state is larger
)

type decodeKey struct {
	content string
	opts    statefile.Options
}

type decodeEntry struct {
	key  decodeKey
	size int
	file *statefile.File
}

var decodeCache struct {
	sync.Mutex
	entries []decodeEntry // most recent last
	hits    int
}

// decodeCached is statefile.Decode, answered from the cache for content
// decoded before with the same options.
func decodeCached(content string, opts statefile.Options) (*statefile.File, error) {
	defer track("decode")()
	if len(content) > decodeCacheBytes {
		return statefile.Decode([]byte(content), opts)
	}
	key := decodeKey{content: content, opts: opts}
	c := &decodeCache
	c.Lock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.hits++
			c.Unlock()
			addPhase("decode-cached", 0)
			return e.file, nil
		}
	}
	c.Unlock()
	f, err := statefile.Decode([]byte(content), opts)
	if err != nil {
		return f, err
	}
	c.Lock()
	defer c.Unlock()
	// A copy: the content must not keep the whole request alive.
	key.content = strings.Clone(content)
	c.entries = append(c.entries, decodeEntry{key: key, size: len(content), file: f})
	total := 0
	for _, e := range c.entries {
		total += e.size
	}
	for len(c.entries) > decodeCacheEntries || total > decodeCacheBytes {
		total -= c.entries[0].size
		c.entries = c.entries[1:]
	}
	return f, err
}

// decodeShared is decodeCached for package diagnose (Evidence.Decode):
// inspect decodes with MaxSize MaxFileBytes, diagnose with MaxSize 0 (64
// MiB), which give the same answer for an input within both, as every
// input the engine reads is (inspectOne and Diagnose refuse larger ones).
func decodeShared(data []byte, opts statefile.Options) (*statefile.File, error) {
	if opts.MaxSize == 0 && len(data) <= MaxFileBytes && MaxFileBytes <= statefile.DefaultMaxSize {
		opts.MaxSize = MaxFileBytes
	}
	return decodeCached(string(data), opts)
}
