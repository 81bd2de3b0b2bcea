package catalog

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

func TestMergeRanges(t *testing.T) {
	a := found{Kind: "error", Level: "error", Form: "printf", Format: "checkpoint is corrupted", Manager: "checkpointmanager", File: "pkg/kubelet/checkpointmanager/errors/errors.go", Func: "var ErrCorruptCheckpoint", Call: "errors.New"}
	moved := a
	moved.File = "pkg/kubelet/checkpointmanager/errors/errs.go"
	b := found{Kind: "log", Level: "info", V: 4, Form: "structured", Format: "Topology Admit Handler", Keys: []string{"pod"}, Manager: "topologymanager", File: "pkg/kubelet/cm/topologymanager/scope.go", Func: "(*scope).Admit", Call: "klog.V.InfoS"}
	b2 := b
	b2.V = 2
	releases := []ReleaseSources{
		{Minor: 16, Sources: []Source{{Path: Kubernetes, Version: "v1.16.15", Sum: "h1:a="}}},
		{Minor: 17, Sources: []Source{{Path: Kubernetes, Version: "v1.17.17", Sum: "h1:b="}}},
		{Minor: 18, Sources: []Source{{Path: Kubernetes, Version: "v1.18.20", Sum: "h1:c="}}},
	}
	res := Merge(releases, [][]found{{a, b}, {a}, {moved, b2}})
	require.Len(t, res.Entries, 2)
	want := []catalog.Entry{
		{Kind: "error", Level: "error", Form: "printf", Managers: []string{"checkpointmanager"}, Format: "checkpoint is corrupted",
			Releases: catalog.Ranges{{First: 16, Last: 18}},
			Sites: []catalog.Site{
				{File: a.File, Func: a.Func, Call: a.Call, Releases: catalog.Ranges{{First: 16, Last: 17}}},
				{File: moved.File, Func: a.Func, Call: a.Call, Releases: catalog.Ranges{{First: 18, Last: 18}}},
			}},
		{Kind: "log", Level: "info", V: 2, Form: "structured", Managers: []string{"topologymanager"}, Format: "Topology Admit Handler", Keys: []string{"pod"},
			Releases: catalog.Ranges{{First: 16, Last: 16}, {First: 18, Last: 18}},
			Sites:    []catalog.Site{{File: b.File, Func: b.Func, Call: b.Call, Releases: catalog.Ranges{{First: 16, Last: 16}, {First: 18, Last: 18}}}}},
	}
	for i := range want {
		want[i].ID = catalog.ID(&want[i])
	}
	sort.Slice(want, func(i, j int) bool { return want[i].ID < want[j].ID })
	assert.Empty(t, cmp.Diff(want, res.Entries))
	assert.Equal(t, []string{"1.16", "1.17", "1.18"}, []string{res.Header.Releases[0].Release, res.Header.Releases[1].Release, res.Header.Releases[2].Release})

	// the data file round-trips and says the same thing written twice
	var w1, w2 bytes.Buffer
	require.NoError(t, catalog.Encode(&w1, res.Header, res.Entries))
	require.NoError(t, catalog.Encode(&w2, res.Header, res.Entries))
	assert.Equal(t, w1.String(), w2.String())
	h, es, err := catalog.Decode(&w1)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(res.Entries, es))
	assert.Equal(t, 2, h.Entries)
}

// moduleZip writes a module zip as the proxy serves it.
func moduleZip(t *testing.T, mod, version string, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		w, err := zw.Create(mod + "@" + version + "/" + name)
		require.NoError(t, err)
		_, err = w.Write([]byte(data))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func TestFetchVerifiesAndCaches(t *testing.T) {
	const mod, version = "example.com/kubelet", "v1.0.0"
	good := moduleZip(t, mod, version, map[string]string{"go.mod": "module example.com/kubelet\n", "pkg/a.go": "package pkg\n"})
	sum, err := hashZip(good)
	require.NoError(t, err)
	served := good
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.URL.Path != "/"+mod+"/@v/"+version+".zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(served)
	}))
	defer srv.Close()
	cache := t.TempDir()
	f := &Fetcher{Proxy: srv.URL, CacheDir: cache, Client: srv.Client(), Sums: map[string]string{mod + "@" + version: sum}}

	src, err := f.Fetch(context.Background(), mod, version)
	require.NoError(t, err)
	b, err := fs.ReadFile(src.FS, "pkg/a.go")
	require.NoError(t, err)
	assert.Equal(t, "package pkg\n", string(b))
	assert.Equal(t, sum, src.Sum)
	assert.Equal(t, 1, requests)
	assert.Equal(t, int64(len(good)), f.Downloaded)

	// the second time it comes from the cache
	_, err = f.Fetch(context.Background(), mod, version)
	require.NoError(t, err)
	assert.Equal(t, 1, requests)

	// a zip that does not hash to the recorded sum is refused, and a
	// cached zip without its recorded hash is hashed again
	served = moduleZip(t, mod, version, map[string]string{"go.mod": "module example.com/kubelet\n", "pkg/a.go": "package pkg // changed\n"})
	zipPath := filepath.Join(cache, "example.com", "kubelet", "@v", version+".zip")
	require.NoError(t, os.WriteFile(zipPath, served, 0o644))
	require.NoError(t, os.Remove(strings.TrimSuffix(zipPath, ".zip")+".ziphash"))
	_, err = f.Fetch(context.Background(), mod, version)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing it")
	assert.Equal(t, 2, requests)

	// an unknown version says what the proxy answered
	_, err = f.Fetch(context.Background(), mod, "v9.9.9")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no checksum database configured")
}

func TestPreviousPatchAndVersions(t *testing.T) {
	assert.Equal(t, "v0.18.19", previousPatch("v0.18.20"))
	assert.Equal(t, "", previousPatch("v0.18.0"))
	assert.Equal(t, "v0.16.15", stagingVersion("v1.16.15"))
	assert.Equal(t, 37, minorOf("v1.37.2"))
	prev := 15
	for _, v := range Releases {
		require.Equal(t, prev+1, minorOf(v), "Releases has one version per minor release, in order: %s", v)
		prev = minorOf(v)
	}
}

// TestCatalogueIsCurrent regenerates the catalogue from the module proxy
// and compares it with the committed data file.
func TestCatalogueIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads every kubelet release's sources (about 400 MB cold, cached afterwards)")
	}
	committedPath := filepath.Join("..", "..", "..", "diagnose", "evidence", "catalog", "kubelet.jsonl")
	committed, err := os.ReadFile(committedPath)
	require.NoError(t, err)
	f, err := NewFetcher(DefaultCacheDir())
	require.NoError(t, err)
	start := time.Now()
	res, err := Generate(context.Background(), Options{Fetcher: f})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, catalog.Encode(&buf, res.Header, res.Entries))
	t.Logf("regenerated %d entries in %s (%d bytes downloaded)", len(res.Entries), time.Since(start).Round(time.Second), f.Downloaded)
	if bytes.Equal(buf.Bytes(), committed) {
		return
	}
	_, old, err := catalog.Decode(bytes.NewReader(committed))
	require.NoError(t, err, "the committed catalogue does not decode")
	t.Errorf("%s is stale: %s\nregenerate it with: cd internal/conformance && go run ./cmd/kubelet-catalog -out ../../diagnose/evidence/catalog/kubelet.jsonl",
		committedPath, diffSummary(old, res.Entries))
}

// diffSummary says which entries a regeneration adds, removes and changes.
func diffSummary(old, new []catalog.Entry) string {
	byID := map[string]catalog.Entry{}
	for _, e := range old {
		byID[e.ID] = e
	}
	var added, changed []string
	for _, e := range new {
		o, ok := byID[e.ID]
		delete(byID, e.ID)
		switch {
		case !ok:
			added = append(added, e.ID+" "+e.Format)
		case !cmp.Equal(o, e):
			changed = append(changed, e.ID+" "+e.Format)
		}
	}
	var removed []string
	for id, e := range byID {
		removed = append(removed, id+" "+e.Format)
	}
	sort.Strings(removed)
	list := func(what string, s []string) string {
		if len(s) == 0 {
			return ""
		}
		if len(s) > 10 {
			s = append(s[:10:10], fmt.Sprintf("... and %d more", len(s)-10))
		}
		return fmt.Sprintf("\n  %s:\n    %s", what, strings.Join(s, "\n    "))
	}
	return fmt.Sprintf("%d added, %d removed, %d changed (or the header differs)", len(added), len(removed), len(changed)) +
		list("added", added) + list("removed", removed) + list("changed", changed)
}
