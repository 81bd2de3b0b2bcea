package catalog

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb"
	"golang.org/x/mod/sumdb/dirhash"
)

// maxZip bounds a module zip (the Go command's own limit is 500 MB; a
// k8s.io/kubernetes zip is about 20 MB).
const maxZip = 500 << 20

// Fetcher gets module zips from the Go module proxy, verifies them against
// the Go checksum database, and keeps them in a cache directory. A zip
// already in the Go module cache is used from there. Zips are read in
// memory: nothing is extracted.
type Fetcher struct {
	Proxy    string // the module proxy's base URL
	CacheDir string // where downloaded zips and checksum database tiles are kept
	ModCache string // GOMODCACHE, read only; "" for none
	Client   *http.Client
	// Sums are known go.sum hashes by "path@version"; a module not in it
	// is looked up in the checksum database.
	Sums map[string]string

	mu    sync.Mutex
	db    *sumdb.Client
	dbErr error
	// Downloaded counts the bytes fetched from the proxy.
	Downloaded int64
}

// goEnv reads the Go command's settings (go env -w included), falling back
// to the environment when the go command is not at hand.
func goEnv(keys ...string) map[string]string {
	out := map[string]string{}
	b, err := exec.Command("go", append([]string{"env", "-json"}, keys...)...).Output()
	if err == nil && json.Unmarshal(b, &out) == nil {
		return out
	}
	for _, k := range keys {
		out[k] = os.Getenv(k)
	}
	return out
}

// DefaultCacheDir is where the command keeps zips between runs.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "numascope", "kubelet-catalog")
}

// NewFetcher configures a fetcher from GOPROXY (its first http(s) entry),
// GOSUMDB and GOMODCACHE. GOSUMDB=off is refused: the catalogue records
// sources that were verified.
func NewFetcher(cacheDir string) (*Fetcher, error) {
	env := goEnv("GOPROXY", "GOSUMDB", "GOMODCACHE")
	proxy := ""
	for _, p := range strings.FieldsFunc(env["GOPROXY"], func(r rune) bool { return r == ',' || r == '|' }) {
		if strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "http://") {
			proxy = strings.TrimSuffix(p, "/")
			break
		}
	}
	if env["GOPROXY"] == "" {
		proxy = "https://proxy.golang.org"
	}
	if proxy == "" {
		return nil, fmt.Errorf("GOPROXY=%q names no module proxy URL: the catalogue's sources come from a proxy (set GOPROXY=https://proxy.golang.org)", env["GOPROXY"])
	}
	f := &Fetcher{Proxy: proxy, CacheDir: cacheDir, ModCache: env["GOMODCACHE"], Client: &http.Client{Timeout: 5 * time.Minute}}
	if err := f.setSumDB(env["GOSUMDB"]); err != nil {
		return nil, err
	}
	return f, nil
}

// sumGolangOrgKey is the checksum database key the go command knows
// (cmd/go/internal/modfetch/key.go).
const sumGolangOrgKey = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"

func (f *Fetcher) setSumDB(setting string) error {
	key, url := "", ""
	switch fields := strings.Fields(setting); {
	case setting == "" || setting == "sum.golang.org":
		key = sumGolangOrgKey
	case setting == "sum.golang.google.cn":
		key, url = sumGolangOrgKey, "https://sum.golang.google.cn"
	case setting == "off":
		return errors.New("GOSUMDB=off: the catalogue's sources must be verified against the checksum database; unset GOSUMDB")
	case len(fields) >= 1 && strings.Contains(fields[0], "+"):
		key = fields[0]
		if len(fields) > 1 {
			url = fields[1]
		}
	default:
		return fmt.Errorf("GOSUMDB=%q: give a database key (name+hash+key [url]) or leave it unset", setting)
	}
	name, _, _ := strings.Cut(key, "+")
	f.db = sumdb.NewClient(&sumdbOps{f: f, name: name, key: key, url: url})
	return nil
}

// Sum returns the go.sum hash of a module version, from Sums or the
// checksum database.
func (f *Fetcher) Sum(path, version string) (string, error) {
	if s, ok := f.Sums[path+"@"+version]; ok {
		return s, nil
	}
	if f.db == nil {
		return "", fmt.Errorf("%s@%s: no checksum database configured", path, version)
	}
	lines, err := f.db.Lookup(path, version)
	if err != nil {
		return "", fmt.Errorf("checksum database: %w", err)
	}
	for _, l := range lines {
		fs := strings.Fields(l)
		if len(fs) == 3 && fs[0] == path && fs[1] == version {
			return fs[2], nil
		}
	}
	return "", fmt.Errorf("checksum database: no hash for %s@%s", path, version)
}

// Fetch returns a module version's files, verified against its go.sum hash.
func (f *Fetcher) Fetch(ctx context.Context, path, version string) (Source, error) {
	sum, err := f.Sum(path, version)
	if err != nil {
		return Source{}, err
	}
	data, err := f.zip(ctx, path, version, sum)
	if err != nil {
		return Source{}, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Source{}, fmt.Errorf("%s@%s: %w", path, version, err)
	}
	sub, err := fs.Sub(zr, path+"@"+version)
	if err != nil {
		return Source{}, err
	}
	return Source{Path: path, Version: version, Sum: sum, FS: sub}, nil
}

// zip finds a module zip in the caches or downloads it, and checks its hash.
func (f *Fetcher) zip(ctx context.Context, path, version, sum string) ([]byte, error) {
	ep, err := module.EscapePath(path)
	if err != nil {
		return nil, err
	}
	ev, err := module.EscapeVersion(version)
	if err != nil {
		return nil, err
	}
	rel := filepath.Join(filepath.FromSlash(ep), "@v", ev+".zip")
	var candidates []string
	if f.CacheDir != "" {
		candidates = append(candidates, filepath.Join(f.CacheDir, rel))
	}
	if f.ModCache != "" {
		candidates = append(candidates, filepath.Join(f.ModCache, "cache", "download", rel))
	}
	// A cached zip is trusted when the hash recorded beside it when it was
	// verified (the go command's .ziphash, or ours) is the expected one;
	// else it is hashed again.
	for _, c := range candidates {
		data, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		if h, err := os.ReadFile(strings.TrimSuffix(c, ".zip") + ".ziphash"); err == nil && strings.TrimSpace(string(h)) == sum {
			return data, nil
		}
		if got, err := hashZip(data); err == nil && got == sum {
			if f.CacheDir != "" && strings.HasPrefix(c, f.CacheDir) {
				_ = writeAtomic(strings.TrimSuffix(c, ".zip")+".ziphash", []byte(sum+"\n"))
			}
			return data, nil
		}
	}
	url := f.Proxy + "/" + ep + "/@v/" + ev + ".zip"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", path, version, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s@%s: the proxy answered %s: %s", path, version, resp.Status, strings.TrimSpace(string(msg)))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxZip+1))
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", path, version, err)
	}
	if len(data) > maxZip {
		return nil, fmt.Errorf("%s@%s: the zip is larger than %d bytes", path, version, maxZip)
	}
	got, err := hashZip(data)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", path, version, err)
	}
	if got != sum {
		return nil, fmt.Errorf("%s@%s: the zip from %s hashes to %s, the checksum database says %s: refusing it", path, version, f.Proxy, got, sum)
	}
	f.mu.Lock()
	f.Downloaded += int64(len(data))
	f.mu.Unlock()
	if f.CacheDir != "" {
		dst := filepath.Join(f.CacheDir, rel)
		if err := writeAtomic(dst, data); err != nil {
			return nil, err
		}
		if err := writeAtomic(strings.TrimSuffix(dst, ".zip")+".ziphash", []byte(sum+"\n")); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// hashZip is dirhash.HashZip over a zip in memory.
func hashZip(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	files := make([]string, 0, len(zr.File))
	byName := make(map[string]*zip.File, len(zr.File))
	for _, zf := range zr.File {
		files = append(files, zf.Name)
		byName[zf.Name] = zf
	}
	return dirhash.Hash1(files, func(name string) (io.ReadCloser, error) {
		zf := byName[name]
		if zf == nil {
			return nil, fmt.Errorf("%s: not in the zip", name)
		}
		return zf.Open()
	})
}

func writeAtomic(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// sumdbOps gives the checksum database client its network and cache: the
// database is reached through the proxy when the proxy supports it (as the
// go command does), its tiles and lookups cached in CacheDir/sumdb.
type sumdbOps struct {
	f              *Fetcher
	name, key, url string
	once           sync.Once
	mu             sync.Mutex
}

func (o *sumdbOps) base() string {
	o.once.Do(func() {
		if o.url != "" {
			return
		}
		o.url = "https://" + o.name
		resp, err := o.f.Client.Get(o.f.Proxy + "/sumdb/" + o.name + "/supported")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				o.url = o.f.Proxy + "/sumdb/" + o.name
			}
		}
	})
	return o.url
}

func (o *sumdbOps) ReadRemote(path string) ([]byte, error) {
	resp, err := o.f.Client.Get(o.base() + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s%s: %s", o.base(), path, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 16<<20))
}

func (o *sumdbOps) configPath(file string) string {
	return filepath.Join(o.f.CacheDir, "sumdb-config", filepath.FromSlash(file))
}

func (o *sumdbOps) ReadConfig(file string) ([]byte, error) {
	if file == "key" {
		return []byte(o.key), nil
	}
	if o.f.CacheDir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(o.configPath(file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func (o *sumdbOps) WriteConfig(file string, old, new []byte) error {
	if o.f.CacheDir == "" {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cur, err := os.ReadFile(o.configPath(file))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !bytes.Equal(cur, old) {
		return sumdb.ErrWriteConflict
	}
	return writeAtomic(o.configPath(file), new)
}

func (o *sumdbOps) ReadCache(file string) ([]byte, error) {
	if o.f.CacheDir != "" {
		if b, err := os.ReadFile(filepath.Join(o.f.CacheDir, "sumdb", filepath.FromSlash(file))); err == nil {
			return b, nil
		}
	}
	if o.f.ModCache != "" {
		return os.ReadFile(filepath.Join(o.f.ModCache, "cache", "download", "sumdb", filepath.FromSlash(file)))
	}
	return nil, fs.ErrNotExist
}

func (o *sumdbOps) WriteCache(file string, data []byte) {
	if o.f.CacheDir != "" {
		_ = writeAtomic(filepath.Join(o.f.CacheDir, "sumdb", filepath.FromSlash(file)), data)
	}
}

func (o *sumdbOps) Log(string) {}

func (o *sumdbOps) SecurityError(msg string) {
	o.f.mu.Lock()
	o.f.dbErr = errors.New(msg)
	o.f.mu.Unlock()
}
