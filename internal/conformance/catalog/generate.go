// Package catalog generates the kubelet message catalogue: every log, error,
// event, admission and flag-parsing text that the kubelet's container
// manager, its resource managers, its admission handlers and its command can
// print, in every minor release from 1.16, read from the sources (parsed,
// never built) as the module proxy serves them. The data file it writes is
// read by diagnose/evidence/catalog.
//
//	cd internal/conformance && go run ./cmd/kubelet-catalog -out ../../diagnose/evidence/catalog/kubelet.jsonl
package catalog

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

// GeneratorVersion names the extraction rules; change it when they change
// what is extracted, so a stale data file says which rules wrote it.
const GeneratorVersion = "kubelet-catalog 1"

// ReleaseSources are the module versions one kubelet release is read from.
type ReleaseSources struct {
	Minor   int
	Sources []Source // k8s.io/kubernetes first
}

// Result is a generated catalogue and what could not be extracted.
type Result struct {
	Header  catalog.Header
	Entries []catalog.Entry
	// Unresolved are the calls with no constant text, with the releases
	// that have them.
	Unresolved []UnresolvedSite
	// ParseErrors are source files that did not parse.
	ParseErrors []string
}

// UnresolvedSite is an Unresolved call and the releases that have it.
type UnresolvedSite struct {
	Unresolved
	Releases catalog.Ranges
}

// Fetch gets the sources of a kubelet release: k8s.io/kubernetes at the
// version, component-base at the matching staging version (when the
// proxy has it) and the spf13/pflag version its go.mod requires.
func Fetch(ctx context.Context, f *Fetcher, version string) (ReleaseSources, error) {
	rs := ReleaseSources{Minor: minorOf(version)}
	k, err := f.Fetch(ctx, Kubernetes, version)
	if err != nil {
		return rs, err
	}
	rs.Sources = append(rs.Sources, k)
	gomod, err := fs.ReadFile(k.FS, "go.mod")
	if err != nil {
		return rs, fmt.Errorf("%s@%s: %w", Kubernetes, version, err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return rs, fmt.Errorf("%s@%s go.mod: %w", Kubernetes, version, err)
	}
	cb, pf := requiredVersion(mf, ComponentBase), requiredVersion(mf, Pflag)
	if cb == "" || strings.HasPrefix(cb, "./") || cb == "v0.0.0" {
		cb = stagingVersion(version)
	}
	// The staging tag of a patch is sometimes missing (1.18.20 published no
	// k8s.io/component-base v0.18.20): the nearest earlier patch stands in,
	// and the header says which one was read.
	var cbErr error
	for i := 0; i < 4 && cb != ""; i++ {
		s, err := f.Fetch(ctx, ComponentBase, cb)
		if err == nil {
			rs.Sources = append(rs.Sources, s)
			cbErr = nil
			break
		}
		if cbErr == nil {
			cbErr = err
		}
		cb = previousPatch(cb)
	}
	if cbErr != nil {
		return rs, cbErr
	}
	if pf == "" {
		return rs, fmt.Errorf("%s@%s go.mod requires no %s", Kubernetes, version, Pflag)
	}
	s, err := f.Fetch(ctx, Pflag, pf)
	if err != nil {
		return rs, err
	}
	rs.Sources = append(rs.Sources, s)
	return rs, nil
}

// requiredVersion is the version of a module that a go.mod selects: its
// replacement if it has one (a path for a local one), else its requirement.
func requiredVersion(mf *modfile.File, path string) string {
	for _, r := range mf.Replace {
		if r.Old.Path == path {
			if r.New.Version == "" {
				return r.New.Path
			}
			return r.New.Version
		}
	}
	for _, r := range mf.Require {
		if r.Mod.Path == path {
			return r.Mod.Version
		}
	}
	return ""
}

// Options configure Generate.
type Options struct {
	Releases []string // k8s.io/kubernetes versions; Releases when empty
	Scopes   []Scope  // KubeletScopes when empty
	Fetcher  *Fetcher
	Parallel int // releases fetched and read at once; 2 when 0
	Log      io.Writer
}

// Generate fetches every release, extracts its entries and merges them
// across releases.
func Generate(ctx context.Context, o Options) (*Result, error) {
	versions := o.Releases
	if len(versions) == 0 {
		versions = Releases
	}
	par := o.Parallel
	if par <= 0 {
		par = 2
	}
	type out struct {
		rs         ReleaseSources
		found      []found
		unresolved []Unresolved
		errs       []string
		err        error
	}
	outs := make([]out, len(versions))
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for i, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rs, err := Fetch(ctx, o.Fetcher, v)
			if err != nil {
				outs[i].err = err
				return
			}
			fd, un, errs := Extract(rs.Sources, o.scopes())
			outs[i] = out{rs: rs, found: fd, unresolved: un, errs: errs}
			if o.Log != nil {
				fmt.Fprintf(o.Log, "%s: %d texts, %d without constant text\n", v, len(fd), len(un))
			}
			// the zips go with the sources; keep only what the header needs.
			for j := range outs[i].rs.Sources {
				outs[i].rs.Sources[j].FS = nil
			}
		}()
	}
	wg.Wait()
	var releases []ReleaseSources
	var founds [][]found
	var unresolved [][]Unresolved
	var parseErrs []string
	for i, o := range outs {
		if o.err != nil {
			return nil, fmt.Errorf("release %s: %w", versions[i], o.err)
		}
		releases = append(releases, o.rs)
		founds = append(founds, o.found)
		unresolved = append(unresolved, o.unresolved)
		parseErrs = append(parseErrs, o.errs...)
	}
	res := Merge(releases, founds)
	res.Unresolved = mergeUnresolved(releases, unresolved)
	slices.Sort(parseErrs)
	res.ParseErrors = slices.Compact(parseErrs)
	return res, nil
}

func (o Options) scopes() []Scope {
	if len(o.Scopes) > 0 {
		return o.Scopes
	}
	return KubeletScopes
}

type siteKey struct{ file, fn, call string }

type agg struct {
	e        catalog.Entry
	minors   map[int]bool
	managers map[string]bool
	sites    map[siteKey]map[int]bool
	errs     map[int]bool
	v        int
}

// Merge turns each release's texts into entries with release ranges and
// sites, and builds the header from the sources.
func Merge(releases []ReleaseSources, founds [][]found) *Result {
	res := &Result{Header: catalog.Header{Catalogue: "kubelet", Schema: catalog.Schema, Generator: GeneratorVersion}}
	aggs := map[string]*agg{}
	for i, rs := range releases {
		rel := catalog.Release{Release: fmt.Sprintf("1.%d", rs.Minor)}
		for _, s := range rs.Sources {
			rel.Modules = append(rel.Modules, catalog.Module{Path: s.Path, Version: s.Version, Sum: s.Sum})
		}
		res.Header.Releases = append(res.Header.Releases, rel)
		for _, f := range founds[i] {
			e := catalog.Entry{Kind: catalog.Kind(f.Kind), Level: catalog.Level(f.Level), Form: catalog.Form(f.Form),
				Format: f.Format, Keys: f.Keys, Reason: f.Reason}
			e.ID = catalog.ID(&e)
			a := aggs[e.ID]
			if a == nil {
				a = &agg{e: e, minors: map[int]bool{}, managers: map[string]bool{}, sites: map[siteKey]map[int]bool{}, errs: map[int]bool{}, v: f.V}
				aggs[e.ID] = a
			}
			a.minors[rs.Minor] = true
			a.managers[f.Manager] = true
			k := siteKey{f.File, f.Func, f.Call}
			if a.sites[k] == nil {
				a.sites[k] = map[int]bool{}
			}
			a.sites[k][rs.Minor] = true
			for _, x := range f.Errs {
				a.errs[x] = true
			}
			a.e.Dynamic = a.e.Dynamic || f.Dynamic
			if f.V < a.v {
				a.v = f.V
			}
		}
	}
	for _, a := range aggs {
		e := a.e
		e.Releases = catalog.RangesOf(keys(a.minors))
		e.Managers = sortedKeys(a.managers)
		e.Errs = keys(a.errs)
		if a.v > 0 {
			e.V = a.v
		}
		for k, m := range a.sites {
			e.Sites = append(e.Sites, catalog.Site{File: k.file, Func: k.fn, Call: k.call, Releases: catalog.RangesOf(keys(m))})
		}
		sort.Slice(e.Sites, func(i, j int) bool {
			x, y := e.Sites[i], e.Sites[j]
			if x.File != y.File {
				return x.File < y.File
			}
			if x.Func != y.Func {
				return x.Func < y.Func
			}
			return x.Call < y.Call
		})
		res.Entries = append(res.Entries, e)
	}
	sort.Slice(res.Entries, func(i, j int) bool { return res.Entries[i].ID < res.Entries[j].ID })
	res.Header.Entries = len(res.Entries)
	return res
}

func mergeUnresolved(releases []ReleaseSources, un [][]Unresolved) []UnresolvedSite {
	m := map[Unresolved]map[int]bool{}
	for i, rs := range releases {
		for _, u := range un[i] {
			if m[u] == nil {
				m[u] = map[int]bool{}
			}
			m[u][rs.Minor] = true
		}
	}
	var out []UnresolvedSite
	for u, minors := range m {
		out = append(out, UnresolvedSite{Unresolved: u, Releases: catalog.RangesOf(keys(minors))})
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		return fmt.Sprint(x.File, x.Func, x.Call, x.Why) < fmt.Sprint(y.File, y.Func, y.Call, y.Why)
	})
	return out
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
