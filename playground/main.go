// Command playground builds the numascope engine for WebAssembly and serves
// the playground page, where a person pastes kubelet state files and sees
// their verdict, NUMA groups and findings without the data leaving the browser.
//
//	go run .                  # build and serve on http://localhost:8080
//	go run . -addr :9000      # another address
//	go run . -out site/       # write the static site, precompressed (.gz, .br)
//
// It is a module of its own (its browser tests need chromedp, which stays out
// of the SDK's go.mod): run it inside playground/, or `go -C playground run .`
// from the repository root.
//
// With binaryen's wasm-opt on PATH the engine is optimised for size first
// (NUMASCOPE_WASM_OPT=off skips it); its output and the brotli form are
// cached in the user cache directory by the hash of their input.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"
)

func main() {
	addr := flag.String("addr", "localhost:8080", "`host:port` to serve the playground on")
	out := flag.String("out", "", "write the static site to `DIR` (each file with .gz and .br twins) instead of serving it")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run . [-addr host:port] [-out DIR] (in playground/)\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr, *out); err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr, out string) error {
	start := time.Now()
	s, err := buildSite(ctx)
	if err != nil {
		return err
	}
	opt := "without wasm-opt (install binaryen for a smaller engine)"
	if s.manifest.Wasm.Optimizer != "" {
		opt = "after " + s.manifest.Wasm.Optimizer
	}
	fmt.Fprintf(os.Stderr, "playground: built the engine in %s: numascope.wasm %s raw, %s gzip, %s brotli, %s\n",
		time.Since(start).Round(100*time.Millisecond), mib(s.manifest.Wasm.Bytes), mib(s.manifest.Wasm.GzipBytes), mib(s.manifest.Wasm.BrotliBytes), opt)
	if out != "" {
		if err := s.write(out); err != nil {
			return fmt.Errorf("writing the site to %s: %w", out, err)
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "file\tbytes\tgzip\tbrotli\t")
		for _, n := range s.names() {
			f := s.files[n]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", n, len(f.data), len(f.gz), len(f.br))
		}
		tw.Flush()
		fmt.Printf("wrote the playground to %s\n", out)
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (choose another address with -addr)", addr, err)
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	fmt.Printf("numascope playground on http://%s/\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func mib(n int) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
