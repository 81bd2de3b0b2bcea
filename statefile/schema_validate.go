//go:build !js

package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

const schemaValidation = true

var (
	schemaOnce     sync.Once
	schemaCompiled map[string]*jsonschema.Schema
	schemaErr      error
)

func loadSchemas() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	names, err := fs.Glob(schemaFS, "schema/*.json")
	if err != nil {
		schemaErr = err
		return
	}
	for _, n := range names {
		b, err := schemaFS.ReadFile(n)
		if err != nil {
			schemaErr = err
			return
		}
		if err := c.AddResource(schemaBase+strings.TrimPrefix(n, "schema/"), bytes.NewReader(b)); err != nil {
			schemaErr = err
			return
		}
	}
	schemaCompiled = map[string]*jsonschema.Schema{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "schema/"), ".json")
		if name == "defs" {
			continue
		}
		s, err := c.Compile(schemaBase + name + ".json")
		if err != nil {
			schemaErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
		schemaCompiled[name] = s
	}
}

func (f *File) addSchemaProblems(data []byte) {
	schemaOnce.Do(loadSchemas)
	if schemaErr != nil {
		f.problem(SeverityInfo, "", "please report it", "the embedded schemas do not load: %v", schemaErr)
		return
	}
	name := string(f.Kind) + "-" + string(f.Format)
	s := schemaCompiled[name]
	if s == nil {
		return
	}
	count := 0
	f.validate(s, name, data, "", &count)
	// the data section of cpu v4, memory v3 and dra crc32
	if d := schemaCompiled[name+"-data"]; d != nil {
		var outer map[string]json.RawMessage
		if json.Unmarshal(data, &outer) != nil {
			return
		}
		key := "data"
		if f.Kind == KindDRA {
			key = "Data"
		}
		var inner string
		if raw, ok := outer[key]; ok && json.Unmarshal(raw, &inner) == nil && inner != "" {
			f.validate(d, name+"-data", []byte(inner), "/"+key, &count)
		}
	}
	if count > maxSchemaProblems {
		f.problem(SeverityWarning, "", "fix the first ones and check again",
			"%d more schema findings are not listed", count-maxSchemaProblems)
	}
}

func (f *File) validate(s *jsonschema.Schema, name string, data []byte, prefix string, count *int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return // syntax problems are reported elsewhere
	}
	err := s.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	msgs := make([]string, len(leaves))
	for i, l := range leaves {
		msgs[i] = sortQuotedLists(l.Message)
	}
	idx := make([]int, len(leaves))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := leaves[idx[i]], leaves[idx[j]]
		if a.InstanceLocation != b.InstanceLocation {
			return a.InstanceLocation < b.InstanceLocation
		}
		return msgs[idx[i]] < msgs[idx[j]]
	})
	for _, i := range idx {
		*count++
		if *count > maxSchemaProblems {
			continue
		}
		f.problem(SeverityWarning, prefix+leaves[i].InstanceLocation,
			"a kubelet never writes this: the file was edited or produced by another tool; fix the value or let the kubelet rewrite the file",
			"does not match schema %s.json: %s", name, msgs[i])
	}
}

// quotedList matches a list of quoted names such as 'a', 'b', 'c'.
var quotedList = regexp.MustCompile(`'[^']*'(?:, '[^']*')+`)

// sortQuotedLists sorts the names in each quoted list of a schema message
// (the validator lists object members in map order), so the same file always
// gives the same text.
func sortQuotedLists(msg string) string {
	return quotedList.ReplaceAllStringFunc(msg, func(list string) string {
		names := strings.Split(list, ", ")
		sort.Strings(names)
		return strings.Join(names, ", ")
	})
}
