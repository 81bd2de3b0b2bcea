package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose"
)

// TestTemplates: -o jsonpath= and -o go-template= print what kubectl's
// printers print for the JSON form of the output (what -o json prints).
func TestTemplates(t *testing.T) {
	rep := dirReport(t)
	require.NotEmpty(t, rep.Findings)
	rows := []nodeRow{
		{Node: "a", Source: "agent", Checkpoints: "ok", Errors: []string{}},
		{Node: "b", Source: "agent", Checkpoints: "1 rejected", Errors: []string{"CheckpointCorrupt"}},
	}
	for _, tc := range []struct {
		name, output string
		v            any
		want         string
	}{
		{"the first finding's code", "jsonpath={.findings[0].code}", rep, "TopologyAffinityError"},
		{"every code", `jsonpath={range .findings[*]}{.code}{"\n"}{end}`, rep, codes(rep.Findings)},
		{"a key the report does not have prints nothing", "jsonpath={.nothing}", rep, ""},
		{"text around the braces", "jsonpath=code={.findings[0].code}", rep, "code=TopologyAffinityError"},
		{"a filter over the rows", `jsonpath={range [?(@.checkpoints!="ok")]}{.node}{"\n"}{end}`, rows, "b\n"},
		{"every node", "jsonpath={[*].node}", rows, "a b"},
		{"go-template", `go-template={{range .findings}}{{.code}}{{"\n"}}{{end}}`, rep, codes(rep.Findings)},
		{"go-template over the rows", `go-template={{range .}}{{if .errors}}{{.node}}: {{index .errors 0}}{{end}}{{end}}`, rows, "b: CheckpointCorrupt"},
		{"go-template's exists", `go-template={{if exists . "findings" 0 "code"}}yes{{end}}{{if exists . "findings" 9999}}no{{end}}`, rep, "yes"},
		{"go-template's base64decode", `go-template={{base64decode "bnVtYXNjb3Bl"}}`, nil, "numascope"},
		{"integers print as integers", "jsonpath={.free}", map[string]uint64{"free": 274877906944}, "274877906944"},
		{"integers in go-template too", "go-template={{.free}}", map[string]uint64{"free": 274877906944}, "274877906944"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, checkOutput("diagnose", tc.output, diagnoseFormats))
			var b bytes.Buffer
			require.NoError(t, printTemplate(context.Background(), tc.output, tc.v, &b))
			assert.Empty(t, cmp.Diff(tc.want, b.String()))
		})
	}
}

func codes(fs []diagnose.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Code + "\n")
	}
	return b.String()
}

// TestTemplateErrors: a template that cannot be used is a usage error that
// names -o and shows the syntax; one that prints without end, or runs
// after the command's time, is given up.
func TestTemplateErrors(t *testing.T) {
	for _, tc := range []struct {
		cmd, output string
		formats     []string
		want        string
	}{
		{"diagnose", "jsonpath", diagnoseFormats, "-o jsonpath needs a template after =, as in -o jsonpath='{.findings[0].code}'"},
		{"diagnose", "jsonpath=  ", diagnoseFormats, "-o jsonpath needs a template"},
		{"nodes", "go-template=", nodesFormats, "-o go-template needs a template after ="},
		{"diagnose", "jsonpath={.findings[0", diagnoseFormats, "-o jsonpath: the template does not parse"},
		{"diagnose", "go-template={{.findings", diagnoseFormats, "-o go-template: the template does not parse"},
		{"diagnose", "go-template={{nosuchfunc .}}", diagnoseFormats, `function "nosuchfunc" not defined`},
		{"diagnose", "jsonpath={" + strings.Repeat("a", maxTemplate) + "}", diagnoseFormats, "-o jsonpath: the template is 65538 bytes: give one of at most 64 KiB"},
		{"diagnose", "custom-columns=NAME:.code", diagnoseFormats, `-o "custom-columns=NAME:.code": diagnose prints text, json, yaml, markdown, jsonpath=TEMPLATE or go-template=TEMPLATE`},
	} {
		err := checkOutput(tc.cmd, tc.output, tc.formats)
		assert.ErrorContains(t, err, tc.want, tc.output)
		var out, errb bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), []string{tc.cmd, "-o", tc.output, "pod/p"}[:map[string]int{"diagnose": 4, "nodes": 3}[tc.cmd]], &out, &errb), tc.output)
		assert.Contains(t, errb.String(), tc.want, tc.output)
	}

	var b bytes.Buffer
	err := printTemplate(context.Background(), `go-template={{range 100000000}}xxxxxxxxxxxxxxxx{{end}}`, nil, &b)
	assert.ErrorContains(t, err, "-o go-template: the template printed over 64 MiB: given up")
	assert.Zero(t, b.Len(), "nothing of it is written")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = printTemplate(ctx, `go-template={{range 100000000000}}{{end}}`, nil, &b)
	assert.ErrorContains(t, err, "-o go-template: the template did not run: context canceled")

	err = printTemplate(context.Background(), `go-template={{base64decode "!"}}`, nil, &b)
	assert.ErrorContains(t, err, "base64decode: illegal base64 data")
	err = printTemplate(context.Background(), `go-template={{index .x 5}}`, map[string][]int{"x": {1}}, &b)
	assert.ErrorContains(t, err, "-o go-template: ")
	assert.Zero(t, b.Len())
}

// TestNoTextTemplate: the plugin links neither text/template nor
// html/template, whose method lookup by name (reflect's MethodByName)
// would make the linker keep every exported method of client-go's types:
// 18 MB of binary. -o go-template runs on internal/gotemplate instead.
func TestNoTextTemplate(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/numascope/numascope/examples/kubectl-numascope/internal/gotemplate")
	assert.NotContains(t, deps, "text/template")
	assert.NotContains(t, deps, "html/template")
}
