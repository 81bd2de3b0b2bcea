package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/cliout"
)

// printer writes the human formats: text and wide (indented, aligned
// tables) and markdown (headings, lists, pipe tables).
type printer struct {
	w    *bufio.Writer
	f    cliout.Format
	err  error
	wide bool
	md   bool
	// inList: the last markdown written was a list item, so anything else
	// starts after a blank line
	inList bool
}

// block starts a markdown element that is not a list item.
func (p *printer) block() {
	if p.md && p.inList {
		p.printf("\n")
		p.inList = false
	}
}

func newPrinter(w io.Writer, f cliout.Format) *printer {
	return &printer{w: bufio.NewWriterSize(w, 64<<10), f: f, wide: f == cliout.Wide, md: f == cliout.Markdown}
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// title is the verdict line.
func (p *printer) title(mark, name, meta, verdict string) {
	if p.md {
		p.printf("### %s `%s` (%s): %s\n\n", mark, printable(strings.ReplaceAll(name, "`", "'")), printable(meta), printable(verdict))
		return
	}
	if meta != "" {
		meta = " (" + meta + ")"
	}
	p.printf("%s %s%s: %s\n", mark, printable(name), printable(meta), printable(verdict))
}

// line is a sentence under the title or a section.
func (p *printer) line(s string) {
	s = printable(s)
	p.block()
	if p.md {
		p.printf("%s\n\n", s)
		return
	}
	p.printf("  %s\n", s)
}

// section starts a part of the report.
func (p *printer) section(s string) {
	s = printable(s)
	p.block()
	if p.md {
		p.printf("#### %s\n\n", strings.TrimSuffix(s, ":"))
		return
	}
	p.printf("\n  %s\n", s)
}

// sub is a line inside a section, indented under it in text.
func (p *printer) sub(s string) {
	s = printable(s)
	if p.md {
		p.printf("- %s\n", s)
		p.inList = true
		return
	}
	p.printf("    %s\n", s)
}

// item is one problem: its severity, message and remedy.
func (p *printer) item(severity, msg, remedy string) {
	msg, remedy = printable(msg), printable(remedy)
	if p.md {
		p.inList = true
		p.printf("- **%s** %s", severity, msg)
		if remedy != "" {
			p.printf("  \n  → %s", remedy)
		}
		p.printf("\n")
		return
	}
	p.printf("    %-7s %s\n", severity, msg)
	if remedy != "" {
		p.printf("            → %s\n", remedy)
	}
}

// endList ends a list of items.
func (p *printer) endList() { p.block() }

// table writes rows under a header, indented in text.
func (p *printer) table(header []string, rows [][]string) {
	if p.err != nil {
		return
	}
	p.block()
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = make([]string, len(r))
		for j, c := range r {
			c = printable(c)
			if !p.wide {
				c = clip(c, 2*maxCell)
			}
			safe[i][j] = c
		}
	}
	rows = safe
	var b bytes.Buffer
	if err := cliout.TableIndent(&b, p.f, "    ", header, rows); err != nil {
		p.err = err
		return
	}
	if p.md {
		p.printf("%s\n", b.Bytes())
		return
	}
	p.printf("%s", b.Bytes())
}

// end closes one file's report.
func (p *printer) end() {
	p.block()
	p.printf("\n")
	if p.err == nil {
		p.err = p.w.Flush()
	}
}

// printable escapes the control characters of s (a name in a hostile file
// may hold terminal escape sequences or line breaks) as \xNN or \u00NN.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteString(fmt.Sprintf("\\x%02x", s[i]))
		case r < 0x20 || r == 0x7f:
			b.WriteString(fmt.Sprintf("\\x%02x", r))
		case r >= 0x80 && r < 0xa0:
			b.WriteString(fmt.Sprintf("\\u%04x", r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
