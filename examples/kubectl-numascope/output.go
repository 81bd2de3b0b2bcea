package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	template "github.com/numascope/numascope/examples/kubectl-numascope/internal/gotemplate"

	"github.com/spf13/pflag"
	"k8s.io/client-go/util/jsonpath"

	"github.com/numascope/numascope/internal/units"
)

// The -o values that carry a template, as kubectl spells them: the
// template follows the "=" (-o jsonpath='{.findings[0].code}').
const (
	jsonpathFormat   = "jsonpath"
	goTemplateFormat = "go-template"
)

// templateFormats are the -o values with a template, as the help lists them.
var templateFormats = []string{jsonpathFormat + "=TEMPLATE", goTemplateFormat + "=TEMPLATE"}

const (
	// maxTemplate bounds the template given to -o.
	maxTemplate = 64 << 10
	// maxTemplateOutput bounds what a template prints: a go-template can
	// repeat without end ({{range 1000000000}}).
	maxTemplateOutput = 64 << 20
)

// outputFlag defines -o/--output, one of formats (the first is the default).
func outputFlag(fs *pflag.FlagSet, p *string, formats []string) {
	fs.StringVarP(p, "output", "o", formats[0], "output format: "+orList(formats)+" (kubectl's syntax: -o jsonpath='{.findings[0].code}')")
}

// normalOutput is -o's value with its format name in lower case and its
// template, if any, as given.
func normalOutput(s string) string {
	s = strings.TrimSpace(s)
	name, tmpl, ok := strings.Cut(s, "=")
	name = strings.ToLower(name)
	if !ok {
		return name
	}
	return name + "=" + tmpl
}

// checkOutput says which -o values cmd takes when output is not one, and
// why a template cannot be used.
func checkOutput(cmd, output string, formats []string) error {
	name, tmpl, hasTemplate := strings.Cut(output, "=")
	if name == jsonpathFormat || name == goTemplateFormat {
		if !slices.Contains(formats, name+"=TEMPLATE") {
			return fmt.Errorf("-o %s: %s prints %s", name, cmd, orList(formats))
		}
		if !hasTemplate || strings.TrimSpace(tmpl) == "" {
			return fmt.Errorf("-o %s needs a template after =, as in -o %s", name, map[string]string{
				jsonpathFormat: "jsonpath='{.findings[0].code}'", goTemplateFormat: "go-template='{{range .findings}}{{.code}}{{\"\\n\"}}{{end}}'"}[name])
		}
		_, err := newTemplatePrinter(name, tmpl)
		return err
	}
	if slices.Contains(formats, output) {
		return nil
	}
	return fmt.Errorf("-o %q: %s prints %s", truncate(output, 64), cmd, orList(formats))
}

// isTemplate tells the -o values that print through a template.
func isTemplate(output string) bool {
	name, _, _ := strings.Cut(output, "=")
	return name == jsonpathFormat || name == goTemplateFormat
}

// templatePrinter prints the JSON form of a value (what -o json prints)
// through a jsonpath or a Go template, as kubectl's printers do: missing
// keys print nothing (jsonpath) or <no value> (go-template), and Go
// templates have kubectl's exists and base64decode.
type templatePrinter struct {
	jp *jsonpath.JSONPath
	gt *template.Template
}

func newTemplatePrinter(format, text string) (*templatePrinter, error) {
	if len(text) > maxTemplate {
		return nil, fmt.Errorf("-o %s: the template is %d bytes: give one of at most %s", format, len(text), units.Bytes(maxTemplate))
	}
	if format == jsonpathFormat {
		jp := jsonpath.New("output").AllowMissingKeys(true)
		if err := jp.Parse(text); err != nil {
			return nil, fmt.Errorf("-o jsonpath: the template does not parse: %v (kubectl's syntax: '{.findings[0].code}', '{range .findings[*]}{.code}{\"\\n\"}{end}')", err)
		}
		return &templatePrinter{jp: jp}, nil
	}
	gt, err := template.New("output").Funcs(template.FuncMap{"exists": exists, "base64decode": base64decode}).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("-o go-template: the template does not parse: %v (Go's text/template: '{{range .findings}}{{.code}}{{\"\\n\"}}{{end}}')", err)
	}
	return &templatePrinter{gt: gt}, nil
}

// printTemplate writes v through the template of output (-o
// jsonpath=... or go-template=...). The template runs on v's JSON form,
// integers as int64 as kubectl's objects have them; its output is bounded
// (maxTemplateOutput), written only once complete, and given up when ctx
// ends: a Go template may loop without printing.
func printTemplate(ctx context.Context, output string, v any, w io.Writer) error {
	name, tmpl, _ := strings.Cut(output, "=")
	p, err := newTemplatePrinter(name, tmpl)
	if err != nil {
		return err
	}
	data, err := jsonForm(v)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("-o %s: the template did not run: %w", name, err)
	}
	var buf bytes.Buffer
	lw := &limitedWriter{w: &buf, left: maxTemplateOutput}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("the template failed: %v", r)
			}
		}()
		if p.jp != nil {
			done <- p.jp.Execute(lw, data)
			return
		}
		done <- p.gt.Execute(lw, data)
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		return fmt.Errorf("-o %s: the template did not finish: %w", name, ctx.Err())
	}
	if lw.over || errors.Is(err, errOutputOver) {
		return fmt.Errorf("-o %s: the template printed over %s: given up", name, units.Bytes(maxTemplateOutput))
	}
	if err != nil {
		return fmt.Errorf("-o %s: %v", name, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// jsonForm is v as encoding/json reads its JSON back, but for numbers:
// integers become int64 (as in kubectl's unstructured objects, so that
// 274877906944 does not print as 2.74877906944e+11), others float64.
func jsonForm(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	}
	return v
}

var errOutputOver = errors.New("output over its bound")

// limitedWriter takes at most left bytes, then fails every write.
type limitedWriter struct {
	w    io.Writer
	left int
	over bool
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.left {
		l.over = true
		return 0, errOutputOver
	}
	l.left -= len(p)
	return l.w.Write(p)
}

// exists is kubectl's go-template function: whether item has the path of
// indices (map keys, list positions) all the way.
func exists(item any, indices ...any) bool {
	v := reflect.ValueOf(item)
	for _, i := range indices {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Map:
			k := reflect.ValueOf(i)
			if !k.IsValid() || !k.Type().AssignableTo(v.Type().Key()) {
				return false
			}
			if v = v.MapIndex(k); !v.IsValid() {
				return false
			}
		case reflect.Slice, reflect.Array:
			n, ok := i.(int)
			if !ok || n < 0 || n >= v.Len() {
				return false
			}
			v = v.Index(n)
		default:
			return false
		}
	}
	return v.IsValid()
}

// base64decode is kubectl's go-template function of that name.
func base64decode(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("base64decode: %v", err)
	}
	return string(b), nil
}
