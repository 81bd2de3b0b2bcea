package statefile

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileShape is a checkpoint made to multiply what its problems copy or
// what its checks compare: a long key with many members under it, each a
// problem that names the key, many problems of one kind, a long list. The
// template is expanded by expandHostile.
type hostileShape struct {
	name     string
	kind     Kind
	template string
	key      int // the length of @K; 0 is half of the file
}

var hostileShapes = []hostileShape{
	{"cpu: containers of a long pod key share a CPU", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0","entries":{"@K":{"c0":"1"@[,"c@i":"1"@]}},"checksum":0}`, 0},
	{"cpu: containers of a long pod key with bad cpusets", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0","entries":{"@K":{"c0":"x"@[,"c@i":"x"@]}},"checksum":0}`, 0},
	{"cpu: containers of a long pod key in the shared pool", KindCPU,
		`{"policyName":"static","defaultCpuSet":"1","entries":{"@K":{"c0":"1"@[,"c@i":"1"@]}},"checksum":0}`, 0},
	{"cpu: containers of a long pod key off the schema", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0","entries":{"@K":{"c0":5@[,"c@i":5@]}},"checksum":0}`, 0},
	{"cpu: a wide first set and many sets inside it", KindCPU,
		`{"policyName":"static","defaultCpuSet":"","entries":{"@K":{"c0":"0-524287"@[,"c@i":"0"@]}},"checksum":0}`, 0},
	{"cpu: a long shared pool that a container holds too", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0@[,@i0@]","entries":{"p":{"c":"0@[,@i0@]"}},"checksum":0}`, 1},
	{"cpu v4: containers of a long pod key share a CPU", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0","entries":{},"checksum":0,"data":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0\",\"entries\":{\"@K\":{\"c0\":\"1\"@[,\"c@i\":\"1\"@]}}}","dataChecksum":0}`, 0},
	{"cpu: many pods with long keys and bad pod-level sets", KindCPU,
		`{"policyName":"static","defaultCpuSet":"0","entries":{},"podEntries":{"0@K":{"cpuSet":"x"}@[,"@i@K":{"cpuSet":"x"}@]},"checksum":0}`, 2000},
	{"memory: containers of a long pod key off the schema", KindMemory,
		`{"policyName":"Static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":0,"allocatable":2048,"reserved":0,"free":2048}},"cells":[0]}},"entries":{"@K":{"c0":[]@[,"c@i":[{"numaAffinity":"x","type":"memory","size":1}]@]}},"checksum":0}`, 0},
	{"memory: many NUMA nodes with wrong tables under a long resource name", KindMemory,
		`{"policyName":"None","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{},"cells":[0]}@[,"@i":{"numberOfAssignments":0,"memoryMap":{"@K":{"total":1,"systemReserved":2,"allocatable":3,"reserved":4,"free":5}},"cells":[@i]}@]},"checksum":0}`, 513},
	{"memory: a group that names one node over and over", KindMemory,
		`{"policyName":"None","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":1,"systemReserved":0,"allocatable":1,"reserved":0,"free":1}},"cells":[0@[,0@]]}},"checksum":0}`, 1},
	{"memory: a group that names many missing nodes", KindMemory,
		`{"policyName":"None","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":1,"systemReserved":0,"allocatable":1,"reserved":0,"free":1}},"cells":[0@[,@i@]]}},"checksum":0}`, 1},
	{"device: many entries of an unregistered resource with a long name", KindDevice,
		`{"Data":{"PodDeviceEntries":[{"PodUID":"p","ContainerName":"c","ResourceName":"@K","DeviceIDs":{"-2":["d"]},"AllocResp":"x"}@[,{"PodUID":"p@i","ContainerName":"c","ResourceName":"@K","DeviceIDs":{"-2":["d"]},"AllocResp":"x"}@]],"RegisteredDevices":{"other":["d"]}},"Checksum":1}`, 4096},
}

// expandHostile writes a file from a template: "@K" is a key of keyLen
// bytes, each "@[...@]" section is written n times, its "@i" the
// repeat's number (from 1). n is lowered so that the file stays near size;
// nil when the template is larger than size without its sections.
func expandHostile(template string, keyLen, n, size int) []byte {
	type section struct{ before, body string }
	var parts []section
	rest := template
	for {
		i := strings.Index(rest, "@[")
		j := strings.Index(rest, "@]")
		if i < 0 || j < i {
			break
		}
		parts = append(parts, section{rest[:i], rest[i+2 : j]})
		rest = rest[j+2:]
	}
	// fill writes s with its "@K" and "@i" replaced, in one pass (into
	// nothing when b is nil) and returns its length: no text larger
	// than size is ever made
	key := strings.Repeat("a", min(keyLen, size))
	fill := func(b *strings.Builder, s string, i int) int {
		l := 0
		for len(s) > 0 {
			switch {
			case strings.HasPrefix(s, "@K"):
				l += keyLen
				if b != nil {
					b.WriteString(key)
				}
				s = s[2:]
			case strings.HasPrefix(s, "@i"):
				num := strconv.Itoa(i)
				l += len(num)
				if b != nil {
					b.WriteString(num)
				}
				s = s[2:]
			default:
				l++
				if b != nil {
					b.WriteByte(s[0])
				}
				s = s[1:]
			}
		}
		return l
	}
	fixed := fill(nil, rest, 0)
	for _, p := range parts {
		fixed += fill(nil, p.before, 0)
	}
	if keyLen > size || fixed > size {
		return nil
	}
	// the length of one repeat of every section, its number written i
	per := func(i int) int {
		l := 0
		for _, p := range parts {
			l += fill(nil, p.body, i)
		}
		return max(l, 1)
	}
	if len(parts) > 0 {
		most := max(0, (size-fixed)/per(1))
		n = min(n, max(0, (size-fixed)/per(most)))
	}
	var b strings.Builder
	b.Grow(size + 64)
	for _, p := range parts {
		fill(&b, p.before, 0)
		for i := 1; i <= n; i++ {
			fill(&b, p.body, i)
		}
	}
	fill(&b, rest, 0)
	return []byte(b.String())
}

// hostileBudget is what decoding one hostile file may take: the bound of
// every hostile input (10 s, 512 MiB). Before problems cut long names and
// were capped, a 128 KiB file of the first shape allocated 5.8 GB in
// 24 s, and one of "a group that names one node over and over" 65 GB.
var hostileBudget = fuzzbudget.Budget{Time: 10 * time.Second, Alloc: 512 << 20}

// checkBoundedProblems checks what a decoded file's problems hold: at most
// maxOfAKind of a kind (then one that counts the rest), short pointers, and
// messages that repeat no more than the kubelet's own reason of the input.
func checkBoundedProblems(t *testing.T, f *File) {
	t.Helper()
	kinds := map[string]int{}
	for _, p := range f.Problems {
		require.LessOrEqual(t, len(p.Message), 2048+len(f.Reason), "a message: %.300s", p.Message)
		require.LessOrEqual(t, len(p.Path), 1024, "a pointer: %.300s", p.Path)
		for _, a := range p.Also {
			require.LessOrEqual(t, len(a), 1024, "a pointer: %.300s", a)
		}
		kinds[problemKindOf(p.Message)]++
	}
	for k, n := range kinds {
		require.LessOrEqual(t, n, maxOfAKind+1, "problems of one kind: %.300s", k)
	}
}

// TestHostileProblemsBounded decodes each hostile shape at 128 KiB and
// 4 MiB within the budget of every hostile input, with bounded problems.
func TestHostileProblemsBounded(t *testing.T) {
	for _, h := range hostileShapes {
		for _, size := range []int{128 << 10, 4 << 20} {
			t.Run(fmt.Sprintf("%s/%d KiB", h.name, size>>10), func(t *testing.T) {
				key := h.key
				if key == 0 {
					key = size / 2
				}
				data := expandHostile(h.template, key, size, size)
				require.InDelta(t, size, len(data), float64(size)/4, "the file is about the size asked for")
				var f *File
				var err error
				fuzzbudget.RunWith(t, hostileBudget, func() {
					f, err = Decode(data, Options{Name: "hostile.json"})
				})
				require.NoError(t, err)
				assert.Equal(t, h.kind, f.Kind)
				checkBoundedProblems(t, f)
				assert.LessOrEqual(t, len(f.Problems), 8*(maxOfAKind+1), "problems of the file")
			})
		}
	}
}

// FuzzHostileShapes expands a template (see expandHostile) into a file of
// up to 1 MiB with a key as long, and holds its decoding to the budget of
// every hostile input and its problems to their bounds: the fuzzer looks
// for a shape where a check or a problem grows faster than the file (the
// shapes above cost the old code their budget at 128 KiB already). It is
// not larger, so that the fuzzer runs it often: a file of 400,000
// containers with bad cpusets allocates about 150 bytes per byte in all,
// linear, but a budget's worth at 4 MiB.
func FuzzHostileShapes(f *testing.F) {
	for _, h := range hostileShapes {
		f.Add(h.template, uint32(min(max(h.key, 4096), 1<<19)), uint32(1<<20))
	}
	f.Fuzz(func(t *testing.T, template string, keyLen, n uint32) {
		if len(template) > 4096 {
			return
		}
		data := expandHostile(template, int(keyLen%(1<<20+1)), int(n%(1<<22)), 1<<20)
		if data == nil {
			return
		}
		fuzzbudget.RunWith(t, hostileBudget, func() {
			file, err := Decode(data, Options{Name: "hostile.json"})
			if err != nil {
				return
			}
			checkBoundedProblems(t, file)
		})
	})
}

// problemKindOf is a problem's message without its numbers and quoted
// text: problems of one kind (one message template) give the same.
func problemKindOf(msg string) string {
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && inQuote:
			i++
		case inQuote, c >= '0' && c <= '9':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
