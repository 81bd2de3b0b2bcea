package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/numascope/numascope/internal/input"
)

//go:embed web
var webFS embed.FS

// wasmPackage is the import path of the js/wasm main that the page loads.
const wasmPackage = "github.com/numascope/numascope/wasm"

// file is one file of the static site, with its gzip and brotli forms when
// they are smaller.
type file struct {
	name  string
	data  []byte
	gz    []byte
	br    []byte
	ctype string
	etag  string
}

// site is the complete static playground: the page and the engine.
type site struct {
	files    map[string]*file
	manifest manifest
}

// manifest describes the build; the page reads it to size the progress bar.
type manifest struct {
	Wasm struct {
		Bytes       int    `json:"bytes"`
		GzipBytes   int    `json:"gzipBytes"`
		BrotliBytes int    `json:"brotliBytes"`
		SHA256      string `json:"sha256"`
		// Optimizer is the wasm-opt run the module went through, or "".
		Optimizer string `json:"optimizer,omitempty"`
	} `json:"wasm"`
	Go    string `json:"go"`
	Built string `json:"built"`
}

// buildFlags are the go build arguments of the engine. Without inlining
// (-l) the module is about 300 KB smaller raw and 270 KB smaller gzipped; the
// engine's calls take milliseconds either way.
func buildFlags(out string) []string {
	return []string{"build", "-trimpath", "-gcflags=all=-l", "-ldflags=-s -w", "-o", out, wasmPackage}
}

// buildWasm compiles the engine for js/wasm into dir and returns the path of
// the module and of the toolchain's wasm_exec.js.
func buildWasm(ctx context.Context, dir string) (wasmPath, execJS string, err error) {
	wasmPath = filepath.Join(dir, "numascope.wasm")
	cmd := exec.CommandContext(ctx, "go", buildFlags(wasmPath)...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("building the engine (GOOS=js GOARCH=wasm go build %s) failed: %w\n%s\nrun it inside the numascope checkout with a Go toolchain on PATH", wasmPackage, err, stderr.String())
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return "", "", fmt.Errorf("asking the Go toolchain for GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	execJS = filepath.Join(goroot, "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(execJS); err != nil {
		// Go 1.23 and older kept it under misc/wasm.
		old := filepath.Join(goroot, "misc", "wasm", "wasm_exec.js")
		if _, err2 := os.Stat(old); err2 != nil {
			return "", "", fmt.Errorf("wasm_exec.js not found in the Go toolchain at %s: %w", goroot, err)
		}
		execJS = old
	}
	return wasmPath, execJS, nil
}

// buildSite builds the engine and assembles every file of the site.
func buildSite(ctx context.Context) (*site, error) {
	tmp, err := os.MkdirTemp("", "numascope-playground-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	wasmPath, execJS, err := buildWasm(ctx, tmp)
	if err != nil {
		return nil, err
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, err
	}
	glue, err := os.ReadFile(execJS)
	if err != nil {
		return nil, err
	}
	wasm, optimizer, err := optimizeWasm(ctx, wasm)
	if err != nil {
		return nil, err
	}
	s, err := assemble(wasm, glue)
	if err != nil {
		return nil, err
	}
	s.manifest.Wasm.Optimizer = optimizer
	return s, s.remanifest()
}

// wasmOptArgs are binaryen's wasm-opt arguments for the engine: optimise for
// size, with the WebAssembly features the Go compiler emits.
var wasmOptArgs = []string{"-Oz", "--enable-bulk-memory", "--enable-sign-ext", "--enable-nontrapping-float-to-int", "--enable-mutable-globals"}

// optimizeWasm runs binaryen's wasm-opt -Oz over the module when wasm-opt is
// on PATH (Debian: apt-get install binaryen) and NUMASCOPE_WASM_OPT is not
// "off", and returns the module unchanged otherwise. The run takes minutes,
// so its output is kept in the user cache directory under the hash of the
// input and wasm-opt's version: an unchanged engine is optimised once.
func optimizeWasm(ctx context.Context, wasm []byte) ([]byte, string, error) {
	if os.Getenv("NUMASCOPE_WASM_OPT") == "off" {
		return wasm, "", nil
	}
	tool, err := exec.LookPath("wasm-opt")
	if err != nil {
		return wasm, "", nil
	}
	ver, err := exec.CommandContext(ctx, tool, "--version").Output()
	if err != nil {
		return nil, "", fmt.Errorf("asking %s for its version: %w (set NUMASCOPE_WASM_OPT=off to build without it)", tool, err)
	}
	desc := strings.TrimSpace(string(ver)) + " " + strings.Join(wasmOptArgs, " ")
	out, err := cached("wasm-opt", desc, wasm, func() ([]byte, error) {
		dir, err := os.MkdirTemp("", "numascope-wasm-opt-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		in, out := filepath.Join(dir, "in.wasm"), filepath.Join(dir, "out.wasm")
		if err := os.WriteFile(in, wasm, 0o644); err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, tool, append(append([]string{}, wasmOptArgs...), in, "-o", out)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s failed: %w\n%s(set NUMASCOPE_WASM_OPT=off to build without it)", tool, strings.Join(wasmOptArgs, " "), err, stderr.String())
		}
		return input.ReadFile(out, "wasm-opt's output", maxEngine)
	})
	if err != nil {
		return nil, "", err
	}
	if !bytes.HasPrefix(out, []byte("\x00asm")) {
		return nil, "", fmt.Errorf("wasm-opt's output is not a WebAssembly module (set NUMASCOPE_WASM_OPT=off to build without it)")
	}
	return out, "wasm-opt " + strings.Join(wasmOptArgs, " "), nil
}

// maxEngine bounds what the site reads back as an engine from wasm-opt or the
// cache; the engine is well under it.
const maxEngine = 64 << 20

// cached returns make()'s output for data, keeping it in the user cache
// directory (numascope/<kind>/ under os.UserCacheDir) under the SHA-256 of
// desc and data, so that an expensive step runs once per input. Without a
// usable cache directory it just calls make.
func cached(kind, desc string, data []byte, make func() ([]byte, error)) ([]byte, error) {
	h := sha256.New()
	h.Write([]byte(desc))
	h.Write([]byte{0})
	h.Write(data)
	var p string
	if dir, err := os.UserCacheDir(); err == nil {
		p = filepath.Join(dir, "numascope", kind, hex.EncodeToString(h.Sum(nil)))
		if b, err := input.ReadFile(p, "cached "+kind+" output", maxEngine); err == nil {
			return b, nil
		}
	}
	out, err := make()
	if err != nil || p == "" {
		return out, err
	}
	// A failure to keep the result costs time next run, not correctness.
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
		if tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*"); err == nil {
			_, werr := tmp.Write(out)
			if cerr := tmp.Close(); werr == nil && cerr == nil {
				werr = os.Rename(tmp.Name(), p)
			}
			if werr != nil {
				os.Remove(tmp.Name())
			}
		}
	}
	return out, nil
}

// assemble puts the embedded page, the engine and its glue together.
func assemble(wasm, glue []byte) (*site, error) {
	s := &site{files: map[string]*file{}}
	err := fs.WalkDir(webFS, "web", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := webFS.ReadFile(p)
		if err != nil {
			return err
		}
		s.add(strings.TrimPrefix(p, "web/"), b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.add("wasm_exec.js", glue)
	s.add("numascope.wasm", wasm)
	w := s.files["numascope.wasm"]
	s.manifest.Wasm.Bytes = len(w.data)
	s.manifest.Wasm.GzipBytes = len(w.gz)
	s.manifest.Wasm.BrotliBytes = len(w.br)
	sum := sha256.Sum256(w.data)
	s.manifest.Wasm.SHA256 = hex.EncodeToString(sum[:])
	s.manifest.Go = runtime.Version()
	s.manifest.Built = time.Now().UTC().Format(time.RFC3339)
	return s, s.remanifest()
}

// remanifest writes manifest.json from s.manifest.
func (s *site) remanifest() error {
	m, err := json.MarshalIndent(s.manifest, "", "  ")
	if err != nil {
		return err
	}
	s.add("manifest.json", append(m, '\n'))
	return nil
}

func (s *site) add(name string, data []byte) {
	f := &file{name: name, data: data}
	f.ctype = mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".wasm":
		f.ctype = "application/wasm"
	case ".js":
		f.ctype = "text/javascript; charset=utf-8"
	case ".json":
		f.ctype = "application/json"
	case ".html":
		f.ctype = "text/html; charset=utf-8"
	case ".css":
		f.ctype = "text/css; charset=utf-8"
	}
	if f.ctype == "" {
		f.ctype = "application/octet-stream"
	}
	if gz := gzipBytes(data); len(gz) < len(data) {
		f.gz = gz
	}
	if br := brotliBytes(data); len(br) < len(data) && (f.gz == nil || len(br) < len(f.gz)) {
		f.br = br
	}
	sum := sha256.Sum256(data)
	f.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	s.files[name] = f
}

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	zw.Write(data)                                           // writes to a bytes.Buffer do not fail
	zw.Close()
	return buf.Bytes()
}

// brotliBytes compresses at brotli's best quality with a 16 MiB window. For
// the engine that takes most of a minute, so large outputs are cached by the
// input's hash (see cached).
func brotliBytes(data []byte) []byte {
	const quality, lgwin = brotli.BestCompression, 24
	enc := func() ([]byte, error) {
		var buf bytes.Buffer
		bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: quality, LGWin: lgwin})
		bw.Write(data) // writes to a bytes.Buffer do not fail
		bw.Close()
		return buf.Bytes(), nil
	}
	if len(data) < 1<<20 {
		b, _ := enc() // enc has no error
		return b
	}
	desc := fmt.Sprintf("brotli q%d w%d", quality, lgwin)
	b, _ := cached("brotli", desc, data, enc) // enc has no error
	if plain, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(b)), int64(len(data))+1)); err != nil || !bytes.Equal(plain, data) {
		b, _ = enc() // a damaged cache entry: compress again
	}
	return b
}

// names lists the files of the site in order.
func (s *site) names() []string {
	out := make([]string, 0, len(s.files))
	for n := range s.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// write stores the site in dir with a .gz and a .br twin for every file that
// compresses, ready for any static host.
func (s *site) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range s.names() {
		f := s.files[n]
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
		if f.gz != nil {
			if err := os.WriteFile(p+".gz", f.gz, 0o644); err != nil {
				return err
			}
		}
		if f.br != nil {
			if err := os.WriteFile(p+".br", f.br, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
