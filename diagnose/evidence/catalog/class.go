package catalog

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/numascope/numascope/statefile"
)

// ClassKind says what numascope makes of a catalogue entry.
type ClassKind string

// The kinds of classes.
const (
	// ClassFinding: the entry is a problem by itself; Class.Code names it.
	ClassFinding ClassKind = "finding"
	// ClassFact: the entry is evidence for other findings (an admission
	// attempt, a hint, a policy, the machine); Class.Fact names what it yields.
	ClassFact ClassKind = "fact"
	// ClassNotDiagnostic: the entry tells a node engineer nothing about a
	// problem; Class.Reason says why.
	ClassNotDiagnostic ClassKind = "not-diagnostic"
)

// Class is the classification of one catalogue entry, as the table
// classes.jsonl records it.
type Class struct {
	// ID is the entry's Entry.ID.
	ID   string    `json:"id"`
	Kind ClassKind `json:"class"`
	// Code, Severity and Cause are set for a finding: the finding code
	// (one of Codes), how serious it is, and a slug naming the cause
	// ("cpus-exhausted", "checkpoint-corrupt", "unknown-flag", ...).
	Code     string             `json:"code,omitempty"`
	Severity statefile.Severity `json:"severity,omitempty"`
	Cause    string             `json:"cause,omitempty"`
	// Args names the verbs of the entry's format by position ("" for a
	// verb with no name), for the templates' placeholders.
	Args []string `json:"args,omitempty"`
	// RemedyTemplate says what to do and Means what the kubelet did and
	// why, from its code. Both are templates: {name} is the capture that
	// Args names, the verb at that position ({0}, {1}, ...) or the
	// structured field with that key; {name|words} says what to print when
	// the evidence does not carry the value. Remedy and Explain fill them.
	RemedyTemplate string `json:"remedy,omitempty"`
	Means          string `json:"means,omitempty"`
	// Fact is set for a fact: what it yields (one of Facts).
	Fact string `json:"fact,omitempty"`
	// Reason is set for an entry that is not diagnostic: why a node
	// engineer need not see it.
	Reason string `json:"reason,omitempty"`
	// Reviewed is the kubelet release whose source of the entry's call
	// sites was read to write the row ("1.37"); empty for a row drafted
	// from the entry's manager, level and call alone.
	Reviewed string `json:"reviewed,omitempty"`
	// Format repeats the entry's format, so the table reads on its own.
	Format string `json:"format"`
}

// Code is one finding code the table uses.
type Code struct {
	Name string `json:"code"`
	// Diagnose is set for a code package diagnose already reports; the
	// others are families the table defines.
	Diagnose bool `json:"diagnose,omitempty"`
	// Generic is set for a code that says only that something failed
	// (KubeletError, KubeletStartFailed): along a chain of wrapped errors,
	// a specific code explains the failure better (see Resolve).
	Generic bool   `json:"generic,omitempty"`
	Means   string `json:"means"`
}

// Fact is one kind of evidence that fact entries yield.
type Fact struct {
	Name  string `json:"fact"`
	Means string `json:"means"`
}

// Placeholder is a name the templates use and the words printed when the
// evidence does not carry its value.
type Placeholder struct {
	Name    string `json:"placeholder"`
	Missing string `json:"missing"`
}

// ClassesHeader is the first line of the classification table.
type ClassesHeader struct {
	Classes string `json:"classes"` // "kubelet"
	Schema  int    `json:"schema"`
	Rows    int    `json:"rows"`
}

// classesSchema is the version of the table's layout that this package reads.
const classesSchema = 1

//go:embed classes.jsonl
var classesData []byte

type classTable struct {
	codes        []Code
	facts        []Fact
	placeholders []Placeholder
	rows         []Class
	byID         map[string]*Class
	codeByName   map[string]*Code
	missing      map[string]string
}

var loadedClasses = sync.OnceValues(func() (*classTable, error) {
	t, err := decodeClasses(bytes.NewReader(classesData))
	if err != nil {
		return &classTable{byID: map[string]*Class{}, codeByName: map[string]*Code{}, missing: map[string]string{}}, err
	}
	return t, nil
})

// ClassesErr reports whether the embedded classification table could be
// read; when it cannot, Classify finds nothing.
func ClassesErr() error {
	_, err := loadedClasses()
	return err
}

// Classify returns the class of the catalogue entry with an ID.
func Classify(id string) (Class, bool) {
	t, _ := loadedClasses()
	c, ok := t.byID[id]
	if !ok {
		return Class{}, false
	}
	return *c, true
}

// Classes returns every row of the classification table, sorted by ID.
func Classes() []Class {
	t, _ := loadedClasses()
	return append([]Class(nil), t.rows...)
}

// Codes returns the finding codes the table uses, sorted by name.
func Codes() []Code {
	t, _ := loadedClasses()
	return append([]Code(nil), t.codes...)
}

// Facts returns the facts the table's fact rows yield, sorted by name.
func Facts() []Fact {
	t, _ := loadedClasses()
	return append([]Fact(nil), t.facts...)
}

// Placeholders returns the placeholder names with the words printed when
// a value is missing, sorted by name.
func Placeholders() []Placeholder {
	t, _ := loadedClasses()
	return append([]Placeholder(nil), t.placeholders...)
}

// Remedy renders the class's remedy for a hit: the placeholders are filled
// from the hit of the chain (h.Chain) whose entry is the class's, then from
// the other hits of the chain, outermost first; a value the evidence does
// not carry is said in words ("the checkpoint file"). Values are printed
// on one line and cut at 200 bytes.
func (c *Class) Remedy(h Hit) string { return c.render(c.RemedyTemplate, &h) }

// Explain renders the class's Means for a hit, as Remedy does.
func (c *Class) Explain(h Hit) string { return c.render(c.Means, &h) }

// Resolve returns the class that explains a hit and the hit of its chain
// (Hit.Chain) that carries it: the innermost hit classified as a finding
// of a specific (not Generic) code; else the innermost finding of the
// chain's highest severity; else the outermost classified hit. A finding
// gets the highest severity of the chain's findings, so a warning-level
// error that a start-up failure wraps is an error. ok is false when no
// hit of the chain is classified.
func Resolve(h *Hit) (c Class, at *Hit, ok bool) {
	if h == nil {
		return Class{}, nil, false
	}
	t, _ := loadedClasses()
	chain := h.Chain()
	var first, specific, worst *Hit
	var firstC, specificC, worstC *Class
	top := statefile.Severity("")
	for _, x := range chain {
		if x.Entry == nil {
			continue
		}
		cl := t.byID[x.Entry.ID]
		if cl == nil {
			continue
		}
		if first == nil {
			first, firstC = x, cl
		}
		if cl.Kind != ClassFinding {
			continue
		}
		if r := severityRank(cl.Severity); worst == nil || r <= severityRank(top) {
			top, worst, worstC = cl.Severity, x, cl
		}
		if code := t.codeByName[cl.Code]; code != nil && !code.Generic {
			specific, specificC = x, cl
		}
	}
	switch {
	case specific != nil:
		c, at = *specificC, specific
	case worst != nil:
		c, at = *worstC, worst
	case first != nil:
		return *firstC, first, true
	default:
		return Class{}, nil, false
	}
	c.Severity = top
	return c, at, true
}

func severityRank(s statefile.Severity) int {
	switch s {
	case statefile.SeverityError:
		return 0
	case statefile.SeverityWarning:
		return 1
	case statefile.SeverityInfo:
		return 2
	}
	return 3
}

// maxValue bounds one value printed into a template.
const maxValue = 200

// render fills a template from the chain of h.
func (c *Class) render(tmpl string, h *Hit) string {
	t, _ := loadedClasses()
	chain := h.Chain()
	own, ownArgs := ownHit(chain, c)
	lookup := func(name string) string {
		if own >= 0 {
			if v := value(chain[own], ownArgs, name); v != "" {
				return v
			}
		}
		for i, x := range chain {
			if i == own || x.Entry == nil {
				continue
			}
			var args []string
			if cl := t.byID[x.Entry.ID]; cl != nil {
				args = cl.Args
			}
			if v := value(x, args, name); v != "" {
				return v
			}
		}
		return ""
	}
	var b strings.Builder
	forEachPart(tmpl, func(p part) {
		if !p.isName {
			b.WriteString(p.lit)
			return
		}
		if v := lookup(p.name); v != "" {
			b.WriteString(v)
			return
		}
		switch {
		case p.hasMissing:
			b.WriteString(p.missing)
		case t.missing[p.name] != "":
			b.WriteString(t.missing[p.name])
		default:
			b.WriteString(inWords(p.name))
		}
	})
	return tidy(b.String())
}

// tidy closes the gaps a placeholder that renders as nothing leaves: runs
// of spaces, and a space before a punctuation mark that ends a phrase.
func tidy(s string) string {
	if !strings.Contains(s, "  ") && !strings.Contains(s, " ,") && !strings.Contains(s, " .") &&
		!strings.Contains(s, " ;") && !strings.Contains(s, " :") && !strings.Contains(s, " )") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' && i+1 < len(s) && (s[i+1] == ' ' ||
			strings.IndexByte(",.;:)", s[i+1]) >= 0 && (i+2 == len(s) || s[i+2] == ' ')) {
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ownHit finds the hit of a chain whose entry is the class's: the hit's
// best entry, or one of the others that match the same text (Hit.Also),
// whose verbs the captures then stand for when it has as many. It returns
// -1 when the class's entry is not in the chain.
func ownHit(chain []*Hit, c *Class) (int, []string) {
	for i, x := range chain {
		if x.Entry == nil {
			continue
		}
		if x.Entry.ID == c.ID {
			return i, c.Args
		}
		for _, a := range x.Also {
			if a.ID == c.ID {
				if len(Verbs(a.Format)) == len(Verbs(x.Entry.Format)) {
					return i, c.Args
				}
				return i, nil
			}
		}
	}
	return -1, nil
}

// value returns the text of a name in one hit: the capture Args names, the
// capture at a verb position, or the field with that key; "" when the hit
// has none.
func value(h *Hit, args []string, name string) string {
	pos := -1
	if n, ok := position(name); ok {
		pos = n
	} else {
		for i, a := range args {
			if a == name {
				pos = i
				break
			}
		}
	}
	if pos >= 0 {
		for _, cp := range h.Captures {
			if cp.Index == pos {
				return clean(cp.Text)
			}
		}
		if _, ok := position(name); ok {
			return ""
		}
	}
	for _, f := range h.Fields {
		if f.Key == name {
			return clean(f.Value)
		}
	}
	return ""
}

func position(name string) (int, bool) {
	if name == "" || len(name) > 3 {
		return 0, false
	}
	n := 0
	for _, r := range name {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, true
}

// clean puts a value on one line, trims it and cuts it at maxValue bytes.
func clean(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > maxValue {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// inWords turns a placeholder name into words: "resourceName" is "the
// resource name".
func inWords(name string) string {
	var b strings.Builder
	b.WriteString("the ")
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && i > 0:
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isNameByte reports whether b may appear in a placeholder's name.
func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
}

// part is one piece of a template: literal text, or a placeholder with
// its words for a missing value ("{name|words}"; "{name|}" prints nothing).
type part struct {
	lit, name, missing string
	isName, hasMissing bool
}

// forEachPart splits a template into literal text and placeholders: a
// placeholder is "{name}" or "{name|words}"; any other brace is literal.
func forEachPart(tmpl string, f func(part)) {
	for len(tmpl) > 0 {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			f(part{lit: tmpl})
			return
		}
		j := i + 1
		for j < len(tmpl) && isNameByte(tmpl[j]) {
			j++
		}
		p := part{name: tmpl[i+1 : j], isName: true}
		end := -1
		if p.name != "" && j < len(tmpl) {
			switch tmpl[j] {
			case '}':
				end = j + 1
			case '|':
				if k := strings.IndexAny(tmpl[j+1:], "{}"); k >= 0 && tmpl[j+1+k] == '}' {
					p.missing, p.hasMissing = tmpl[j+1:j+1+k], true
					end = j + 1 + k + 1
				}
			}
		}
		if end < 0 {
			f(part{lit: tmpl[:i+1]})
			tmpl = tmpl[i+1:]
			continue
		}
		if i > 0 {
			f(part{lit: tmpl[:i]})
		}
		f(p)
		tmpl = tmpl[end:]
	}
}

// placeholders lists the placeholders a template uses.
func placeholders(tmpl string) []part {
	var out []part
	forEachPart(tmpl, func(p part) {
		if p.isName {
			out = append(out, p)
		}
	})
	return out
}

// decodeClasses reads the table: the header, then code, fact and
// placeholder lines, then one row per entry sorted by ID. It checks what
// holds without the catalogue: known classes, codes, facts and
// severities, the fields each class needs, and templates whose
// placeholders have words for a missing value.
func decodeClasses(r io.Reader) (*classTable, error) {
	t := &classTable{byID: map[string]*Class{}, codeByName: map[string]*Code{}, missing: map[string]string{}}
	facts := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	var h ClassesHeader
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			if err := strictUnmarshal(b, &h); err != nil {
				return nil, fmt.Errorf("classes line 1: the header: %w", err)
			}
			if h.Classes != "kubelet" || h.Schema != classesSchema {
				return nil, fmt.Errorf("classes line 1: table %q schema %d, this reader knows \"kubelet\" schema %d", h.Classes, h.Schema, classesSchema)
			}
			continue
		}
		var l struct {
			ID          string             `json:"id"`
			Kind        ClassKind          `json:"class"`
			Code        string             `json:"code"`
			Diagnose    bool               `json:"diagnose"`
			Generic     bool               `json:"generic"`
			Severity    statefile.Severity `json:"severity"`
			Cause       string             `json:"cause"`
			Args        []string           `json:"args"`
			Remedy      string             `json:"remedy"`
			Means       string             `json:"means"`
			Fact        string             `json:"fact"`
			Reason      string             `json:"reason"`
			Reviewed    string             `json:"reviewed"`
			Format      *string            `json:"format"`
			Placeholder string             `json:"placeholder"`
			Missing     string             `json:"missing"`
		}
		if err := strictUnmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("classes line %d: %w", line, err)
		}
		at := func(format string, a ...any) error {
			return fmt.Errorf("classes line %d: "+format, append([]any{line}, a...)...)
		}
		switch {
		case l.ID == "" && l.Placeholder != "":
			if l.Missing == "" {
				return nil, at("placeholder %q has no words for a missing value", l.Placeholder)
			}
			if _, dup := t.missing[l.Placeholder]; dup {
				return nil, at("placeholder %q is repeated", l.Placeholder)
			}
			t.missing[l.Placeholder] = l.Missing
			t.placeholders = append(t.placeholders, Placeholder{Name: l.Placeholder, Missing: l.Missing})
		case l.ID == "" && l.Fact != "":
			if l.Means == "" || facts[l.Fact] {
				return nil, at("fact %q is repeated or has no means", l.Fact)
			}
			facts[l.Fact] = true
			t.facts = append(t.facts, Fact{Name: l.Fact, Means: l.Means})
		case l.ID == "" && l.Code != "":
			if l.Means == "" || t.codeByName[l.Code] != nil {
				return nil, at("code %q is repeated or has no means", l.Code)
			}
			t.codes = append(t.codes, Code{Name: l.Code, Diagnose: l.Diagnose, Generic: l.Generic, Means: l.Means})
			t.codeByName[l.Code] = nil // the pointers are set below
		case l.ID != "":
			if len(t.rows) > 0 && t.rows[len(t.rows)-1].ID >= l.ID {
				return nil, at("row %s is out of order or repeated", l.ID)
			}
			if l.Format == nil {
				return nil, at("row %s has no format", l.ID)
			}
			c := Class{ID: l.ID, Kind: l.Kind, Code: l.Code, Severity: l.Severity, Cause: l.Cause, Args: l.Args,
				RemedyTemplate: l.Remedy, Means: l.Means, Fact: l.Fact, Reason: l.Reason, Reviewed: l.Reviewed, Format: *l.Format}
			if err := checkRow(&c, t.codeByName, facts); err != nil {
				return nil, at("row %s: %w", l.ID, err)
			}
			t.rows = append(t.rows, c)
		default:
			return nil, at("neither a row, a code, a fact nor a placeholder")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("classes line %d: %w", line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("classes: empty")
	}
	if h.Rows != len(t.rows) {
		return nil, fmt.Errorf("classes: the header counts %d rows, the table has %d", h.Rows, len(t.rows))
	}
	sort.Slice(t.codes, func(i, j int) bool { return t.codes[i].Name < t.codes[j].Name })
	sort.Slice(t.facts, func(i, j int) bool { return t.facts[i].Name < t.facts[j].Name })
	sort.Slice(t.placeholders, func(i, j int) bool { return t.placeholders[i].Name < t.placeholders[j].Name })
	for i := range t.codes {
		t.codeByName[t.codes[i].Name] = &t.codes[i]
	}
	for i := range t.rows {
		c := &t.rows[i]
		t.byID[c.ID] = c
		for _, tmpl := range []string{c.RemedyTemplate, c.Means} {
			for _, p := range placeholders(tmpl) {
				if !p.hasMissing && t.missing[p.name] == "" {
					return nil, fmt.Errorf("classes: row %s: placeholder {%s} has no words for a missing value: add a placeholder line or write {%s|words}", c.ID, p.name, p.name)
				}
			}
		}
	}
	return t, nil
}

// checkRow checks the fields a row's class needs; codes holds the codes
// declared so far (they come before the rows).
func checkRow(c *Class, codes map[string]*Code, facts map[string]bool) error {
	switch c.Kind {
	case ClassFinding:
		if _, ok := codes[c.Code]; !ok {
			return fmt.Errorf("unknown code %q", c.Code)
		}
		switch c.Severity {
		case statefile.SeverityError, statefile.SeverityWarning, statefile.SeverityInfo:
		default:
			return fmt.Errorf("severity %q is not error, warning or info", c.Severity)
		}
		if c.Cause == "" || c.RemedyTemplate == "" || c.Means == "" {
			return fmt.Errorf("a finding needs a cause, a remedy and a means")
		}
		if c.Fact != "" || c.Reason != "" {
			return fmt.Errorf("a finding has no fact or reason")
		}
	case ClassFact:
		if !facts[c.Fact] {
			return fmt.Errorf("unknown fact %q", c.Fact)
		}
		if c.Code != "" || c.Severity != "" || c.Cause != "" || c.RemedyTemplate != "" || c.Reason != "" {
			return fmt.Errorf("a fact has only a fact, args and a means")
		}
	case ClassNotDiagnostic:
		if c.Reason == "" {
			return fmt.Errorf("a row that is not diagnostic needs a reason")
		}
		if c.Code != "" || c.Severity != "" || c.Cause != "" || c.RemedyTemplate != "" || c.Fact != "" || c.Means != "" {
			return fmt.Errorf("a row that is not diagnostic has only a reason")
		}
	default:
		return fmt.Errorf("unknown class %q", c.Kind)
	}
	return nil
}
