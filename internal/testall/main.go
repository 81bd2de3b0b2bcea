// Command testall runs every numascope test: the main module, each nested
// module (the cluster-facing commands under examples/, internal/cluster, the
// playground and the kubelet conformance modules under internal/), the
// WebAssembly glue under Node.js and the browser tests. Before the tests of
// each module it runs go vet and gofmt -l, and staticcheck in every module
// that declares it as a tool (the main module and the nested modules split
// from it); a finding of any of them fails the run. It is the command that
// the README and CI both run:
//
//	go run ./internal/testall
//
// Flags after the command are passed to every `go test` call (for example
// `go run ./internal/testall -short`). It prints one line per package, the
// output of every failing test, and a closing line "testall: N passed, N failed,
// N skipped" that counts individual tests. It exits non-zero when anything fails.
//
// Set NUMASCOPE_REQUIRE_BROWSER=1 (CI does) to make a missing Chromium or
// Node.js a failure instead of a skip.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type tally struct{ passed, failed, skipped, buildFailed int }

func main() {
	extra := os.Args[1:]
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testall:", err)
		os.Exit(2)
	}
	var t tally
	start := time.Now()

	for _, mod := range modules(root) {
		rel, _ := filepath.Rel(root, mod)
		fmt.Printf("== module %s\n", rel)
		if !run(mod, nil, []string{"vet", "./..."}) {
			t.buildFailed++
		}
		if !gofmtClean(mod) {
			t.buildFailed++
		}
		if hasStaticcheck(mod) && !run(mod, nil, []string{"tool", "staticcheck", "./..."}) {
			t.buildFailed++
		}
		runTests(mod, nil, append([]string{"test", "-json"}, append(extra, "./...")...), &t)
	}

	// The browser glue, compiled for js/wasm and run under Node.js.
	if _, err := os.Stat(filepath.Join(root, "wasm")); err == nil {
		exe := filepath.Join(goEnv("GOROOT"), "lib", "wasm", "go_js_wasm_exec")
		if _, err := exec.LookPath("node"); err != nil {
			msg := "node not found: the wasm glue tests need Node.js"
			if os.Getenv("NUMASCOPE_REQUIRE_BROWSER") != "" {
				fmt.Println("FAIL", msg)
				t.failed++
			} else {
				fmt.Println("SKIP", msg)
				t.skipped++
			}
		} else {
			fmt.Println("== wasm glue under Node.js")
			env := []string{"GOOS=js", "GOARCH=wasm", "PATH=" + filepath.Dir(exe) + string(os.PathListSeparator) + os.Getenv("PATH")}
			runTests(root, env, append([]string{"test", "-json", "-exec=" + exe}, append(extra, "./wasm/...")...), &t)
		}
	}

	fmt.Printf("== done in %s\n", time.Since(start).Round(time.Second))
	if t.buildFailed > 0 {
		fmt.Printf("%d step(s) did not build or vet cleanly\n", t.buildFailed)
	}
	fmt.Printf("testall: %d passed, %d failed, %d skipped\n", t.passed, t.failed+t.buildFailed, t.skipped)
	if t.failed > 0 || t.buildFailed > 0 {
		os.Exit(1)
	}
}

// moduleRoot walks up from the working directory to the main module's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/numascope/numascope\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run me inside the numascope checkout (no go.mod for github.com/numascope/numascope above %s)", dir)
		}
		dir = parent
	}
}

// modules returns the main module and every module nested in it (skipping
// testdata and hidden directories), the main module first.
func modules(root string) []string {
	out := []string{root}
	var nested []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != root {
			nested = append(nested, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(nested)
	return append(out, nested...)
}

// hasStaticcheck reports whether the module in dir declares staticcheck as a
// tool, so that `go tool staticcheck` runs there.
func hasStaticcheck(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "tool honnef.co/go/tools/cmd/staticcheck" {
			return true
		}
	}
	return false
}

func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gofmtClean runs gofmt -l over a module's Go files (skipping testdata and
// nested modules) and reports each file gofmt would change.
func gofmtClean(mod string) bool {
	gofmt := filepath.Join(goEnv("GOROOT"), "bin", "gofmt")
	if _, err := os.Stat(gofmt); err != nil {
		gofmt = "gofmt"
	}
	var files []string
	_ = filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != mod && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		return true
	}
	out, err := exec.Command(gofmt, append([]string{"-l"}, files...)...).CombinedOutput()
	if err != nil {
		fmt.Printf("FAIL gofmt (in %s): %v\n%s", mod, err, out)
		return false
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		fmt.Printf("FAIL gofmt: these files are not formatted (run gofmt -w on them):\n%s", out)
		return false
	}
	return true
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func command(dir string, env, args []string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// run runs a go command with its output passed through.
func run(dir string, env, args []string) bool {
	cmd := command(dir, env, args)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Printf("FAIL go %s (in %s): %v\n", strings.Join(args, " "), dir, err)
		return false
	}
	return true
}

// runTests runs `go test -json`, prints a line per package and the output of
// failing tests, and adds the per-test results to t.
func runTests(dir string, env, args []string, t *tally) {
	cmd := command(dir, env, args)
	cmd.Stderr = os.Stdout
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Println("FAIL", err)
		t.buildFailed++
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("FAIL", err)
		t.buildFailed++
		return
	}
	sawFailure := consume(stdout, t)
	if err := cmd.Wait(); err != nil && !sawFailure {
		fmt.Printf("FAIL go %s (in %s): %v\n", strings.Join(args, " "), dir, err)
		t.buildFailed++
	}
}

func consume(r io.Reader, t *tally) (sawFailure bool) {
	outputs := map[string]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Println(string(line)) // build errors and other plain text
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			b := outputs[key]
			if b == nil {
				b = &strings.Builder{}
				outputs[key] = b
			}
			if b.Len() < 64<<10 {
				b.WriteString(e.Output)
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				word := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "?   "}[e.Action]
				fmt.Printf("%s %s\t%.2fs\n", word, e.Package, e.Elapsed)
				if e.Action == "fail" {
					sawFailure = true
					if b := outputs[key]; b != nil {
						fmt.Print(indent(b.String()))
					}
				}
				delete(outputs, key)
				continue
			}
			switch e.Action {
			case "pass":
				t.passed++
			case "skip":
				t.skipped++
			case "fail":
				t.failed++
				sawFailure = true
				fmt.Printf("--- FAIL %s %s\n", e.Package, e.Test)
				if b := outputs[key]; b != nil {
					fmt.Print(indent(b.String()))
				}
			}
			delete(outputs, key)
		}
	}
	return sawFailure
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
