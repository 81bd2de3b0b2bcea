package cliout

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegister(t *testing.T) {
	tests := []struct {
		name    string
		allowed []Format
		args    []string
		want    Format
		wantErr string
	}{
		{name: "default is text", allowed: []Format{JSON}, want: Text},
		{name: "short flag", allowed: []Format{JSON, YAML}, args: []string{"-o", "yaml"}, want: YAML},
		{name: "long flag", allowed: []Format{JSON, YAML}, args: []string{"--output=json"}, want: JSON},
		{name: "json alias", allowed: []Format{JSON}, args: []string{"--json"}, want: JSON},
		{name: "markdown alias", allowed: []Format{Markdown}, args: []string{"--markdown"}, want: Markdown},
		{name: "alias agrees with -o", allowed: []Format{JSON}, args: []string{"--json", "-o", "json"}, want: JSON},
		{name: "case folded", allowed: []Format{Wide}, args: []string{"-o", "WIDE"}, want: Wide},
		{name: "unknown value", allowed: []Format{JSON}, args: []string{"-o", "xml"}, wantErr: `invalid value "xml" for flag -o: "xml" is not an output format here: give text or json`},
		{name: "format the command lacks", allowed: []Format{JSON, YAML}, args: []string{"-o", "markdown"}, wantErr: `give text, json or yaml`},
		{name: "conflict", allowed: []Format{JSON, Markdown}, args: []string{"--json", "--markdown"}, wantErr: "--markdown asks for markdown but --json already asked for json: give one output format"},
		{name: "no markdown alias without markdown", allowed: []Format{JSON}, args: []string{"--markdown"}, wantErr: "flag provided but not defined: -markdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o := Register(fs, tt.allowed...)
			err := fs.Parse(tt.args)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, o.Format())
			assert.True(t, o.Is(tt.want))
		})
	}
}

func TestEncode(t *testing.T) {
	v := struct {
		Kind  string `json:"kind"`
		Nodes []int  `json:"nodes"`
	}{"memory", []int{0, 1}}
	tests := []struct {
		format  Format
		want    string
		wantErr bool
	}{
		{format: JSON, want: "{\n  \"kind\": \"memory\",\n  \"nodes\": [\n    0,\n    1\n  ]\n}\n"},
		{format: YAML, want: "kind: memory\nnodes:\n- 0\n- 1\n"},
		{format: Text, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			var b bytes.Buffer
			err := Encode(&b, tt.format, v)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, b.String())
		})
	}
}

func TestTable(t *testing.T) {
	header := []string{"NUMA", "POD", "MEMORY"}
	rows := [][]string{{"0", "default/a|b", "150 GiB"}, {"1", "kube-system/long-name", "1 GiB"}}
	tests := []struct {
		format Format
		want   string
	}{
		{format: Text, want: "NUMA  POD                    MEMORY\n0     default/a|b            150 GiB\n1     kube-system/long-name  1 GiB\n"},
		{format: Markdown, want: "| NUMA | POD | MEMORY |\n| --- | --- | --- |\n| 0 | default/a\\|b | 150 GiB |\n| 1 | kube-system/long-name | 1 GiB |\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Table(&b, tt.format, header, rows))
			assert.Equal(t, tt.want, b.String())
		})
	}
	assert.Error(t, Table(io.Discard, Text, nil, rows))
}

func TestTableIndent(t *testing.T) {
	header, rows := []string{"NUMA", "FREE"}, [][]string{{"0", "92 GiB"}, {"1", ""}}
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{Text, "    NUMA  FREE\n    0     92 GiB\n    1\n"},
		{Markdown, "| NUMA | FREE |\n| --- | --- |\n| 0 | 92 GiB |\n| 1 |  |\n"},
	} {
		var b bytes.Buffer
		require.NoError(t, TableIndent(&b, tc.f, "    ", header, rows))
		assert.Equal(t, tc.want, b.String(), string(tc.f))
	}
}
