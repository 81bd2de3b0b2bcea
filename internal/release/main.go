// Command release builds numascope's release archives, for people who have
// no Go toolchain: every command under examples/ cross-built per OS and
// architecture, and the playground as a static site.
//
//	go run ./internal/release -out dist/
//	go run ./internal/release -out dist/ -version v0.3.0 -targets linux/amd64,linux/arm64
//	go run ./internal/release -out dist/ -playground=false
//
// Each target's binaries are built with CGO_ENABLED=0, -trimpath,
// -buildvcs=false and -ldflags="-s -w", GOFLAGS=-mod=readonly and the
// default architecture level (the commands print no version of
// their own, so none is stamped in; the archive's README names the version and
// the commit). They go into one archive per target with LICENSE and a short
// README: numascope-VERSION-OS-ARCH.tar.gz, or .zip for Windows. The
// playground (`go run . -out` in playground/, a module of its own) is numascope-VERSION-playground.tar.gz.
// SHA256SUMS lists every archive in the form `sha256sum -c` checks, and
// numascope-agent-VERSION-linux-ARCH.oci.tar is the agent's container image
// for each Linux target (an OCI image layout tar, built without a container
// daemon by internal/image: podman load, skopeo copy oci-archive:FILE), and
// numascope.yaml is the krew plugin manifest of kubectl-numascope for the
// archives of linux, darwin and windows (with a -version krew accepts:
// vMAJOR.MINOR.PATCH).
//
// Archives are reproducible: fixed modes (0755 programs, 0644 the rest),
// owner 0, and one modification time for every entry, taken from
// SOURCE_DATE_EPOCH, else the time of the checked-out commit, else
// 2000-01-01; building the same commit twice with the same Go gives the same
// bytes.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// modulePath is the module the release is built from.
const modulePath = "github.com/numascope/numascope"

// commands are the programs under examples/ that go into every archive,
// with what each is for (the archive's README lists them).
var commands = []struct{ name, what string }{
	{"inspect", "decode and verify the kubelet's checkpoint files; who holds what per NUMA node"},
	{"diagnose", "explain a node's evidence (logs, pod, events, state, config, topology)"},
	{"admit", "merge Topology Manager hints, or admit a pod on a node, as the kubelet does"},
	{"podresources", "who holds which CPUs, memory and devices, from the PodResources API"},
	{"agent", "per-node JSON reports and Prometheus metrics (see its DaemonSet)"},
	{"kubectl-numascope", "kubectl plugin: copy it onto PATH and run `kubectl numascope`"},
}

// defaultTargets are built when -targets is not given.
var defaultTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// knownTargets are the OS/arch pairs a release may be built for: the
// defaults and the other architectures Kubernetes nodes run.
var knownTargets = append(append([]string(nil), defaultTargets...), "linux/ppc64le", "linux/s390x")

// maxArtifact bounds each file read back into an archive (a binary, a file
// of the site, LICENSE); numascope's largest binary is well under it.
const maxArtifact = 512 << 20

// fallbackTime is the modification time of every entry when neither
// SOURCE_DATE_EPOCH nor a git commit gives one.
var fallbackTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// target is one GOOS/GOARCH pair.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// exe is the file name of command name on t.
func (t target) exe(name string) string {
	if t.goos == "windows" {
		return name + ".exe"
	}
	return name
}

// archiveName is the file name of t's archive for version.
func (t target) archiveName(version string) string {
	ext := ".tar.gz"
	if t.goos == "windows" {
		ext = ".zip"
	}
	return "numascope-" + version + "-" + t.goos + "-" + t.goarch + ext
}

// parseTargets reads -targets: a comma-separated list of known OS/arch
// pairs, each at most once.
func parseTargets(s string) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		known := false
		for _, k := range knownTargets {
			known = known || k == f
		}
		if !known {
			return nil, fmt.Errorf("-targets: unknown target %q: choose from %s (a comma-separated list of OS/ARCH)", f, strings.Join(knownTargets, ","))
		}
		if seen[f] {
			return nil, fmt.Errorf("-targets: %s is listed twice: name each target once", f)
		}
		seen[f] = true
		goos, goarch, _ := strings.Cut(f, "/")
		out = append(out, target{goos, goarch})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-targets: no target given: name at least one of %s", strings.Join(knownTargets, ","))
	}
	return out, nil
}

var reVersion = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`)

// checkVersion accepts a version that is safe in a file name.
func checkVersion(v string) error {
	if !reVersion.MatchString(v) {
		return fmt.Errorf("-version %q: use 1 to 64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit (e.g. v0.3.0)", v)
	}
	return nil
}

// release is one run: what to build, from where, into where.
type release struct {
	root       string // the module's directory
	out        string
	version    string
	commit     string // the checked-out commit, "" when unknown
	mtime      time.Time
	targets    []target
	commands   []string // names under examples/
	playground bool
	image      bool // the agent's container image, for each Linux target
	log        io.Writer
	env        []string // added to the go commands' environment (tests: a fresh GOCACHE)
}

// built is one archive written into the output directory.
type built struct {
	name  string
	size  int64
	sum   string
	took  time.Duration
	files int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: 0 when every archive was written, 1 when building or
// writing failed, 2 for wrong flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the archives and SHA256SUMS into `DIR` (new or empty)")
	version := fs.String("version", "", "the `VERSION` in the archive names and READMEs (default: git describe --tags --always --dirty, else dev)")
	targets := fs.String("targets", strings.Join(defaultTargets, ","), "comma-separated `OS/ARCH` list; known: "+strings.Join(knownTargets, ","))
	playground := fs.Bool("playground", true, "also build the playground site (go run . -out, in playground/) as its own archive")
	image := fs.Bool("image", true, "also build the agent's container image for each Linux target, as an OCI layout tar (go run . in internal/image; no container daemon)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./internal/release -out DIR [-version V] [-targets %s] [-playground=false]\n\n", strings.Join(defaultTargets, ","))
		fmt.Fprintf(fs.Output(), "Cross-builds every command under examples/ per OS/arch into one archive each,\nthe playground as a static site, and SHA256SUMS.\n\nexamples:\n  go run ./internal/release -out dist/\n  go run ./internal/release -out dist/ -version v0.3.0 -targets linux/amd64 -playground=false\n  cd dist && sha256sum -c SHA256SUMS\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(err error) int {
		fmt.Fprintln(stderr, "release:", err)
		return 2
	}
	if fs.NArg() > 0 {
		return usage(fmt.Errorf("unexpected argument %q: give the output directory as -out DIR", fs.Arg(0)))
	}
	if *out == "" {
		return usage(errors.New("-out DIR is required: the directory the archives are written to"))
	}
	ts, err := parseTargets(*targets)
	if err != nil {
		return usage(err)
	}
	if *version != "" {
		if err := checkVersion(*version); err != nil {
			return usage(err)
		}
	}
	r, err := newRelease(ctx, *out, *version, ts, *playground, stderr)
	if err == nil {
		r.image = *image
	}
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	start := time.Now()
	archives, err := r.build(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ARCHIVE\tBYTES\tSIZE\tFILES\tBUILT IN")
	for _, a := range archives {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\n", a.name, a.size, units.Bytes(a.size), a.files, a.took.Round(100*time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "wrote %d archives and SHA256SUMS to %s in %s (numascope %s, %s); check them with: cd %s && sha256sum -c SHA256SUMS\n",
		len(archives), r.out, time.Since(start).Round(time.Second), r.version, runtime.Version(), r.out)
	return 0
}

// newRelease finds the module, the output directory, the version and the
// time every entry gets.
func newRelease(ctx context.Context, out, version string, ts []target, playground bool, log io.Writer) (*release, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return nil, err
	}
	if err := emptyDir(out); err != nil {
		return nil, err
	}
	r := &release{root: root, out: out, version: version, targets: ts, playground: playground, log: log}
	for _, c := range commands {
		r.commands = append(r.commands, c.name)
	}
	r.commit = gitOutput(ctx, root, "rev-parse", "HEAD")
	if r.version == "" {
		r.version = gitOutput(ctx, root, "describe", "--tags", "--always", "--dirty")
		if checkVersion(r.version) != nil {
			r.version = "dev"
		}
	}
	r.mtime, err = sourceDate(os.Getenv("SOURCE_DATE_EPOCH"), gitOutput(ctx, root, "log", "-1", "--format=%ct"))
	if err != nil {
		return nil, err
	}
	return r, nil
}

// moduleRoot is the directory of the numascope module the command runs in.
func moduleRoot(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}")
	cmd.Env = buildEnv(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding the numascope module (go list -m): %w: %s: run go run ./internal/release inside the numascope checkout with a Go toolchain on PATH", err, strings.TrimSpace(stderr.String()))
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if p, dir, ok := strings.Cut(l, "\t"); ok && p == modulePath {
			return dir, nil
		}
	}
	return "", fmt.Errorf("the current module is not %s (go list -m printed %q): run go run ./internal/release inside the numascope checkout", modulePath, strings.TrimSpace(string(b)))
}

// emptyDir creates dir, or accepts it when it exists and is empty, so a
// release never mixes with or overwrites older files.
func emptyDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("-out %s: %w", dir, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("-out %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("-out %s: not a directory: give a new or empty directory", dir)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	if len(des) > 0 {
		return fmt.Errorf("-out %s: the directory is not empty (%d entries, e.g. %s): give a new or empty directory", dir, len(des), des[0].Name())
	}
	return nil
}

// gitOutput runs git in dir and returns its trimmed output, or "" when git
// is missing or fails (a source tree without .git builds too).
func gitOutput(ctx context.Context, dir string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sourceDate is the modification time of every archive entry:
// SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds
// convention) when set, else the commit's time (git log -1 --format=%ct),
// else fallbackTime. Zip cannot store times before 1980, so earlier ones
// are refused.
func sourceDate(env, commitTime string) (time.Time, error) {
	s, what := env, "SOURCE_DATE_EPOCH"
	if s == "" {
		s, what = commitTime, "the commit time"
	}
	if s == "" {
		return fallbackTime, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 315532800 || n > 253402300799 { // 1980-01-01 .. 9999-12-31
		return time.Time{}, fmt.Errorf("%s %q: want seconds since 1970 between 315532800 (1980, the earliest a zip stores) and 253402300799: unset it or give e.g. $(git log -1 --format=%%ct)", what, s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// buildEnv is the environment of the go commands: GOFLAGS is set to
// -mod=readonly (an empty variable would let a `go env -w GOFLAGS=...`
// setting through) and the target variables are dropped, so a setting of
// the person's shell does not change the binaries; crossBuild sets the
// target and its architecture level.
func buildEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOAMD64", "GOARM64", "GOPPC64", "GO386", "GOARM", "GOEXPERIMENT":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOFLAGS=-mod=readonly")
}

// archLevel is the default architecture level of goarch, given explicitly
// for the same reason as GOFLAGS.
func archLevel(goarch string) []string {
	switch goarch {
	case "amd64":
		return []string{"GOAMD64=v1"}
	case "arm64":
		return []string{"GOARM64=v8.0"}
	case "ppc64le":
		return []string{"GOPPC64=power8"}
	}
	return nil
}

// agentImage builds the agent image of t from its agent binary into r.out
// (internal/image, a module of its own, run for this machine).
func (r *release) agentImage(ctx context.Context, t target, agent string) (built, error) {
	start := time.Now()
	name := "numascope-agent-" + r.version + "-" + t.goos + "-" + t.goarch + ".oci.tar"
	out, err := filepath.Abs(filepath.Join(r.out, name))
	if err != nil {
		return built{}, err
	}
	args := []string{"run", ".", "-agent", agent, "-arch", t.goarch, "-out", out, "-version", r.version, "-time", r.mtime.UTC().Format(time.RFC3339)}
	if r.commit != "" {
		args = append(args, "-revision", r.commit)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Join(r.root, "internal", "image")
	cmd.Env = append(buildEnv(os.Environ()), r.env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return built{}, fmt.Errorf("building the agent image for %s (in %s: go %s) failed: %w\n%s\nor leave the image out with -image=false", t, cmd.Dir, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	data, err := input.ReadFile(out, "the agent image", maxArtifact)
	if err != nil {
		return built{}, err
	}
	sum := sha256.Sum256(data)
	return built{name: name, size: int64(len(data)), sum: hex.EncodeToString(sum[:]), files: 1, took: time.Since(start)}, nil
}

// build writes every archive and SHA256SUMS into r.out.
func (r *release) build(ctx context.Context) ([]built, error) {
	license, err := input.ReadFile(filepath.Join(r.root, "LICENSE"), "LICENSE", maxArtifact)
	if err != nil {
		return nil, fmt.Errorf("reading the license: %w: run from a complete numascope checkout", err)
	}
	tmp, err := os.MkdirTemp("", "numascope-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var out []built
	var krew []krewArchive
	for _, t := range r.targets {
		start := time.Now()
		dir := filepath.Join(tmp, t.goos+"-"+t.goarch)
		if err := r.crossBuild(ctx, t, dir); err != nil {
			return nil, err
		}
		a := &archive{prefix: strings.TrimSuffix(strings.TrimSuffix(t.archiveName(r.version), ".zip"), ".tar.gz"), mtime: r.mtime}
		a.entries = append(a.entries, entry{name: "LICENSE", mode: 0o644, data: license}, entry{name: "README.md", mode: 0o644, data: r.binReadme(t)})
		for _, c := range r.commands {
			a.entries = append(a.entries, entry{name: t.exe(c), mode: 0o755, src: filepath.Join(dir, t.exe(c))})
		}
		b, err := r.write(t.archiveName(r.version), a, t.goos == "windows")
		if err != nil {
			return nil, err
		}
		b.took = time.Since(start)
		fmt.Fprintf(r.log, "release: %s: %s (%s) in %s\n", t, b.name, units.Bytes(b.size), b.took.Round(100*time.Millisecond))
		out = append(out, b)
		krew = append(krew, krewArchive{t: t, name: b.name, sha256: b.sum})
		if r.image && t.goos == "linux" && r.has("agent") {
			ib, err := r.agentImage(ctx, t, filepath.Join(dir, "agent"))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(r.log, "release: %s: %s (%s) in %s\n", t, ib.name, units.Bytes(ib.size), ib.took.Round(100*time.Millisecond))
			out = append(out, ib)
		}
		os.RemoveAll(dir) // the binaries are in the archive now
	}
	if r.playground {
		start := time.Now()
		dir := filepath.Join(tmp, "playground")
		a, err := r.site(ctx, dir, license)
		if err != nil {
			return nil, err
		}
		b, err := r.write("numascope-"+r.version+"-playground.tar.gz", a, false)
		if err != nil {
			return nil, err
		}
		b.took = time.Since(start)
		fmt.Fprintf(r.log, "release: playground: %s (%s) in %s\n", b.name, units.Bytes(b.size), b.took.Round(100*time.Millisecond))
		out = append(out, b)
	}
	sums := map[string]string{}
	for _, b := range out {
		sums[b.name] = b.sum
	}
	if err := os.WriteFile(filepath.Join(r.out, "SHA256SUMS"), sha256sums(sums), 0o644); err != nil {
		return nil, fmt.Errorf("-out %s: writing SHA256SUMS: %w", r.out, err)
	}
	if r.has("kubectl-numascope") {
		m, err := krewManifest(r.version, krew)
		if err != nil {
			fmt.Fprintf(r.log, "release: no krew manifest: %v\n", err)
		} else if err := os.WriteFile(filepath.Join(r.out, krewManifestName), m, 0o644); err != nil {
			return nil, fmt.Errorf("-out %s: writing %s: %w", r.out, krewManifestName, err)
		} else {
			fmt.Fprintf(r.log, "release: krew manifest %s (publish it beside the archives)\n", krewManifestName)
		}
	}
	return out, nil
}

// crossBuild builds every command for t into dir: the commands of the main
// module in one go build, each command that is a module of its own (the
// cluster-facing ones, whose dependencies stay out of the SDK's go.mod)
// inside its module.
func (r *release) crossBuild(ctx context.Context, t target, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range buildSteps(r.root, r.commands) {
		args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}
		args = append(args, s.pkgs...)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = s.dir
		cmd.Env = append(append(append(buildEnv(os.Environ()), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch), archLevel(t.goarch)...), r.env...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building for %s (in %s: CGO_ENABLED=0 GOOS=%s GOARCH=%s go %s) failed: %w\n%s\nfix the build for that target, or leave it out of -targets", t, s.dir, t.goos, t.goarch, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
	}
	return nil
}

// buildStep is one go build: the packages it builds and the module
// directory it runs in.
type buildStep struct {
	dir  string
	pkgs []string
}

// buildSteps groups commands by module: the main module's commands first,
// in one step, then one step per command with a go.mod of its own.
func buildSteps(root string, commands []string) []buildStep {
	main := buildStep{dir: root}
	var own []buildStep
	for _, c := range commands {
		d := filepath.Join(root, "examples", c)
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			own = append(own, buildStep{dir: d, pkgs: []string{"."}})
			continue
		}
		main.pkgs = append(main.pkgs, "./examples/"+c)
	}
	if len(main.pkgs) == 0 {
		return own
	}
	return append([]buildStep{main}, own...)
}

// site builds the playground (go run . -out in playground/) into dir and returns
// its archive. The site's manifest.json records when it was built; that
// time becomes the release's, so the archive is reproducible, and the
// manifest's .gz and .br twins, which would still hold the build time, are
// left out (a static host serves the small manifest uncompressed).
func (r *release) site(ctx context.Context, dir string, license []byte) (*archive, error) {
	// The playground is a module of its own (its browser tests need
	// chromedp): it runs inside it, with an absolute -out.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-out", dir)
	cmd.Dir = filepath.Join(r.root, "playground")
	cmd.Env = buildEnv(os.Environ())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building the playground (in playground/: go run . -out %s) failed: %w\n%s\nfix the playground build, or pass -playground=false", dir, err, strings.TrimSpace(stderr.String()))
	}
	a := &archive{prefix: "numascope-" + r.version + "-playground", mtime: r.mtime}
	a.entries = append(a.entries, entry{name: "LICENSE", mode: 0o644, data: license}, entry{name: "README.md", mode: 0o644, data: r.siteReadme()})
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch rel {
		case "manifest.json.gz", "manifest.json.br", "LICENSE", "README.md":
			return nil
		case "manifest.json":
			b, err := input.ReadFile(p, "the playground's manifest.json", input.MaxDocument)
			if err != nil {
				return err
			}
			a.entries = append(a.entries, entry{name: "site/" + rel, mode: 0o644, data: stampManifest(b, r.mtime)})
			return nil
		}
		a.entries = append(a.entries, entry{name: "site/" + rel, mode: 0o644, src: p})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the playground site in %s: %w", dir, err)
	}
	return a, nil
}

var reBuilt = regexp.MustCompile(`("built":\s*)"[^"]*"`)

// stampManifest replaces the build time in the playground's manifest.json
// with t, leaving every other byte as the playground wrote it.
func stampManifest(b []byte, t time.Time) []byte {
	return reBuilt.ReplaceAll(b, []byte(`${1}"`+t.UTC().Format(time.RFC3339)+`"`))
}

// write writes a into r.out as name (zip or tar.gz) and returns its size
// and SHA-256.
func (r *release) write(name string, a *archive, asZip bool) (built, error) {
	p := filepath.Join(r.out, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return built{}, fmt.Errorf("-out %s: %w", r.out, err)
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	if asZip {
		err = writeZip(cw, a)
	} else {
		err = writeTarGz(cw, a)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return built{}, fmt.Errorf("writing %s: %w", p, err)
	}
	return built{name: name, size: cw.n, sum: hex.EncodeToString(h.Sum(nil)), files: len(a.entries)}, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// binReadme is the README.md of t's archive.
func (r *release) binReadme(t target) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# numascope %s for %s\n\n", r.version, t)
	b.WriteString("numascope explains what the kubelet's Topology Manager did on a NUMA node: why a pod\nfailed with TopologyAffinityError, who holds which CPUs, memory and devices on which\nNUMA node, and whether the kubelet's checkpoint files are intact.\n\n")
	b.WriteString("| program | what it does |\n|---|---|\n")
	names := map[string]string{}
	for _, c := range commands {
		names[c.name] = c.what
	}
	for _, c := range r.commands {
		fmt.Fprintf(&b, "| `%s` | %s |\n", t.exe(c), names[c])
	}
	b.WriteString("\nEvery program prints its usage and examples with `-h`.\n\n")
	if t.goos == "windows" {
		b.WriteString("## Try it\n\n```\ninspect.exe C:\\path\\to\\memory_manager_state\ndiagnose.exe --dir C:\\path\\to\\evidence\n```\n\n")
		if r.has("kubectl-numascope") {
			b.WriteString("## kubectl numascope\n\nCopy `kubectl-numascope.exe` into a directory on `PATH` (next to `kubectl.exe` works);\nthen `kubectl numascope nodes`, `kubectl numascope diagnose pod/NAME`. No krew needed.\n\n")
		}
	} else {
		if t.goos == "linux" {
			b.WriteString("## On a node\n\n```sh\nsudo sh -c './inspect /var/lib/kubelet/*_state'        # /var/lib/kubelet is root's: expand the glob as root\nsudo journalctl -u kubelet --since -1h > kubelet.log\nsudo ./diagnose --state-dir /var/lib/kubelet --kubelet-config /var/lib/kubelet/config.yaml --topology /sys --log kubelet.log\n```\n\n")
		} else {
			b.WriteString("## Try it\n\nOn files copied from a node (`/var/lib/kubelet/*_state`, `journalctl -u kubelet` output):\n\n```sh\n./inspect memory_manager_state cpu_manager_state\n./diagnose --dir evidence/\n```\n\n")
		}
		if r.has("kubectl-numascope") {
			b.WriteString("## kubectl numascope\n\n```sh\nmkdir -p ~/.local/bin && install -m 0755 kubectl-numascope ~/.local/bin/   # any directory on PATH; no krew needed\nkubectl numascope nodes\nkubectl numascope diagnose pod/NAME -n NAMESPACE\n```\n\n")
		}
		if t.goos == "darwin" {
			b.WriteString("The binaries are not signed or notarized: if macOS refuses to run one, check SHA256SUMS\nand clear the quarantine flag: `xattr -d com.apple.quarantine " + strings.Join(r.commands, " ") + "`.\n\n")
		}
	}
	sum := "sha256sum -c"
	if t.goos == "darwin" {
		sum = "shasum -a 256 -c"
	}
	fmt.Fprintf(&b, "## Verify\n\nCheck the downloaded archive against the release's SHA256SUMS:\n\n```sh\ngrep ' %s$' SHA256SUMS | %s\n```\n\n", t.archiveName(r.version), sum)
	fmt.Fprintf(&b, "Built with %s, CGO_ENABLED=0 (static, no libc needed), -trimpath", runtime.Version())
	if r.commit != "" {
		fmt.Fprintf(&b, ", from commit %s", r.commit)
	}
	b.WriteString(".\nDocumentation: https://github.com/numascope/numascope. License: Apache-2.0 (LICENSE).\n")
	return []byte(b.String())
}

// has reports whether the archives hold command name.
func (r *release) has(name string) bool {
	for _, c := range r.commands {
		if c == name {
			return true
		}
	}
	return false
}

// siteReadme is the README.md of the playground archive.
func (r *release) siteReadme() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# numascope %s playground\n\n", r.version)
	b.WriteString("The numascope engine compiled to WebAssembly, as a static site: paste kubelet state files\nand other evidence into the page and see their verdict, what sits on which NUMA node and\nwhy a pod was rejected. Nothing leaves the browser.\n\n")
	b.WriteString("Serve the `site/` directory from any static host over http(s) (a page opened as file://\ncannot load WebAssembly), for example:\n\n```sh\ncd site && python3 -m http.server 8080      # then open http://localhost:8080/\n```\n\n")
	b.WriteString("Every file that compresses has a `.gz` and a `.br` twin for hosts that serve precompressed\nfiles; serve `numascope.wasm` as `application/wasm`.\n\n")
	fmt.Fprintf(&b, "Built with %s", runtime.Version())
	if r.commit != "" {
		fmt.Fprintf(&b, " from commit %s", r.commit)
	}
	b.WriteString(".\nDocumentation: https://github.com/numascope/numascope. License: Apache-2.0 (LICENSE).\n")
	return []byte(b.String())
}
