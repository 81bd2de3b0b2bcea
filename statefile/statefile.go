package statefile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-multierror"
)

// Format names the on-disk layout version of a checkpoint.
//
// cpu: v1 (entries containerID→cpuset, kubelet ≤1.17), v2 (podUID→container→cpuset),
// v3 (+podEntries), v4 (data/dataChecksum). memory: v1, v2 (+podEntries), v3
// (data/dataChecksum). device: v1 (flat DeviceIDs, kubelet ≤1.19), v2 (DeviceIDs
// per NUMA node). dra: spew-v1 (fnv checksum; with or without resource handles,
// see ChecksumReport.Matched), crc32 ({"Data": "<json>", "Checksum": N}).
type Format string

// The formats numascope reads and writes.
const (
	FormatV1     Format = "v1"
	FormatV2     Format = "v2"
	FormatV3     Format = "v3"
	FormatV4     Format = "v4"
	FormatSpewV1 Format = "spew-v1"
	FormatCRC32  Format = "crc32"
)

// What the kubelet does when it rejects a checkpoint.
const (
	RefusesToStart = "refuses-to-start"
	DiscardsData   = "discards-data"
)

// DefaultMaxSize is the input size limit used when Options.MaxSize is 0.
const DefaultMaxSize = 64 << 20

// MaxDepth is the deepest JSON nesting accepted. It equals encoding/json's own
// limit, so numascope refuses exactly the nesting the kubelet refuses.
const MaxDepth = 10000

// Options tells Decode what the caller knows about the file.
type Options struct {
	// Name is the file name as the user gave it; every error and problem names it.
	Name string
	// Kind forces the checkpoint kind; "" detects it from the content.
	Kind Kind
	// Policy is the policy the kubelet is configured with (cpu: "none" or
	// "static"; memory: "None" or "Static"). "" assumes the policy named in the file.
	Policy string
	// MaxSize is the largest input accepted, in bytes; 0 means 64 MiB.
	MaxSize int64
	// KubeletVersion is the release of the kubelet that reads the file
	// ("1.30", "v1.30.4"; 1.28 to 1.37): KubeletAccepts, OnReject and Reason
	// are that release's. "" means the newest, 1.37. Decode, ReadFile and
	// Verify honour it.
	KubeletVersion string
}

// Severity grades a Problem.
type Severity string

// Problem severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Problem is one thing wrong with (or worth knowing about) a checkpoint.
// Path is a JSON pointer into the file; inside the data section of cpu v4,
// memory v3 and dra crc32 files (a JSON document held in a string) it is
// "/data" (or "/Data") followed by the pointer within that document.
//
// What a problem holds is bounded, whatever the file: a name (a key, a pod
// UID, a resource) longer than 320 bytes is cut to its first bytes and its
// length, in Message, Path and Also alike (CutToken reads a cut token of a
// pointer), and File.Problems lists the first 50 problems of a kind (one
// message template), then one problem that counts the others.
type Problem struct {
	Path     string   `json:"path"`     // JSON pointer ("" for the whole file)
	Message  string   `json:"message"`  // a plain sentence naming the file
	Remedy   string   `json:"remedy"`   // what to do about it
	Severity Severity `json:"severity"` // error, warning or info
	// Also holds the pointers of the other places the problem involves,
	// in the same form as Path: the second holder of a CPU that two
	// containers hold (Path is the first).
	Also []string `json:"also,omitempty"`
}

// Error makes a Problem usable with go-multierror.
func (p Problem) Error() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Message + " (at " + p.Path + ")"
}

// Layout is one checksum layout numascope computed for a file: a way some
// kubelet release renders its structs before hashing.
type Layout struct {
	Name     string `json:"name"`     // e.g. "v2", "v4-data", "spew-v1-without-resource-handles"
	Stored   uint64 `json:"stored"`   // the stored value this layout is compared with
	Computed uint64 `json:"computed"` // what this layout computes for the file's content
	Matched  bool   `json:"matched"`  // Stored == Computed
	Era      string `json:"era"`      // which kubelets write (or accept) this layout
}

// ChecksumReport tells whether the stored checksum is valid and which kubelet
// era wrote it.
type ChecksumReport struct {
	// Stored is the checksum the newest kubelet verifies (dataChecksum for
	// cpu v4 and memory v3).
	Stored uint64 `json:"stored"`
	// Valid is true when the kubelet's verification of this format passes
	// (including a zero checksum it does not check): the newest kubelet's,
	// or that of the release Options.KubeletVersion names.
	Valid bool `json:"valid"`
	// Layouts lists every layout tried, with its computed value.
	Layouts []Layout `json:"layouts"`
	// Matched names the first layout whose value equals the stored one ("" if none).
	Matched string `json:"matched,omitempty"`
	// Era says which kubelets write the matched layout.
	Era string `json:"era,omitempty"`
	// ZeroSkipped is true when the stored checksum is 0 and the kubelet skips
	// verification: for this format, or (cpu v3, memory v2, where Valid is
	// false) in its fallback to the older reader, which drops podEntries.
	ZeroSkipped bool `json:"zeroSkipped,omitempty"`
}

// File is a decoded and verified kubelet checkpoint.
type File struct {
	Name     string         `json:"file"`
	Kind     Kind           `json:"kind"`
	Format   Format         `json:"format"`
	Checksum ChecksumReport `json:"checksum"`
	// KubeletAccepts is what kubelet v1.37.2's restore path decides for this
	// file under the configured (or the file's own) policy.
	KubeletAccepts bool `json:"kubeletAccepts"`
	// OnReject is RefusesToStart or DiscardsData when !KubeletAccepts, else "".
	OnReject string `json:"onReject"`
	// Reason is the kubelet's own error text when it rejects the file.
	Reason string `json:"reason,omitempty"`
	// Problems lists everything wrong with the file, worst first.
	Problems []Problem `json:"problems"`

	// What the kubelet would hold in memory after restore (for cpu v4 and
	// memory v3 the data section). For a file the kubelet refuses (see
	// KubeletAccepts), what the file records, as the kubelet's reader of
	// its format reads it. Only the field of Kind is set.
	CPU    *CPUState    `json:"cpu,omitempty"`
	Memory *MemoryState `json:"memory,omitempty"`
	Device *DeviceState `json:"device,omitempty"`
	DRA    *DRAState    `json:"dra,omitempty"`
}

// Err returns every problem of severity error as one go-multierror error
// (nil when there is none).
func (f *File) Err() error {
	var result *multierror.Error
	for _, p := range f.Problems {
		if p.Severity == SeverityError {
			result = multierror.Append(result, fmt.Errorf("%s: %w", f.Name, p))
		}
	}
	return result.ErrorOrNil()
}

// ErrTooLarge, ErrTooDeep, ErrNotJSON and ErrUnknownKind classify the errors
// of Decode; test them with errors.Is.
var (
	ErrTooLarge    = errors.New("input larger than the size limit")
	ErrTooDeep     = errors.New("JSON nested deeper than the limit")
	ErrNotJSON     = errors.New("not valid JSON")
	ErrUnknownKind = errors.New("not a known kubelet checkpoint")
)

// Decode detects, decodes and verifies a kubelet checkpoint. It returns an
// error only when nothing can be decoded (too large, too deep, not JSON,
// unknown kind); everything else is reported in File.Problems and the
// kubelet's verdict. It never panics.
func Decode(data []byte, opts Options) (f *File, err error) {
	return decode(data, opts, true)
}

// decode is Decode; without fast it always takes the exact path (for the
// tests that hold the fast path to it).
func decode(data []byte, opts Options, fast bool) (f *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%s: internal error while decoding (please report it): %v", opts.Name, r)
		}
	}()
	if _, err := parseKubeletVersion(opts.KubeletVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Name, err)
	}
	limit := opts.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes > %d); kubelet checkpoints are far smaller, check that this is the right file or raise Options.MaxSize", opts.Name, ErrTooLarge, len(data), limit)
	}
	kind := opts.Kind
	// the fast path reads the files the kubelet writes today; it also
	// checks their syntax and kind as the lines after it do
	var fastCPU *cpuRestore
	var fastMem *memRestore
	if fast {
		fastCPU, fastMem = fastRestore(data, kind)
		// the schema walk at the end reads the fast path's buffer
		defer func() {
			switch {
			case fastCPU != nil && fastCPU.done != nil:
				fastCPU.done()
			case fastMem != nil && fastMem.done != nil:
				fastMem.done()
			}
		}()
	}
	switch {
	case fastCPU != nil:
		kind = KindCPU
	case fastMem != nil:
		kind = KindMemory
	default:
		if err := checkSyntax(data); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.Name, err)
		}
		if kind == "" {
			kind, err = detectKind(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", opts.Name, err)
			}
		}
	}
	f = &File{Name: opts.Name, Kind: kind, Problems: []Problem{}}
	c := &checker{File: f}
	switch kind {
	case KindCPU:
		decodeCPU(c, data, opts, fastCPU)
	case KindMemory:
		decodeMemory(c, data, opts, fastMem)
	case KindDevice:
		decodeDevice(c, data, opts)
	case KindDRA:
		decodeDRA(c, data, opts)
	default:
		return nil, fmt.Errorf("%s: %w: kind %q (use cpu, memory, device or dra)", opts.Name, ErrUnknownKind, kind)
	}
	if !f.KubeletAccepts {
		switch kind {
		case KindDevice:
			f.OnReject = DiscardsData
		default:
			f.OnReject = RefusesToStart
		}
	}
	if err := c.applyRelease(data, opts); err != nil {
		return nil, err
	}
	var hint *schemaHint
	switch {
	case fastCPU != nil:
		hint = fastCPU.hint
	case fastMem != nil:
		hint = fastMem.hint
	}
	c.addSchemaProblems(data, hint)
	c.countUnlisted()
	sortProblems(f.Problems)
	return f, nil
}

// fastRestore runs the fast path for a cpu or memory file (or one of no
// given kind); nil, nil when the file needs the exact path.
func fastRestore(data []byte, kind Kind) (*cpuRestore, *memRestore) {
	detect := kind == ""
	order := [2]Kind{KindCPU, KindMemory}
	if kind == KindMemory || detect && bytes.Contains(data, []byte(`"machineState"`)) {
		order = [2]Kind{KindMemory, KindCPU}
	}
	for _, k := range order {
		switch {
		case !detect && k != kind:
		case k == KindMemory:
			if r, ok := fastRestoreMemory(data, detect); ok {
				return nil, &r
			}
			if r, ok := fastRestoreMemorySpew(data, detect); ok {
				return nil, &r
			}
		default:
			if r, ok := fastRestoreCPU(data, detect); ok {
				return &r, nil
			}
			if r, ok := fastRestoreCPUSpew(data, detect); ok {
				return &r, nil
			}
		}
	}
	return nil, nil
}

// checkSyntax validates JSON syntax and nesting depth with encoding/json's
// rules and limits.
func checkSyntax(data []byte) error {
	depth, max := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		}
	}
	if max > MaxDepth {
		return fmt.Errorf("%w (%d levels > %d); the kubelet refuses it too: this is not a checkpoint it wrote", ErrTooDeep, max, MaxDepth)
	}
	if !json.Valid(data) {
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineColumn(data, se.Offset)
			return fmt.Errorf("%w: %w at line %d, column %d (byte offset %d); if this is the node's own file and not a copy, the kubelet cannot read it either (restore it from a backup, or drain the node and delete it: the kubelet writes a new one); if it is a copy, copy the file again unchanged", ErrNotJSON, se, line, col, se.Offset)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return fmt.Errorf("%w: the file is empty; if this is the node's own file and not a copy, the kubelet cannot read it either (drain the node and delete it: the kubelet writes a new one); if it is a copy, copy the file again", ErrNotJSON)
		}
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%w: the top level is not a JSON object, and every kubelet checkpoint is one", ErrUnknownKind)
	}
	return nil
}

// detectKind looks at the top-level keys the way encoding/json matches them
// (case-insensitively) and picks the checkpoint kind.
func detectKind(data []byte) (Kind, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnknownKind, err)
	}
	get := func(name string) (json.RawMessage, bool) {
		var val json.RawMessage
		found := false
		for k, v := range top {
			if strings.EqualFold(k, name) {
				if !found || k == name {
					val, found = v, true
				}
			}
		}
		return val, found
	}
	firstByte := func(r json.RawMessage) byte {
		r = bytes.TrimSpace(r)
		if len(r) == 0 {
			return 0
		}
		return r[0]
	}
	if _, ok := get("machineState"); ok {
		return KindMemory, nil
	}
	if _, ok := get("defaultCpuSet"); ok {
		return KindCPU, nil
	}
	if d, ok := get("Data"); ok {
		switch firstByte(d) {
		case '{':
			return KindDevice, nil
		case '"':
			_, hasDC := get("dataChecksum")
			p, hasPolicy := get("policyName")
			if hasDC || hasPolicy {
				// a cpu v4 or memory v3 file without machineState/defaultCpuSet
				if hasPolicy && looksMemoryPolicy(p) {
					return KindMemory, nil
				}
				return KindCPU, nil
			}
			return KindDRA, nil
		}
	}
	if p, ok := get("policyName"); ok {
		if looksMemoryPolicy(p) {
			return KindMemory, nil
		}
		return KindCPU, nil
	}
	if e, ok := get("entries"); ok && firstByte(e) == '[' {
		return KindDRA, nil
	}
	if _, ok := get("version"); ok {
		return KindDRA, nil
	}
	if _, ok := get("Checksum"); ok {
		return KindDRA, nil
	}
	return "", fmt.Errorf("%w: none of the keys machineState, defaultCpuSet, policyName, Data or version is present; if you know which kubelet file it is, name its kind (cpu, memory, device or dra: Options.Kind, or --kind in inspect)", ErrUnknownKind)
}

func looksMemoryPolicy(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return s == "Static" || s == "None"
}

// sortProblems orders problems worst first and keeps the order they were
// found in within a severity; every check walks maps in sorted key order, so
// the same file always lists its problems in the same order.
func sortProblems(ps []Problem) {
	rank := func(s Severity) int {
		switch s {
		case SeverityError:
			return 0
		case SeverityWarning:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ps, func(a, b Problem) int { return cmp.Compare(rank(a.Severity), rank(b.Severity)) })
}

// lineColumn turns the byte offset of a JSON syntax error (the offset
// encoding/json reports: the bytes read before the error, so the bad byte is
// the one before it) into a 1-based line and column, for an editor to mark.
func lineColumn(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	at := int(offset) - 1
	if at < 0 {
		at = 0
	}
	line, start := 1, 0
	for i := 0; i < at; i++ {
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, at - start + 1
}
