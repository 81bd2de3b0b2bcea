package api

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hits() int {
	decodeCache.Lock()
	defer decodeCache.Unlock()
	return decodeCache.hits
}

func TestDecodeCacheAnswersTheSame(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	for _, ex := range list.Examples {
		req := InspectRequest{Files: ex.Files}
		first := Inspect(&req)
		before := hits()
		again := Inspect(&req)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("%s: a second inspect differs (-first +again):\n%s", ex.ID, diff)
		}
		states := 0
		for _, v := range first.Files {
			if v.Checksum != nil {
				states++
			}
		}
		assert.GreaterOrEqual(t, hits()-before, states, "%s: the state files are decoded again", ex.ID)
	}
}

func TestDecodeCacheKey(t *testing.T) {
	content := `{"policyName":"none","defaultCpuSet":"","checksum":1}`
	opts := statefile.Options{Name: "cpu_manager_state", MaxSize: MaxFileBytes}
	f1, err1 := decodeCached(content, opts)
	before := hits()
	f2, err2 := decodeCached(content, opts)
	assert.Equal(t, before+1, hits(), "the same bytes and options are a hit")
	assert.Same(t, f1, f2)
	assert.Equal(t, err1, err2)
	for name, o := range map[string]statefile.Options{
		"another name":   {Name: "x", MaxSize: MaxFileBytes},
		"another policy": {Name: "cpu_manager_state", Policy: "static", MaxSize: MaxFileBytes},
	} {
		before := hits()
		f, err := decodeCached(content, o)
		assert.Equal(t, before, hits(), "%s is a miss", name)
		want, wantErr := statefile.Decode([]byte(content), o)
		assert.Equal(t, wantErr, err, name)
		wantJSON, err := json.Marshal(want)
		require.NoError(t, err)
		gotJSON, err := json.Marshal(f)
		require.NoError(t, err)
		assert.JSONEq(t, string(wantJSON), string(gotJSON), name)
	}
	before = hits()
	_, err := decodeCached(content+" ", opts)
	assert.Equal(t, before, hits(), "other bytes are a miss")
	assert.NoError(t, err)
	for range 2 {
		_, err = decodeCached("not a checkpoint", opts)
		assert.Error(t, err)
	}
	assert.Equal(t, before, hits(), "what fails to decode is not kept")
	// More distinct inputs than entries: the oldest is gone.
	for i := range decodeCacheEntries + 1 {
		_, err := decodeCached(fmt.Sprintf(`{"policyName":"none","defaultCpuSet":"","checksum":%d}`, i+2), opts)
		require.NoError(t, err)
	}
	decodeCache.Lock()
	n := len(decodeCache.entries)
	decodeCache.Unlock()
	assert.Equal(t, decodeCacheEntries, n)
	before = hits()
	_, err = decodeCached(content, opts)
	assert.NoError(t, err)
	assert.Equal(t, before, hits(), "the evicted entry is decoded again")
}

// clearDecodeCache empties the decode cache.
func clearDecodeCache() {
	decodeCache.Lock()
	defer decodeCache.Unlock()
	decodeCache.entries = nil
}

// TestDiagnoseReusesInspectDecode checks that diagnose reads the
// checkpoints inspect decoded from the decode cache, and answers exactly
// what it answers without the cache, for every example and for a paste of
// each of its checkpoints alone (named as inspect names it).
func TestDiagnoseReusesInspectDecode(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	type tc struct {
		name string
		req  InspectRequest
	}
	var cases []tc
	for _, ex := range list.Examples {
		cases = append(cases, tc{ex.ID, InspectRequest{Files: ex.Files, KubeletVersion: "1.30"}}, tc{ex.ID, InspectRequest{Files: ex.Files}})
		for _, f := range ex.Files {
			if evidence.CheckpointKind([]byte(f.Content)) != "" {
				cases = append(cases, tc{ex.ID + " " + f.Name + " pasted", InspectRequest{Files: []InputFile{{Content: f.Content}}}})
			}
		}
	}
	for _, c := range cases {
		clearDecodeCache()
		alone, err := Diagnose(&c.req)
		require.NoError(t, err, c.name)
		clearDecodeCache()
		in := Inspect(&c.req)
		before := hits()
		after, err := Diagnose(&c.req)
		require.NoError(t, err, c.name)
		// as the page reads them: JSON
		a, err := json.Marshal(alone)
		require.NoError(t, err)
		b, err := json.Marshal(after)
		require.NoError(t, err)
		assert.JSONEq(t, string(a), string(b), "%s: diagnose after inspect differs", c.name)
		states := 0
		for _, v := range in.Files {
			if v.Checksum != nil && v.KubeletAccepts {
				states++
			}
		}
		if states > 0 && c.req.KubeletVersion == "" {
			assert.Positive(t, hits()-before, "%s: diagnose decodes the checkpoints inspect decoded again", c.name)
		}
	}
}

// TestPastedCheckpointNamedAsInspectNamesIt checks that a checkpoint pasted
// without a name has the same name in inspect's and diagnose's answers.
func TestPastedCheckpointNamedAsInspectNamesIt(t *testing.T) {
	req := InspectRequest{Files: []InputFile{{Content: memoryState10000(t)}}}
	in := Inspect(&req)
	d, err := Diagnose(&req)
	require.NoError(t, err)
	require.Len(t, d.Files, 1)
	assert.Equal(t, "memory_manager_state", in.Files[0].File, "inspect's name")
	assert.Equal(t, in.Files[0].File, d.Files[0].File, "diagnose's name")
}
