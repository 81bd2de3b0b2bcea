//go:build !js

package statefile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Decode skips the schema walk for a file its fast path read and found on
// the schema (schemaHint.clean). The tests below pin that equivalence: a
// file the fast path calls clean is one that jsonschema/v5 (the reference)
// and the typed walk find nothing wrong with, and each rule the fast path
// checks, broken alone, makes it call the file unclean.

const (
	cleanMemorySection = `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":1,"memoryMap":{"hugepages-1Gi":{"total":0,"systemReserved":0,"allocatable":0,"reserved":0,"free":0},"memory":{"total":1024,"systemReserved":0,"allocatable":1024,"reserved":512,"free":512}},"cells":[0,1]}},"entries":{"pod":{"app":[{"numaAffinity":[0],"type":"memory","size":512}]}},"podEntries":{"pod":{"memoryBlocks":[{"numaAffinity":[0,1],"type":"hugepages-1Gi","size":0}]}}}`
	cleanCPUSection    = `{"policyName":"static","defaultCpuSet":"0-1,6-7","entries":{"pod":{"app":"2-3","side":"4"}},"podEntries":{"pod":{"cpuSet":"2-4"}},"baselines":{"pod":{"app":{"baseline":"2-3"}}}}`
	cleanCPUV2         = `{"policyName":"static","defaultCpuSet":"0-1,6-7","entries":{"pod":{"app":"2-3","side":"4"}},"checksum":0}`
	cleanMemoryV2      = `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":1,"memoryMap":{"memory":{"total":1024,"systemReserved":0,"allocatable":1024,"reserved":512,"free":512}},"cells":[0]}},"entries":{"pod":{"app":[{"numaAffinity":[0],"type":"memory","size":512}]}},"podEntries":{},"checksum":0}`
)

// schemaCleanCases are a clean file of each fast-path format and one break
// of each rule the fast path checks for the schema.
func schemaCleanCases(t testing.TB) []struct {
	name  string
	kind  Kind
	data  []byte
	clean bool
} {
	mem := func(from, to string) []byte {
		require.Contains(t, cleanMemorySection, from)
		return wrapData(t, KindMemory, strings.Replace(cleanMemorySection, from, to, 1), nil)
	}
	cpu := func(from, to string) []byte {
		require.Contains(t, cleanCPUSection, from)
		return wrapData(t, KindCPU, strings.Replace(cleanCPUSection, from, to, 1), nil)
	}
	memOuter := func(from, to string) []byte {
		return wrapData(t, KindMemory, cleanMemorySection, func(s string) string {
			require.Contains(t, s, from)
			return strings.Replace(s, from, to, 1)
		})
	}
	cpuOuter := func(from, to string) []byte {
		return wrapData(t, KindCPU, cleanCPUSection, func(s string) string {
			require.Contains(t, s, from)
			return strings.Replace(s, from, to, 1)
		})
	}
	spew := func(doc, from, to string) []byte {
		require.Contains(t, doc, from)
		return []byte(strings.Replace(doc, from, to, 1))
	}
	return []struct {
		name  string
		kind  Kind
		data  []byte
		clean bool
	}{
		{"memory-v3", KindMemory, wrapData(t, KindMemory, cleanMemorySection, nil), true},
		{"memory-policy-enum", KindMemory, mem(`"Static"`, `"Dynamic"`), false},
		{"memory-member-case", KindMemory, mem(`"podEntries"`, `"PodEntries"`), false},
		{"memory-required", KindMemory, mem(`"policyName":"Static",`, ``), false},
		{"memory-node-key-leading-zero", KindMemory, mem(`"0":{`, `"00":{`), false},
		{"memory-node-key-sign", KindMemory, mem(`"0":{`, `"+0":{`), false},
		{"memory-assignments-negative", KindMemory, mem(`"numberOfAssignments":1`, `"numberOfAssignments":-1`), false},
		{"memory-map-key", KindMemory, mem(`"hugepages-1Gi":{`, `"hugepages-":{`), false},
		{"memory-table-required", KindMemory, mem(`,"free":0}`, `}`), false},
		{"memory-table-case", KindMemory, mem(`"free":0}`, `"Free":0}`), false},
		{"memory-node-required", KindMemory, mem(`,"cells":[0,1]`, ``), false},
		{"memory-cells-empty", KindMemory, mem(`"cells":[0,1]`, `"cells":[]`), false},
		{"memory-cells-repeated", KindMemory, mem(`"cells":[0,1]`, `"cells":[1,1]`), false},
		{"memory-cells-negative", KindMemory, mem(`"cells":[0,1]`, `"cells":[-1]`), false},
		{"memory-affinity-empty", KindMemory, mem(`"numaAffinity":[0],`, `"numaAffinity":[],`), false},
		{"memory-affinity-negative", KindMemory, mem(`"numaAffinity":[0],`, `"numaAffinity":[-3],`), false},
		{"memory-block-type", KindMemory, mem(`"type":"memory"`, `"type":"cpu"`), false},
		{"memory-block-required", KindMemory, mem(`,"size":512}]}}`, `}]}}`), false},
		{"memory-outer-case", KindMemory, memOuter(`"checksum":0`, `"Checksum":0`), false},
		{"memory-outer-required", KindMemory, memOuter(`"checksum":0,`, ``), false},
		{"memory-outer-policy-enum", KindMemory, memOuter(`"policyName":"Static"`, `"policyName":"static"`), false},
		{"cpu-v4", KindCPU, wrapData(t, KindCPU, cleanCPUSection, nil), true},
		{"cpu-policy-enum", KindCPU, cpu(`"static"`, `"Static"`), false},
		{"cpu-member-case", KindCPU, cpu(`"baselines"`, `"Baselines"`), false},
		{"cpu-required", KindCPU, cpu(`"defaultCpuSet":"0-1,6-7",`, ``), false},
		{"cpu-default-pattern", KindCPU, cpu(`"0-1,6-7"`, `"0-1,"`), false},
		{"cpu-entry-pattern", KindCPU, cpu(`"side":"4"`, `"side":" 4"`), false},
		{"cpu-pod-entry-pattern", KindCPU, cpu(`"cpuSet":"2-4"`, `"cpuSet":"2-"`), false},
		{"cpu-pod-entry-case", KindCPU, cpu(`"cpuSet":"2-4"`, `"cpuset":"2-4"`), false},
		{"cpu-baseline-pattern", KindCPU, cpu(`"baseline":"2-3"`, `"baseline":"x"`), false},
		{"cpu-baseline-required", KindCPU, cpu(`{"baseline":"2-3"}`, `{}`), false},
		{"cpu-outer-case", KindCPU, cpuOuter(`"checksum":0`, `"CHECKSUM":0`), false},
		{"cpu-outer-required", KindCPU, cpuOuter(`"checksum":0,`, ``), false},
		{"cpu-outer-policy-enum", KindCPU, cpuOuter(`"policyName":"static"`, `"policyName":"dynamic"`), false},
		{"cpu-v2", KindCPU, []byte(cleanCPUV2), true},
		{"cpu-v2-policy-enum", KindCPU, spew(cleanCPUV2, `"static"`, `"STATIC"`), false},
		{"cpu-v2-required", KindCPU, spew(cleanCPUV2, `,"checksum":0`, ``), false},
		{"cpu-v2-pattern", KindCPU, spew(cleanCPUV2, `"2-3"`, `"3-"`), false},
		{"cpu-v2-case", KindCPU, spew(cleanCPUV2, `"entries"`, `"Entries"`), false},
		{"memory-v2", KindMemory, []byte(cleanMemoryV2), true},
		{"memory-v2-cells-empty", KindMemory, spew(cleanMemoryV2, `"cells":[0]`, `"cells":[]`), false},
		{"memory-v2-required", KindMemory, spew(cleanMemoryV2, `,"checksum":0`, ``), false},
		{"memory-v2-case", KindMemory, spew(cleanMemoryV2, `"podEntries"`, `"podentries"`), false},
	}
}

// fastClean decodes data and reports whether the fast path read it and
// found it on the schema of the format Decode gives it.
func fastClean(t testing.TB, data []byte, kind Kind) (f *File, read, clean bool) {
	f, err := Decode(data, Options{Name: "f", Kind: kind})
	if err != nil {
		return nil, false, false
	}
	cpu, mem := fastRestore(data, kind)
	var hint *schemaHint
	switch {
	case cpu != nil:
		hint = cpu.hint
	case mem != nil:
		hint = mem.hint
	default:
		return f, false, false
	}
	return f, true, hint != nil && slices.Contains(hint.clean, f.Format)
}

// referenceFindings is what jsonschema/v5 and the typed walk (without the
// fast path's hint) find in data as a file of f's kind and format.
func referenceFindings(f *File, data []byte) (ref, walk []Problem) {
	r := &checker{File: &File{Name: "f", Kind: f.Kind, Format: f.Format}}
	refSchemaProblems(r, data)
	w := &checker{File: &File{Name: "f", Kind: f.Kind, Format: f.Format}}
	w.addSchemaProblems(data, nil)
	return r.Problems, w.Problems
}

func TestSchemaCleanMeansNoProblems(t *testing.T) {
	for _, c := range schemaCleanCases(t) {
		t.Run(c.name, func(t *testing.T) {
			f, read, clean := fastClean(t, c.data, c.kind)
			require.NotNil(t, f, "Decode reads %s", c.data)
			if c.clean {
				require.True(t, read, "the fast path reads %s", c.data)
			}
			// a break the scan refuses sends the file down the exact
			// path, which walks the schema
			assert.Equal(t, c.clean, clean, "the fast path finds the file on the schema")
			ref, walk := referenceFindings(f, c.data)
			if c.clean {
				assert.Empty(t, ref, "jsonschema/v5 finds nothing in a file the fast path calls clean")
				assert.Empty(t, walk, "the schema walk finds nothing in a file the fast path calls clean")
			} else {
				assert.NotEmpty(t, ref, "the break is one jsonschema/v5 reports")
			}
			diff, _ := fastDiff(t, c.data, Options{Name: "f", Kind: c.kind})
			assert.Empty(t, diff, "exact (-) and fast (+)")
		})
	}
	// every kubelet file of testdata the fast path reads
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(t, err)
	clean := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, kind := range []Kind{"", Kind(filepath.Base(filepath.Dir(file)))} {
			f, _, ok := fastClean(t, data, kind)
			if !ok {
				continue
			}
			clean++
			ref, walk := referenceFindings(f, data)
			assert.Empty(t, ref, "%s: jsonschema/v5 finds nothing in a file the fast path calls clean", file)
			assert.Empty(t, walk, "%s: the schema walk finds nothing in a file the fast path calls clean", file)
		}
	}
	assert.Greater(t, clean, 10, "kubelet files of testdata the fast path calls clean")
}

// FuzzSchemaClean holds the fast path's schema verdict to jsonschema/v5:
// whenever it calls a file clean, the reference finds nothing in it.
func FuzzSchemaClean(f *testing.F) {
	for i, c := range schemaCleanCases(f) {
		f.Add(c.data, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		fuzzbudget.RunWith(t, decodes(2), func() {
			kind := []Kind{"", KindCPU, KindMemory}[int(which)%3]
			file, _, clean := fastClean(t, data, kind)
			if !clean {
				return
			}
			ref, walk := referenceFindings(file, data)
			require.Empty(t, ref, "%q: jsonschema/v5 finds something in a file the fast path calls clean", data)
			require.Empty(t, walk, "%q: the schema walk finds something in a file the fast path calls clean", data)
		})
	})
}
