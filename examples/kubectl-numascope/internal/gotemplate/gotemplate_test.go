package gotemplate_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/examples/kubectl-numascope/internal/gotemplate"
)

// TestSameAsTextTemplate: on JSON data the fork prints what text/template
// prints, and fails where it fails.
func TestSameAsTextTemplate(t *testing.T) {
	data := map[string]any{
		"findings": []any{
			map[string]any{"code": "TopologyAffinityError", "severity": "error", "count": int64(2)},
			map[string]any{"code": "CheckpointCorrupt", "severity": "warning", "count": int64(0)},
		},
		"labels": map[string]any{"b": "2", "a": "1", "c": "3"},
		"free":   int64(274877906944),
		"ratio":  0.5,
		"none":   nil,
	}
	funcs := map[string]any{"up": strings.ToUpper}
	for _, text := range []string{
		`{{range .findings}}{{.code}} {{.severity}}{{"\n"}}{{end}}`,
		`{{range $i, $f := .findings}}{{$i}}={{$f.code}};{{end}}`,
		`{{range $k, $v := .labels}}{{$k}}:{{$v}},{{end}}`,
		`{{with .labels}}{{.a}}{{else}}none{{end}}`,
		`{{if and .free (gt .free 1000)}}big {{.free}}{{end}} {{.ratio}} {{.none}} {{.missing}}`,
		`{{len .findings}} {{index .findings 1 "code"}} {{(index .findings 0).count | printf "%03d"}}`,
		`{{range .findings}}{{if eq .severity "warning"}}{{break}}{{end}}{{.code}}{{end}}`,
		`{{range .findings}}{{if eq .count 2}}{{continue}}{{end}}{{.code}}{{end}}`,
		`{{define "f"}}[{{.code}}]{{end}}{{range .findings}}{{template "f" .}}{{end}}`,
		`{{range 3}}{{.}}{{end}} {{slice "numascope" 1 4}} {{html "<a>"}} {{js "'"}} {{urlquery "a b"}} {{print 1 2}} {{println "x"}}`,
		`{{up (index .findings 0).code}} {{not .none}} {{or .none "dflt"}}`,
		`{{.findings.code}}`,
		`{{index .findings 5}}`,
		`{{.free.x}}`,
		`{{template "nowhere"}}`,
	} {
		want, wantErr := execute(t, template.New("t").Funcs(funcs), text, data)
		got, gotErr := execute(t, gotemplate.New("t").Funcs(funcs), text, data)
		assert.Empty(t, cmp.Diff(want, got), text)
		assert.Equal(t, wantErr, gotErr, text)
	}
}

type tmpl[T any] interface {
	Parse(string) (T, error)
}

func execute[T interface {
	Execute(w io.Writer, data any) error
}](t *testing.T, p tmpl[T], text string, data any) (string, string) {
	t.Helper()
	tt, err := p.Parse(text)
	require.NoError(t, err, text)
	var b bytes.Buffer
	if err := tt.Execute(&b, data); err != nil {
		return b.String(), err.Error()
	}
	return b.String(), ""
}
