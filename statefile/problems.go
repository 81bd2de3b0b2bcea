package statefile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/jsonptr"
	"k8s.io/utils/cpuset"
)

// maxNameBytes is the longest name of a file (a pod UID, a container, a
// memory resource, a device) that a problem quotes whole: longer than any
// name Kubernetes allows there (a qualified resource name is at most
// 253 + 1 + 63 bytes). A longer one is cut to its first cutNameBytes
// bytes, so that what a problem holds does not grow with the file: a
// 64 KiB pod key, written four times by each of 5,000 problems, made
// inspect use 2.3 GB.
const (
	maxNameBytes = 320
	cutNameBytes = 32
)

// maxOfAKind is how many problems of one kind (one message template) a
// file lists; the rest are counted in one more problem of that kind. It
// is the bound of the schema problems too (maxSchemaProblems), far above
// what a file a kubelet wrote can have of one kind (a node has at most a
// few hundred containers with exclusive resources, and problems of every
// container at once come from a file that was not a kubelet's).
const maxOfAKind = 50

// cutSuffix is what follows the first bytes of a cut name or text: "…",
// then its size.
func cutSuffix(size int, unit string) string {
	return "… (" + strconv.Itoa(size) + " " + unit + ")"
}

// prefixOf is s cut to at most n bytes, at the start of a character.
func prefixOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// quoteCut quotes s as %q does; when s is longer than limit, it quotes
// its first keep bytes with "…" before the closing quote and adds its
// length: "aaaa…" (131072 bytes).
func quoteCut(s string, limit, keep int) string {
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	q := strconv.Quote(prefixOf(s, keep))
	return q[:len(q)-1] + `…" (` + strconv.Itoa(len(s)) + " bytes)"
}

// quoteName is a name for a message, quoted as %q quotes it; a name
// longer than maxNameBytes is cut: "aaaa…" (131072 bytes).
func quoteName(s string) string { return quoteCut(s, maxNameBytes, cutNameBytes) }

// nameText is a name for a message where %s writes it bare; a name
// longer than maxNameBytes is cut and quoted as quoteName cuts it.
func nameText(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	return quoteName(s)
}

// qname is a name as an argument of a problem: quoted and cut as
// quoteName writes it, only when the problem is listed.
type qname string

func (n qname) String() string { return quoteName(string(n)) }

// qshort is a cpuset as an argument of a problem: quoted and cut as
// quoteShort writes it, only when the problem is listed.
type qshort string

func (s qshort) String() string { return quoteShort(string(s)) }

// bname is a name as an argument of a problem where it is written bare:
// cut as nameText writes it, only when the problem is listed.
type bname string

func (n bname) String() string { return nameText(string(n)) }

// nameToken is a name as a token of a JSON pointer (unescaped); a name
// longer than maxNameBytes is cut to its first bytes, "…" and its length:
// aaaa… (131072 bytes). CutToken reads that back.
func nameToken(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	return prefixOf(s, cutNameBytes) + cutSuffix(len(s), "bytes")
}

// CutToken reports whether a token of a Problem's Path or Also (unescaped,
// as a JSON pointer is split) stands for a name too long to be written
// whole, and which: every problem writes a name longer than 320 bytes as
// its first bytes, "…" and its length in bytes (for a key of 131072 bytes
// starting with "aaaa", the token aaaa… (131072 bytes); a message quotes
// the first bytes: "aaaa…" (131072 bytes)). A key of the file matches the
// token when it
// has that length and starts with prefix (in a schema problem, whose
// pointer escapes its names as a URL path does, prefix is escaped so). A
// short key that reads like a cut one ("a… (999 bytes)") is told apart by
// its length: only names longer than 320 bytes are cut.
func CutToken(token string) (prefix string, size int, ok bool) {
	rest, found := strings.CutSuffix(token, " bytes)")
	if !found {
		return "", 0, false
	}
	i := strings.LastIndex(rest, "… (")
	if i < 0 || i > 3*cutNameBytes { // "%XX" for each byte of an escaped prefix
		return "", 0, false
	}
	n, err := strconv.Atoi(rest[i+len("… ("):])
	if err != nil || n <= maxNameBytes || strconv.Itoa(n) != rest[i+len("… ("):] {
		return "", 0, false
	}
	return rest[:i], n, true
}

// Pointer is the JSON pointer a Problem writes for a path of keys: each
// key escaped, one longer than 320 bytes cut to its first bytes, "…" and
// its length (see CutToken). Callers that point into a decoded file with
// problems of their own use it, so their references match the problems'
// and a hostile key is not copied whole into each.
func Pointer(tokens ...string) string { return pointer(tokens...) }

// NameText is a key of a file as a message writes it bare: a key longer
// than 320 bytes is cut and quoted ("aaaa…" (131072 bytes)).
func NameText(s string) string { return nameText(s) }

// pointer builds a JSON pointer from path tokens; a token longer than
// maxNameBytes is cut (nameToken).
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonptr.Escape(nameToken(t)))
	}
	return b.String()
}

// checker is a File while Decode checks it: its problems are kept to
// maxOfAKind of each kind, and the rest are counted.
type checker struct {
	*File
	kinds map[string]*problemKind
}

// problemKind counts the problems of one message template.
type problemKind struct {
	format string
	listed int
	last   int // the index in Problems of the last one listed
	more   int // those not listed
}

// problem adds a problem to the file; the message is format with args
// after the file's name. It reports whether the problem is listed: past
// maxOfAKind problems of the same format it is only counted, and its
// message is not written (so args that are costly to print cost nothing).
func (c *checker) problem(sev Severity, path, remedy, format string, args ...any) bool {
	if c.kinds == nil {
		c.kinds = map[string]*problemKind{}
	}
	k := c.kinds[format]
	if k == nil {
		k = &problemKind{format: format}
		c.kinds[format] = k
	}
	if k.listed >= maxOfAKind {
		k.more++
		return false
	}
	k.listed++
	k.last = len(c.Problems)
	c.Problems = append(c.Problems, Problem{
		Path:     path,
		Message:  c.Name + ": " + fmt.Sprintf(format, args...),
		Remedy:   remedy,
		Severity: sev,
	})
	return true
}

// countUnlisted adds, after the last problem listed of each kind that had
// more, one problem of the same severity that counts the others.
func (c *checker) countUnlisted() {
	after := map[int]*problemKind{}
	for _, k := range c.kinds {
		if k.more > 0 {
			after[k.last] = k
		}
	}
	if len(after) == 0 {
		return
	}
	out := make([]Problem, 0, len(c.Problems)+len(after))
	for i, p := range c.Problems {
		out = append(out, p)
		if k := after[i]; k != nil {
			out = append(out, Problem{
				Message:  fmt.Sprintf("%s: %d more problems like %q are not listed (the first %d are)", c.Name, k.more, templateText(k.format), k.listed),
				Remedy:   "fix the ones listed and check the file again",
				Severity: p.Severity,
			})
		}
	}
	c.Problems = out
}

// templateText is a message template with each of its verbs written "…":
// what every problem of the kind says.
func templateText(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		// flags, width, precision, argument indexes, then the verb
		for i+1 < len(format) && strings.IndexByte("+-# 0123456789.[]*", format[i+1]) >= 0 {
			i++
		}
		i++
		b.WriteString("…")
	}
	return b.String()
}

// lazyText is an argument of a problem whose text is only made when the
// problem is listed.
type lazyText func() string

func (l lazyText) String() string { return l() }

// setShort writes a cpuset for a message: whole up to 80 bytes, then its
// first bytes, "…" and its size ("0,2,4,6,…" (524288 CPUs)).
func setShort(s cpuset.CPUSet) string {
	t := s.String()
	if len(t) <= 80 {
		return t
	}
	return strconv.Quote(prefixOf(t, 72)+"…") + " (" + strconv.Itoa(s.Size()) + " CPUs)"
}

// groupText writes a list of NUMA node ids for a message as %v writes it
// ([0 1]); a list of more than 64 ids is cut to its first 16, "…" and its
// length: [0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 …] (65536 ids).
type groupText []int

func (g groupText) String() string {
	if len(g) <= 64 {
		return fmt.Sprint([]int(g))
	}
	s := fmt.Sprint([]int(g[:16]))
	return s[:len(s)-1] + " …] (" + strconv.Itoa(len(g)) + " ids)"
}
