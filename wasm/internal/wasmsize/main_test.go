package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPkgOf(t *testing.T) {
	for name, want := range map[string]string{
		"runtime.mallocgc":                                  "runtime",
		"unicode.map.init.2":                                "unicode",
		"encoding_json.__decodeState_.literalStore":         "encoding_json",
		"fmt.__pp_.printValue":                              "fmt",
		"github.com_numascope_numascope_diagnose.sniff":     "github.com_numascope_numascope_diagnose",
		"github.com_numascope_numascope_diagnose.__KL_.sig": "github.com_numascope_numascope_diagnose",
		"go.yaml.in_yaml_v2.yaml_parser_scan_flow_scalar":   "go.yaml.in_yaml_v2",
		"sigs.k8s.io_yaml.JSONToYAML":                       "sigs.k8s.io_yaml",
		"type_.eq.github.com_numascope_numascope_topomgr.T": "github.com_numascope_numascope_topomgr",
		"type_.hash.foo":                                    "(type_)",
		"_rt0_wasm_js":                                      "_rt0_wasm_js",
	} {
		assert.Equal(t, want, pkgOf(name), name)
	}
}

// module builds a wasm module with one imported function, two function
// bodies and a name section that names all three.
func testModule() []byte {
	section := func(id byte, body []byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	var m []byte
	m = append(m, "\x00asm\x01\x00\x00\x00"...)
	m = append(m, section(1, []byte{1, 0x60, 0, 0})...)                                                // type: () -> ()
	m = append(m, section(2, append(append(append([]byte{1}, name("go")...), name("f")...), 0, 0))...) // import func 0
	m = append(m, section(3, []byte{2, 0, 0})...)                                                      // two functions
	m = append(m, section(10, []byte{2, 2, 0, 0x0b, 4, 0, 0x01, 0x01, 0x0b})...)                       // bodies of 2 and 4 bytes
	var names []byte
	names = append(names, 3)
	names = append(names, append([]byte{0}, name("go.f")...)...)
	names = append(names, append([]byte{1}, name("runtime.a")...)...)
	names = append(names, append([]byte{2}, name("fmt.b")...)...)
	custom := append(name("name"), append([]byte{1, byte(len(names))}, names...)...)
	m = append(m, section(0, custom)...)
	return m
}

func TestParseAndReport(t *testing.T) {
	m, err := parse(testModule())
	require.NoError(t, err)
	assert.Equal(t, 1, m.imports)
	assert.Equal(t, []int{2, 4}, m.bodies)
	assert.Equal(t, "runtime.a", m.names[1])
	var out bytes.Buffer
	report(&out, m, 20, 2)
	assert.Contains(t, out.String(), "runtime ")
	assert.Contains(t, out.String(), "fmt ")
	assert.Regexp(t, `all 2 packages\s+6\s+2`, out.String())
}

func TestRefusesBadInput(t *testing.T) {
	full := testModule()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"not wasm":  []byte("hello world!"),
		"truncated": full[:len(full)-3],
	} {
		_, err := parse(data)
		assert.Error(t, err, name)
	}
	dir := t.TempDir()
	assert.Error(t, run(&bytes.Buffer{}, dir, 20, 0), "a directory is refused")
	p := filepath.Join(dir, "m.wasm")
	require.NoError(t, os.WriteFile(p, full, 0o644))
	assert.NoError(t, run(&bytes.Buffer{}, p, 20, 0))
}
