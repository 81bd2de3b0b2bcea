// Command kubelet-catalog regenerates the kubelet message catalogue that
// diagnose/evidence/catalog embeds: every log, error, event, admission and
// flag-parsing text of the kubelet's container manager, resource managers,
// admission handlers and command, for each minor release from 1.16, read
// from the sources the Go module proxy serves (verified against the
// checksum database, read from the zips without extracting them):
//
//	cd internal/conformance && go run ./cmd/kubelet-catalog -out ../../diagnose/evidence/catalog/kubelet.jsonl
//
// It prints the entries per manager and per release and how many calls
// have no constant text to match. Downloaded zips are kept in -cache.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
	gen "github.com/numascope/numascope/internal/conformance/catalog"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kubelet-catalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the data file to write (required)")
	cache := fs.String("cache", gen.DefaultCacheDir(), "where downloaded module zips are kept")
	releases := fs.String("releases", "", "comma-separated k8s.io/kubernetes versions (default: the catalogue's releases)")
	parallel := fs.Int("parallel", 2, "releases read at once")
	unresolved := fs.Bool("unresolved", false, "list the calls without constant text")
	verbose := fs.Bool("v", false, "print each release as it is read")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: kubelet-catalog -out FILE [-cache DIR] [-releases v1.36.5,v1.37.2] [-unresolved]")
		return 2
	}
	start := time.Now()
	f, err := gen.NewFetcher(*cache)
	if err != nil {
		fmt.Fprintln(stderr, "kubelet-catalog:", err)
		return 1
	}
	o := gen.Options{Fetcher: f, Parallel: *parallel}
	if *releases != "" {
		o.Releases = strings.Split(*releases, ",")
	}
	if *verbose {
		o.Log = stderr
	}
	res, err := gen.Generate(context.Background(), o)
	if err != nil {
		fmt.Fprintln(stderr, "kubelet-catalog:", err)
		return 1
	}
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, res.Header, res.Entries); err != nil {
		fmt.Fprintln(stderr, "kubelet-catalog:", err)
		return 1
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "kubelet-catalog:", err)
		return 1
	}
	gen.WriteSummary(stdout, res)
	if *unresolved {
		gen.WriteUnresolved(stdout, res)
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes) in %s; downloaded %d bytes\n", *out, buf.Len(), time.Since(start).Round(100*time.Millisecond), f.Downloaded)
	return 0
}
