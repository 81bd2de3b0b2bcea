// Command wasmsize tells where the bytes of a WebAssembly module go: it sums
// the size of each function body in the code section by the Go package the
// name section gives it, and lists the sections. Build the engine without -s
// so that the name section is kept:
//
//	GOOS=js GOARCH=wasm go build -trimpath -o /tmp/numascope.wasm ./wasm
//	go run ./wasm/internal/wasmsize -top 20 /tmp/numascope.wasm
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// maxModule bounds what wasmsize reads; the engine is well under it.
const maxModule = 256 << 20

func main() {
	top := flag.Int("top", 20, "list the `N` largest packages")
	funcs := flag.Int("funcs", 0, "also list the `N` largest functions")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./wasm/internal/wasmsize [-top N] [-funcs N] module.wasm\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *top, *funcs); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, path string, top, funcs int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxModule+1))
	if err != nil {
		return err
	}
	if len(data) > maxModule {
		return fmt.Errorf("%s is larger than %d bytes", path, maxModule)
	}
	m, err := parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	report(w, m, top, funcs)
	return nil
}

// module is what wasmsize reads from a module.
type module struct {
	size     int
	sections []section
	imports  int            // imported functions, which come first in the function index space
	bodies   []int          // size of each function body, by code-section order
	names    map[int]string // function index -> name, from the name section
}

type section struct {
	id   byte
	name string // custom sections' names
	size int
}

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "datacount", "tag"}

func (s section) String() string {
	if s.id == 0 {
		return "custom " + s.name
	}
	if int(s.id) < len(sectionNames) {
		return sectionNames[s.id]
	}
	return fmt.Sprintf("section %d", s.id)
}

var errTruncated = errors.New("truncated module")

type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) uleb() (int, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > 1<<31 {
				return 0, fmt.Errorf("value %d at offset %d is too large", v, r.off)
			}
			return int(v), nil
		}
	}
	return 0, fmt.Errorf("LEB128 at offset %d is too long", r.off)
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, errTruncated
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) name() (string, error) {
	n, err := r.uleb()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

func parse(data []byte) (*module, error) {
	if len(data) < 8 || string(data[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module (no \\0asm magic number)")
	}
	m := &module{size: len(data), names: map[int]string{}}
	r := &reader{b: data, off: 8}
	for r.off < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		n, err := r.uleb()
		if err != nil {
			return nil, err
		}
		body, err := r.bytes(n)
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
		s := section{id: id, size: n}
		sr := &reader{b: body}
		switch id {
		case 0:
			if s.name, err = sr.name(); err != nil {
				return nil, err
			}
			if s.name == "name" {
				if err := m.readNames(sr); err != nil {
					return nil, fmt.Errorf("name section: %w", err)
				}
			}
		case 2:
			if err := m.readImports(sr); err != nil {
				return nil, fmt.Errorf("import section: %w", err)
			}
		case 10:
			if err := m.readCode(sr); err != nil {
				return nil, fmt.Errorf("code section: %w", err)
			}
		}
		m.sections = append(m.sections, s)
	}
	return m, nil
}

func (m *module) readImports(r *reader) error {
	n, err := r.uleb()
	if err != nil {
		return err
	}
	for range n {
		if _, err := r.name(); err != nil {
			return err
		}
		if _, err := r.name(); err != nil {
			return err
		}
		kind, err := r.byte()
		if err != nil {
			return err
		}
		switch kind {
		case 0: // function: type index
			m.imports++
			_, err = r.uleb()
		case 1: // table: reftype, limits
			if _, err = r.byte(); err == nil {
				err = r.limits()
			}
		case 2: // memory: limits
			err = r.limits()
		case 3: // global: valtype, mutability
			if _, err = r.byte(); err == nil {
				_, err = r.byte()
			}
		default:
			return fmt.Errorf("import kind %d is not known", kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if _, err := r.uleb(); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.uleb()
	}
	return err
}

func (m *module) readCode(r *reader) error {
	n, err := r.uleb()
	if err != nil {
		return err
	}
	m.bodies = make([]int, 0, min(n, len(r.b)))
	for range n {
		size, err := r.uleb()
		if err != nil {
			return err
		}
		if _, err := r.bytes(size); err != nil {
			return err
		}
		m.bodies = append(m.bodies, size)
	}
	return nil
}

func (m *module) readNames(r *reader) error {
	for r.off < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return err
		}
		n, err := r.uleb()
		if err != nil {
			return err
		}
		body, err := r.bytes(n)
		if err != nil {
			return err
		}
		if id != 1 { // function names
			continue
		}
		sr := &reader{b: body}
		count, err := sr.uleb()
		if err != nil {
			return err
		}
		for range count {
			idx, err := sr.uleb()
			if err != nil {
				return err
			}
			name, err := sr.name()
			if err != nil {
				return err
			}
			m.names[idx] = name
		}
	}
	return nil
}

// pkgOf returns the Go package of a function name as the Go linker writes
// it into the name section: the symbol ("path/to/pkg.(*T).Method") with every
// character other than a letter, digit, '_' or '.' replaced by '_', so
// "path_to_pkg.__T_.Method". The package ends at the first '.' after the
// module's host name ("github.com", "go.yaml.in"), which is recognised by its
// top-level domain.
func pkgOf(name string) string {
	if rest, ok := strings.CutPrefix(name, "type_.eq."); ok {
		name = rest
	} else if strings.HasPrefix(name, "type_.") || strings.HasPrefix(name, "go_.") {
		return "(" + name[:strings.IndexByte(name, '.')] + ")"
	}
	from := 0
	if us := strings.IndexByte(name, '_'); us > 0 && isHost(name[:us]) {
		from = us
	}
	dot := strings.IndexByte(name[from:], '.')
	if dot < 0 {
		return name
	}
	return name[:from+dot]
}

func isHost(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 {
		return false
	}
	switch s[dot+1:] {
	case "com", "org", "io", "in", "net", "dev", "co", "xyz", "me", "cc":
		return !strings.Contains(s, "..")
	}
	return false
}

type entry struct {
	name  string
	bytes int
	count int
}

func report(w io.Writer, m *module, top, funcs int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "section\tbytes\t\n")
	for _, s := range m.sections {
		fmt.Fprintf(tw, "%s\t%d\t\n", s, s.size)
	}
	fmt.Fprintf(tw, "module\t%d\t\n\n", m.size)
	tw.Flush()

	pkgs := map[string]*entry{}
	var all []entry
	code := 0
	for i, size := range m.bodies {
		name := m.names[m.imports+i]
		if name == "" {
			name = fmt.Sprintf("func[%d]", m.imports+i)
		}
		all = append(all, entry{name: name, bytes: size, count: 1})
		p := pkgOf(name)
		e := pkgs[p]
		if e == nil {
			e = &entry{name: p}
			pkgs[p] = e
		}
		e.bytes += size
		e.count++
		code += size
	}
	list := make([]entry, 0, len(pkgs))
	for _, e := range pkgs {
		list = append(list, *e)
	}
	byBytes := func(l []entry) {
		sort.Slice(l, func(i, j int) bool {
			if l[i].bytes != l[j].bytes {
				return l[i].bytes > l[j].bytes
			}
			return l[i].name < l[j].name
		})
	}
	byBytes(list)
	if len(m.names) == 0 {
		fmt.Fprintln(w, "the module has no name section (built with -ldflags=-s?): function bodies are not attributed")
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "package\tfunction bytes\tfunctions\tshare of code\n")
	for i, e := range list {
		if i == top {
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\n", e.name, e.bytes, e.count, 100*float64(e.bytes)/float64(max(code, 1)))
	}
	fmt.Fprintf(tw, "all %d packages\t%d\t%d\t\n", len(list), code, len(m.bodies))
	tw.Flush()
	if funcs > 0 {
		byBytes(all)
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, e := range all {
			if i == funcs {
				break
			}
			fmt.Fprintf(tw, "%s\t%d\n", e.name, e.bytes)
		}
		tw.Flush()
	}
}
