package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/input"
)

// member is what a reader of an archive sees of one entry.
type member struct {
	Name  string
	Mode  fs.FileMode
	Dir   bool
	MTime time.Time
	Data  string
}

func readTarGz(t *testing.T, b []byte) []member {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Empty(t, zr.Name, "gzip header name")
	assert.True(t, zr.ModTime.IsZero() || zr.ModTime.Unix() == 0, "gzip header time %v", zr.ModTime)
	tr := tar.NewReader(zr)
	var out []member
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		assert.Zero(t, h.Uid, h.Name)
		assert.Zero(t, h.Gid, h.Name)
		assert.Empty(t, h.Uname, h.Name)
		assert.Empty(t, h.Gname, h.Name)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		out = append(out, member{Name: h.Name, Mode: fs.FileMode(h.Mode), Dir: h.Typeflag == tar.TypeDir, MTime: h.ModTime.UTC(), Data: string(data)})
	}
	return out
}

func readZip(t *testing.T, b []byte) []member {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	var out []member
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		out = append(out, member{Name: f.Name, Mode: f.Mode().Perm(), Dir: f.Mode().IsDir(), MTime: f.Modified.UTC(), Data: string(data)})
	}
	return out
}

func TestArchiveWriters(t *testing.T) {
	mtime := time.Date(2026, 11, 30, 12, 34, 56, 789, time.UTC) // sub-second part dropped
	at := mtime.Truncate(time.Second)
	dir := t.TempDir()
	bin := filepath.Join(dir, "inspect")
	require.NoError(t, os.WriteFile(bin, []byte("\x7fELF program"), 0o700)) // the mode on disk does not matter
	a := &archive{prefix: "numascope-v1-linux-amd64", mtime: mtime, entries: []entry{
		{name: "inspect", mode: 0o755, src: bin},
		{name: "README.md", mode: 0o644, data: []byte("# readme\n")},
		{name: "site/js/app.js", mode: 0o644, data: []byte("app()")},
		{name: "LICENSE", mode: 0o644, data: []byte("Apache-2.0\n")},
	}}
	want := func() []member {
		return []member{
			{Name: "numascope-v1-linux-amd64/", Mode: 0o755, Dir: true, MTime: at},
			{Name: "numascope-v1-linux-amd64/site/", Mode: 0o755, Dir: true, MTime: at},
			{Name: "numascope-v1-linux-amd64/site/js/", Mode: 0o755, Dir: true, MTime: at},
			{Name: "numascope-v1-linux-amd64/LICENSE", Mode: 0o644, MTime: at, Data: "Apache-2.0\n"},
			{Name: "numascope-v1-linux-amd64/README.md", Mode: 0o644, MTime: at, Data: "# readme\n"},
			{Name: "numascope-v1-linux-amd64/inspect", Mode: 0o755, MTime: at, Data: "\x7fELF program"},
			{Name: "numascope-v1-linux-amd64/site/js/app.js", Mode: 0o644, MTime: at, Data: "app()"},
		}
	}
	for _, tc := range []struct {
		name  string
		write func(io.Writer, *archive) error
		read  func(*testing.T, []byte) []member
	}{
		{"tar.gz", writeTarGz, readTarGz},
		{"zip", writeZip, readZip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first, second bytes.Buffer
			require.NoError(t, tc.write(&first, a))
			if diff := cmp.Diff(want(), tc.read(t, first.Bytes())); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
			// Reproducible: the same archive again, its entries in another
			// order and the source file touched, gives the same bytes.
			require.NoError(t, os.Chtimes(bin, time.Now(), time.Now()))
			b := *a
			b.entries = append([]entry(nil), a.entries...)
			sort.Slice(b.entries, func(i, j int) bool { return b.entries[i].name > b.entries[j].name })
			require.NoError(t, tc.write(&second, &b))
			assert.True(t, bytes.Equal(first.Bytes(), second.Bytes()), "writing the same archive twice gives different bytes")
			// The time is in the bytes: another time, other bytes.
			var other bytes.Buffer
			c := b
			c.mtime = mtime.Add(time.Hour)
			require.NoError(t, tc.write(&other, &c))
			assert.False(t, bytes.Equal(first.Bytes(), other.Bytes()), "the modification time is not recorded")
		})
	}
}

func TestArchiveRefusesBadEntries(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, exec.Command("mkfifo", filepath.Join(dir, "fifo")).Run())
	for _, tc := range []struct {
		name    string
		entries []entry
		want    string
		is      error
	}{
		{"duplicate", []entry{{name: "a", data: []byte("1")}, {name: "a", data: []byte("2")}}, "two entries named a", nil},
		{"absolute", []entry{{name: "/etc/passwd"}}, "not a clean relative path", nil},
		{"escapes", []entry{{name: "../x"}}, "not a clean relative path", nil},
		{"unclean", []entry{{name: "a/../b"}}, "not a clean relative path", nil},
		{"empty name", []entry{{name: ""}}, "not a clean relative path", nil},
		{"missing source", []entry{{name: "inspect", src: filepath.Join(dir, "nope")}}, "no such file", nil},
		{"fifo source", []entry{{name: "inspect", src: filepath.Join(dir, "fifo")}}, "FIFO", input.ErrNotRegular},
	} {
		for _, w := range []struct {
			name  string
			write func(io.Writer, *archive) error
		}{{"tar.gz", writeTarGz}, {"zip", writeZip}} {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				err := w.write(io.Discard, &archive{prefix: "p", entries: tc.entries})
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				if tc.is != nil {
					assert.ErrorIs(t, err, tc.is)
				}
			})
		}
	}
}

func TestSHA256SUMS(t *testing.T) {
	dir := t.TempDir()
	sums := map[string]string{}
	for name, data := range map[string]string{"b.zip": "zip bytes", "a.tar.gz": "tar bytes"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
		s := sha256.Sum256([]byte(data))
		sums[name] = hex.EncodeToString(s[:])
	}
	got := sha256sums(sums)
	assert.Equal(t, sums["a.tar.gz"]+"  a.tar.gz\n"+sums["b.zip"]+"  b.zip\n", string(got))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SHA256SUMS"), got, 0o644))
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum is not installed (coreutils)")
	}
	cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "a.tar.gz: OK\nb.zip: OK\n", string(out))
}

func TestParseTargets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: strings.Join(defaultTargets, ","), want: defaultTargets},
		{in: " linux/arm64 , windows/amd64,", want: []string{"linux/arm64", "windows/amd64"}},
		{in: "linux/s390x", want: []string{"linux/s390x"}},
		{in: "linux/mips", err: `unknown target "linux/mips": choose from linux/amd64,`},
		{in: "linux", err: `unknown target "linux"`},
		{in: "Linux/AMD64", err: `unknown target "Linux/AMD64"`},
		{in: "linux/amd64,linux/amd64", err: "linux/amd64 is listed twice"},
		{in: "", err: "no target given"},
		{in: " , ", err: "no target given"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTargets(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), "-targets")
				return
			}
			require.NoError(t, err)
			var names []string
			for _, g := range got {
				names = append(names, g.String())
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

func TestArchiveNames(t *testing.T) {
	for _, tc := range []struct {
		t       target
		archive string
		exe     string
	}{
		{target{"linux", "amd64"}, "numascope-v0.3.0-linux-amd64.tar.gz", "inspect"},
		{target{"darwin", "arm64"}, "numascope-v0.3.0-darwin-arm64.tar.gz", "inspect"},
		{target{"windows", "amd64"}, "numascope-v0.3.0-windows-amd64.zip", "inspect.exe"},
	} {
		t.Run(tc.t.String(), func(t *testing.T) {
			assert.Equal(t, tc.archive, tc.t.archiveName("v0.3.0"))
			assert.Equal(t, tc.exe, tc.t.exe("inspect"))
		})
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"v0.3.0", true},
		{"0.3.0-rc.1+build.5", true},
		{"8ebf9ca-dirty", true},
		{"", false},
		{"-v1", false},
		{"v1/../../etc", false},
		{"v 1", false},
		{strings.Repeat("a", 65), false},
	} {
		t.Run(tc.v, func(t *testing.T) {
			err := checkVersion(tc.v)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "e.g. v0.3.0")
			}
		})
	}
}

func TestSourceDate(t *testing.T) {
	for _, tc := range []struct {
		name, env, commit string
		want              time.Time
		err               string
	}{
		{name: "SOURCE_DATE_EPOCH wins", env: "1700000000", commit: "1800000000", want: time.Unix(1700000000, 0).UTC()},
		{name: "commit time", commit: "1800000000", want: time.Unix(1800000000, 0).UTC()},
		{name: "neither", want: fallbackTime},
		{name: "not a number", env: "yesterday", err: `SOURCE_DATE_EPOCH "yesterday"`},
		{name: "before zip's 1980", env: "0", err: "1980"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sourceDate(tc.env, tc.commit)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestStampManifest(t *testing.T) {
	in := []byte("{\n  \"wasm\": {\n    \"bytes\": 5\n  },\n  \"go\": \"go1.26.8\",\n  \"built\": \"2026-12-01T16:59:01Z\"\n}\n")
	want := "{\n  \"wasm\": {\n    \"bytes\": 5\n  },\n  \"go\": \"go1.26.8\",\n  \"built\": \"2026-11-30T12:00:00Z\"\n}\n"
	assert.Equal(t, want, string(stampManifest(in, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))))
}

func TestBuildEnvClearsShellSettings(t *testing.T) {
	got := buildEnv([]string{"HOME=/root", "GOFLAGS=-buildvcs=true", "GOAMD64=v3", "GOOS=plan9", "CGO_ENABLED=1", "GOCACHE=/c"})
	assert.Equal(t, []string{"HOME=/root", "GOCACHE=/c", "GOFLAGS=-mod=readonly"}, got)
	assert.Equal(t, []string{"GOAMD64=v1"}, archLevel("amd64"))
	assert.Equal(t, []string{"GOARM64=v8.0"}, archLevel("arm64"))
}

// TestCommandsAreTheExamples keeps the archive's program list the same as
// the commands under examples/.
func TestCommandsAreTheExamples(t *testing.T) {
	des, err := os.ReadDir("../../examples")
	require.NoError(t, err)
	var want, got []string
	for _, d := range des {
		if !d.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join("../../examples", d.Name(), "main.go")); err == nil {
			want = append(want, d.Name())
		}
	}
	for _, c := range commands {
		got = append(got, c.name)
		assert.NotEmpty(t, c.what, c.name)
	}
	sort.Strings(got)
	assert.Equal(t, want, got, "a command under examples/ is missing from the release, or the release names one that is gone")
}

func TestRunFlags(t *testing.T) {
	nonEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(nonEmpty, "old.tar.gz"), []byte("x"), 0o644))
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"-h"}, 0, "usage: go run ./internal/release -out DIR"},
		{"no -out", nil, 2, "-out DIR is required"},
		{"unknown flag", []string{"-bogus"}, 2, "flag provided but not defined: -bogus"},
		{"argument", []string{"-out", "x", "extra"}, 2, `unexpected argument "extra"`},
		{"unknown target", []string{"-out", t.TempDir(), "-targets", "plan9/386"}, 2, `unknown target "plan9/386"`},
		{"bad version", []string{"-out", t.TempDir(), "-version", "../v1"}, 2, `-version "../v1"`},
		{"out not empty", []string{"-out", nonEmpty, "-targets", "linux/amd64"}, 1, "the directory is not empty (1 entries, e.g. old.tar.gz): give a new or empty directory"},
		{"out is a file", []string{"-out", file}, 1, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			assert.Contains(t, stdout.String()+stderr.String(), tc.want)
		})
	}
}

// TestCrossBuild builds inspect for linux/arm64 for real, twice, and wants
// two identical archives whose program is a static, stripped arm64 ELF
// (checked, not run). The second build is normally served from Go's build
// cache, so it shows that the archive adds nothing that varies (times,
// owners, order, paths); NUMASCOPE_RELEASE_FRESH_CACHE=1 gives the second
// build an empty GOCACHE, so the compiler's output is compared too (a few
// minutes on two cores).
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds a command (a minute or more cold): skipped under -short")
	}
	ctx := context.Background()
	var archives [2][]byte
	var sums [2][]byte
	for i := range archives {
		out := filepath.Join(t.TempDir(), "dist")
		r, err := newRelease(ctx, out, "v0.0.0-test", []target{{"linux", "arm64"}}, false, io.Discard)
		require.NoError(t, err)
		r.commands = []string{"inspect"}
		if i == 1 && os.Getenv("NUMASCOPE_RELEASE_FRESH_CACHE") != "" {
			r.env = []string{"GOCACHE=" + t.TempDir()}
		}
		bs, err := r.build(ctx)
		require.NoError(t, err)
		require.Len(t, bs, 1)
		assert.Equal(t, "numascope-v0.0.0-test-linux-arm64.tar.gz", bs[0].name)
		archives[i], err = os.ReadFile(filepath.Join(out, bs[0].name))
		require.NoError(t, err)
		sums[i], err = os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		require.NoError(t, err)
		sum := sha256.Sum256(archives[i])
		assert.Equal(t, hex.EncodeToString(sum[:])+"  "+bs[0].name+"\n", string(sums[i]))
		assert.Equal(t, int64(len(archives[i])), bs[0].size)
	}
	assert.True(t, bytes.Equal(archives[0], archives[1]), "two builds of the same tree give different archives")
	assert.Equal(t, string(sums[0]), string(sums[1]))

	members := readTarGz(t, archives[0])
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
		assert.Equal(t, members[0].MTime, m.MTime, m.Name)
		if m.Name == "numascope-v0.0.0-test-linux-arm64/inspect" {
			assert.Equal(t, fs.FileMode(0o755), m.Mode)
			f, err := elf.NewFile(strings.NewReader(m.Data))
			require.NoError(t, err)
			assert.Equal(t, elf.EM_AARCH64, f.Machine)
			assert.Nil(t, f.Section(".symtab"), "built with -s: no symbol table")
			for _, p := range f.Progs {
				assert.NotEqual(t, elf.PT_INTERP, p.Type, "CGO_ENABLED=0: no dynamic loader")
			}
		}
		if strings.HasSuffix(m.Name, "/README.md") {
			assert.Contains(t, m.Data, "# numascope v0.0.0-test for linux/arm64")
			assert.Contains(t, m.Data, "sudo sh -c './inspect /var/lib/kubelet/*_state'")
			assert.NotContains(t, m.Data, "kubectl-numascope", "a program the archive does not hold")
		}
	}
	assert.Equal(t, []string{
		"numascope-v0.0.0-test-linux-arm64/",
		"numascope-v0.0.0-test-linux-arm64/LICENSE",
		"numascope-v0.0.0-test-linux-arm64/README.md",
		"numascope-v0.0.0-test-linux-arm64/inspect",
	}, names)
}

// TestBuildStepsBuildNestedModulesInside: a command with a go.mod of its own
// is built inside its module (from the root, go build ./examples/agent fails:
// the main module does not hold it), the others together from the root.
func TestBuildStepsBuildNestedModulesInside(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	steps := buildSteps(root, names)
	require.NotEmpty(t, steps)
	assert.Equal(t, root, steps[0].dir)
	assert.Equal(t, []string{"./examples/inspect", "./examples/diagnose", "./examples/admit", "./examples/podresources"}, steps[0].pkgs)
	var own []string
	for _, s := range steps[1:] {
		assert.Equal(t, []string{"."}, s.pkgs, s.dir)
		assert.FileExists(t, filepath.Join(s.dir, "go.mod"))
		own = append(own, filepath.Base(s.dir))
	}
	assert.Equal(t, []string{"agent", "kubectl-numascope"}, own)
}
