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

var (
	refOnce     sync.Once
	refCompiled map[string]*jsonschema.Schema
	refErr      error
)

func refLoadSchemas() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	names, err := fs.Glob(schemaFS, "schema/*.json")
	if err != nil {
		refErr = err
		return
	}
	for _, n := range names {
		b, err := schemaFS.ReadFile(n)
		if err != nil {
			refErr = err
			return
		}
		if err := c.AddResource(schemaBase+strings.TrimPrefix(n, "schema/"), bytes.NewReader(b)); err != nil {
			refErr = err
			return
		}
	}
	refCompiled = map[string]*jsonschema.Schema{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "schema/"), ".json")
		if name == "defs" {
			continue
		}
		s, err := c.Compile(schemaBase + name + ".json")
		if err != nil {
			refErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
		refCompiled[name] = s
	}
}

// refSchemaProblems is the schema check the way numascope made it before the
// typed check: santhosh-tekuri/jsonschema/v5 on a decoded tree. It stays as
// the reference the typed check is held to.
func refSchemaProblems(f *checker, data []byte) {
	refOnce.Do(refLoadSchemas)
	if refErr != nil {
		f.problem(SeverityInfo, "", "please report it", "the embedded schemas do not load: %v", refErr)
		return
	}
	name := string(f.Kind) + "-" + string(f.Format)
	s := refCompiled[name]
	if s == nil {
		return
	}
	count := 0
	f.refValidate(s, name, data, "", &count)
	// the data section of cpu v4, memory v3 and dra crc32
	if d := refCompiled[name+"-data"]; d != nil {
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
			f.refValidate(d, name+"-data", []byte(inner), "/"+key, &count)
		}
	}
	if count > maxSchemaProblems {
		f.problem(SeverityWarning, "", "fix the first ones and check again",
			"%d more schema findings are not listed", count-maxSchemaProblems)
	}
}

func (f *checker) refValidate(s *jsonschema.Schema, name string, data []byte, prefix string, count *int) {
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
	cut := refLongNames(v)
	msgs := make([]string, len(leaves))
	locs := make([]string, len(leaves))
	for i, l := range leaves {
		msgs[i] = refSortQuotedLists(cut.message(l.Message))
		locs[i] = cut.location(l.InstanceLocation)
	}
	idx := make([]int, len(leaves))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		if a, b := locs[idx[i]], locs[idx[j]]; a != b {
			return a < b
		}
		return msgs[idx[i]] < msgs[idx[j]]
	})
	for _, i := range idx {
		*count++
		if *count > maxSchemaProblems {
			continue
		}
		f.problem(SeverityWarning, prefix+locs[i],
			"a kubelet never writes this: the file was edited or produced by another tool; fix the value or let the kubelet rewrite the file",
			"does not match schema %s.json: %s", name, msgs[i])
	}
}

// quotedList matches a list of quoted names such as 'a', 'b', 'c'.
var refQuotedList = regexp.MustCompile(`'[^']*'(?:, '[^']*')+`)

// sortQuotedLists sorts the names in each quoted list of a schema message
// (the validator lists object members in map order), so the same file always
// gives the same text.
func refSortQuotedLists(msg string) string {
	return refQuotedList.ReplaceAllStringFunc(msg, func(list string) string {
		names := strings.Split(list, ", ")
		sort.Strings(names)
		return strings.Join(names, ", ")
	})
}

// refCut writes the reference's texts of a document's long names as the
// typed check writes them: cut, as every problem cuts a name longer than
// maxNameBytes.
type refCut struct {
	tokens map[string]string // a location token: whole → cut
	quoted map[string]string // a name in a message: whole → cut
}

// refLongNames finds the member names of doc longer than maxNameBytes.
func refLongNames(doc any) refCut {
	c := refCut{tokens: map[string]string{}, quoted: map[string]string{}}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if len(k) > maxNameBytes {
					c.tokens[string(appendPathToken(nil, k))] = string(appendPathToken(nil, prefixOf(k, cutNameBytes))) + cutSuffix(len(k), "bytes")
					c.quoted[validatorQuote(k)] = validatorQuote(nameToken(k))
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return c
}

func (c refCut) location(loc string) string {
	if len(c.tokens) == 0 {
		return loc
	}
	toks := strings.Split(loc, "/")
	for i, t := range toks {
		if cut, ok := c.tokens[t]; ok {
			toks[i] = cut
		}
	}
	return strings.Join(toks, "/")
}

func (c refCut) message(msg string) string {
	for whole, cut := range c.quoted {
		msg = strings.ReplaceAll(msg, whole, cut)
	}
	return msg
}
