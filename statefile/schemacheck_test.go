//go:build !js

package statefile

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaNames lists the schemas a file is checked against (kind-format).
func schemaNames(t testing.TB) []string {
	checkOnce.Do(loadChecks)
	require.NoError(t, checkErr, "the published schemas compile into the typed check")
	var names []string
	for n := range checkRoots {
		if !strings.HasSuffix(n, "-data") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// schemaDiff runs the typed check and the reference validator on data as a
// file of the schema name, and returns their difference ("" when they agree).
// ok is false when the reference cannot check data (it panics on numbers its
// big.Rat does not read).
func schemaDiff(name string, data []byte) (diff string, ok bool) {
	kind, format, _ := strings.Cut(name, "-")
	got := &checker{File: &File{Name: "f", Kind: Kind(kind), Format: Format(format)}}
	got.addSchemaProblems(data, nil)
	want := &checker{File: &File{Name: "f", Kind: Kind(kind), Format: Format(format)}}
	func() {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		ok = true
		refSchemaProblems(want, data)
	}()
	if !ok {
		return "", false
	}
	for _, p := range want.Problems {
		if strings.Contains(p.Message, `\'`) {
			// a name with a quote in it: the reference's text depends on
			// its map order, so only the places are compared
			paths := func(ps []Problem) (out []string) {
				for _, p := range ps {
					out = append(out, p.Path)
				}
				return out
			}
			return cmp.Diff(paths(want.Problems), paths(got.Problems)), true
		}
	}
	return cmp.Diff(want.Problems, got.Problems), true
}

// schemaMutations are hand-made breaks of each keyword the schemas use.
var schemaMutations = []struct{ name, schema, doc string }{
	{"type", "cpu-v2", `{"policyName":1,"defaultCpuSet":[],"entries":"x","checksum":"1"}`},
	{"integer-fraction", "cpu-v2", `{"policyName":"none","defaultCpuSet":"","checksum":1.5}`},
	{"integer-exponent", "cpu-v2", `{"policyName":"none","defaultCpuSet":"","checksum":-1e3}`},
	{"long names", "cpu-v2", `{"policyName":"none","defaultCpuSet":"","entries":{"` + strings.Repeat("p", 400) + `":{"c":5,"` + strings.Repeat("é", 200) + `":6}},"` + strings.Repeat("x", 321) + `":1,"y":2,"checksum":1}`},
	{"minimum", "memory-v1", `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":-1,"memoryMap":{},"cells":[0]}},"checksum":-5}`},
	{"maximum", "dra-crc32", `{"Data":"","Checksum":4294967296}`},
	{"enum", "cpu-v2", `{"policyName":"Static","defaultCpuSet":"","checksum":0}`},
	{"const", "dra-spew-v1", `{"version":"v2","entries":null,"checksum":1}`},
	{"required-and-extra", "memory-v2", `{"zeta":1,"alpha":2,"policyName":"None"}`},
	{"pattern", "cpu-v2", `{"policyName":"none","defaultCpuSet":"0-","entries":{"p":{"c":"a"}},"checksum":0}`},
	{"property-names", "memory-v1", `{"policyName":"None","machineState":{"01":{"numberOfAssignments":0,"memoryMap":{"cpu":{"total":1,"systemReserved":0,"allocatable":1,"reserved":0,"free":1}},"cells":[1,1]}},"checksum":0}`},
	{"min-items", "memory-v1", `{"policyName":"None","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{},"cells":[]}},"checksum":0}`},
	{"unique-numbers", "memory-v1", `{"policyName":"None","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{},"cells":[0,1,1.0]}},"checksum":0}`},
	{"duplicate-key-last-wins", "cpu-v2", `{"policyName":1,"policyName":"none","defaultCpuSet":"","checksum":0,"checksum":"x"}`},
	{"escaped-keys", "cpu-v2", `{"polic\u0079Name":"none","a/b~c d":1,"\u00e9":2,"defaultCpuSet":"","checksum":0}`},
	{"max-properties", "dra-spew-v1", `{"version":"v1","entries":[{"ClaimUID":"u","PodUIDs":{"p":{"x":1}}}],"checksum":1}`},
	{"data-section", "memory-v3", `{"policyName":"None","machineState":{},"checksum":0,"data":"{\"policyName\":\"x\",\"extra\":[]} trailing","dataChecksum":1}`},
	{"data-not-object", "cpu-v4", `{"policyName":"none","defaultCpuSet":"","checksum":0,"data":"12x","dataChecksum":1}`},
	{"quoted-list-names", "cpu-v2", `{"b', 'a":1,"c":2,"policyName":"none","defaultCpuSet":"","checksum":0}`},
	{"many", "cpu-v2", `{"policyName":"none","defaultCpuSet":"","checksum":0,"entries":{` + manyEntries(80) + `}}`},
}

func manyEntries(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`"pod%d":{"c":"x%d"}`, i, i))
	}
	return strings.Join(parts, ",")
}

// TestSchemaProblemsMatchReference holds the typed check to jsonschema/v5 on
// every kubelet-written file of testdata and on a break of each keyword.
func TestSchemaProblemsMatchReference(t *testing.T) {
	names := schemaNames(t)
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if checkSyntax(data) != nil {
			continue
		}
		for _, name := range names {
			diff, ok := schemaDiff(name, data)
			if ok {
				checked++
				assert.Empty(t, diff, "%s as %s: reference (-) and typed check (+)", file, name)
			}
		}
	}
	assert.Greater(t, checked, 100, "files checked against the reference")
	for _, m := range schemaMutations {
		t.Run(m.name, func(t *testing.T) {
			require.NoError(t, checkSyntax([]byte(m.doc)))
			diff, ok := schemaDiff(m.schema, []byte(m.doc))
			require.True(t, ok, "the reference checks it")
			assert.Empty(t, diff, "reference (-) and typed check (+)")
			f := &checker{File: &File{Name: "f", Kind: Kind(strings.Split(m.schema, "-")[0]), Format: Format(strings.SplitN(m.schema, "-", 2)[1])}}
			f.addSchemaProblems([]byte(m.doc), nil)
			assert.NotEmpty(t, f.Problems, "the mutation breaks the schema")
		})
	}
}

// FuzzSchemaProblems holds the typed schema check to jsonschema/v5 on the
// published schemas: the same problems, at the same places, with the same
// texts, in the same order, under the same cap.
func FuzzSchemaProblems(f *testing.F) {
	names := schemaNames(f)
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(f, err)
	for i, file := range files {
		if b, err := os.ReadFile(file); err == nil && len(b) < 4096 && i%3 == 0 {
			f.Add(b, uint8(i))
		}
	}
	for i, m := range schemaMutations {
		f.Add([]byte(m.doc), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		fuzzbudget.Run(t, func() {
			if checkSyntax(data) != nil {
				return
			}
			name := names[int(which)%len(names)]
			diff, ok := schemaDiff(name, data)
			if ok {
				require.Empty(t, diff, "%q as %s: reference (-) and typed check (+)", data, name)
			}
		})
	})
}
