// Package cliout gives the numascope commands one way to choose and write
// their output, following kubectl's conventions: -o/--output
// text|json|yaml|markdown|wide, with --json (and --markdown where a command
// had it) kept as aliases. An unknown value is a usage error that names the
// flag and the values accepted.
package cliout

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Format is an output format a command can print.
type Format string

// The formats, as kubectl spells them.
const (
	Text     Format = "text"
	JSON     Format = "json"
	YAML     Format = "yaml"
	Markdown Format = "markdown"
	Wide     Format = "wide"
)

// Output is the -o flag of one command.
type Output struct {
	allowed []Format
	value   Format
	set     string // how the format was chosen: "-o", "--json", "--markdown"
}

// Register adds -o, --output and --json to fs (and --markdown when Markdown
// is allowed). allowed lists the formats the command prints; Text is the
// default and always allowed.
func Register(fs *flag.FlagSet, allowed ...Format) *Output {
	return RegisterDefault(fs, Text, allowed...)
}

// RegisterDefault is Register for a command whose output without -o is def
// rather than text (the agent writes JSON lines for a log pipeline); def is
// allowed and listed first.
func RegisterDefault(fs *flag.FlagSet, def Format, allowed ...Format) *Output {
	all := []Format{def}
	for _, f := range append([]Format{Text}, allowed...) {
		if f != def {
			all = append(all, f)
		}
	}
	o := &Output{allowed: all, value: def}
	usage := "output `FORMAT`: " + o.list()
	fs.Var(outputValue{o}, "o", usage)
	fs.Var(outputValue{o}, "output", usage+" (same as -o)")
	if o.allows(JSON) {
		fs.Var(aliasValue{o, JSON, "--json"}, "json", "same as -o json")
	}
	if o.allows(Markdown) {
		fs.Var(aliasValue{o, Markdown, "--markdown"}, "markdown", "same as -o markdown")
	}
	return o
}

// Format is the format chosen on the command line.
func (o *Output) Format() Format { return o.value }

// Is reports whether the chosen format is one of fs.
func (o *Output) Is(fs ...Format) bool {
	for _, f := range fs {
		if o.value == f {
			return true
		}
	}
	return false
}

func (o *Output) allows(f Format) bool {
	for _, a := range o.allowed {
		if a == f {
			return true
		}
	}
	return false
}

func (o *Output) list() string {
	names := make([]string, len(o.allowed))
	for i, f := range o.allowed {
		names[i] = string(f)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func (o *Output) choose(f Format, how string) error {
	if o.set != "" && o.value != f {
		return fmt.Errorf("%s asks for %s but %s already asked for %s: give one output format", how, f, o.set, o.value)
	}
	o.value, o.set = f, how
	return nil
}

type outputValue struct{ o *Output }

func (v outputValue) String() string {
	if v.o == nil {
		return string(Text)
	}
	return string(v.o.value)
}

func (v outputValue) Set(s string) error {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if !v.o.allows(f) {
		return fmt.Errorf("%q is not an output format here: give %s", s, v.o.list())
	}
	return v.o.choose(f, "-o "+string(f))
}

type aliasValue struct {
	o    *Output
	f    Format
	name string
}

func (v aliasValue) String() string { return "false" }

func (v aliasValue) IsBoolFlag() bool { return true }

func (v aliasValue) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "t":
		return v.o.choose(v.f, v.name)
	case "false", "0", "f":
		return nil
	}
	return fmt.Errorf("%q: %s takes no value (it means -o %s)", s, v.name, v.f)
}

// Encode writes v as indented JSON or as YAML (the same document, converted
// from its JSON form, so the field names are the JSON names).
func Encode(w io.Writer, f Format, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	switch f {
	case JSON:
		data = append(data, '\n')
	case YAML:
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	default:
		return fmt.Errorf("cliout: Encode writes json or yaml, not %s", f)
	}
	_, err = w.Write(data)
	return err
}

// Table writes rows under a header: aligned columns for text and wide, a
// pipe table for markdown (cells escaped).
func Table(w io.Writer, f Format, header []string, rows [][]string) error {
	if len(header) == 0 {
		return errors.New("cliout: a table needs a header")
	}
	if f == Markdown {
		var b bytes.Buffer
		line := func(cells []string) {
			b.WriteString("|")
			for i := range header {
				c := ""
				if i < len(cells) {
					c = mdCell(cells[i])
				}
				b.WriteString(" " + c + " |")
			}
			b.WriteString("\n")
		}
		line(header)
		b.WriteString("|")
		for range header {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		for _, r := range rows {
			line(r)
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// TableIndent is Table for a table inside a report: each text line starts
// with indent and has no trailing blanks; a markdown table is written as
// Table writes it (markdown does not indent tables).
func TableIndent(w io.Writer, f Format, indent string, header []string, rows [][]string) error {
	if f == Markdown {
		return Table(w, f, header, rows)
	}
	var b bytes.Buffer
	if err := Table(&b, f, header, rows); err != nil {
		return err
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if l != "" {
			out.WriteString(indent + strings.TrimRight(l, " \n") + "\n")
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", "<br>", "\r", "").Replace(s)
}
