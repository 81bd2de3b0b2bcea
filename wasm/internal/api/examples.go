package api

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed examples
var examplesFS embed.FS

// Example is one entry of the playground's examples menu: state files to
// inspect and, optionally, an admission scenario.
type Example struct {
	ID        string            `json:"id"`
	Title     map[string]string `json:"title"` // by language tag: "en", "zh-CN"
	Files     []InputFile       `json:"files,omitempty"`
	Policy    string            `json:"policy,omitempty"`
	Admission *ExampleAdmission `json:"admission,omitempty"`
}

// ExampleAdmission is an admission scenario: a policy and either the hints
// request of the "merge" method or a pod spec for the "simulate" method,
// which admits it on the node the example's files describe.
type ExampleAdmission struct {
	Policy string          `json:"policy"`
	Scope  string          `json:"scope,omitempty"`
	Hints  json.RawMessage `json:"hints,omitempty"`
	// Pod is the pod spec (YAML or JSON); PodFile names it in the index.
	Pod     string `json:"pod,omitempty"`
	PodFile string `json:"podFile,omitempty"`
}

// ExampleList is the answer of the "examples" method.
type ExampleList struct {
	Examples []Example `json:"examples"`
}

type exampleEntry struct {
	ID        string            `json:"id"`
	Title     map[string]string `json:"title"`
	Files     []string          `json:"files"`
	Names     []string          `json:"names"`
	Policy    string            `json:"policy"`
	Admission *ExampleAdmission `json:"admission"`
}

// Examples returns the examples embedded in the engine.
func Examples() (ExampleList, error) {
	idx, err := examplesFS.ReadFile("examples/index.json")
	if err != nil {
		return ExampleList{}, err
	}
	var entries []exampleEntry
	if err := json.Unmarshal(idx, &entries); err != nil {
		return ExampleList{}, fmt.Errorf("examples/index.json: %w", err)
	}
	var out ExampleList
	for _, e := range entries {
		ex := Example{ID: e.ID, Title: e.Title, Policy: e.Policy, Admission: e.Admission}
		if a := ex.Admission; a != nil && a.PodFile != "" {
			b, err := examplesFS.ReadFile("examples/" + a.PodFile)
			if err != nil {
				return ExampleList{}, fmt.Errorf("example %s: %w", e.ID, err)
			}
			a.Pod, a.PodFile = string(b), ""
		}
		for i, f := range e.Files {
			b, err := examplesFS.ReadFile("examples/" + f)
			if err != nil {
				return ExampleList{}, fmt.Errorf("example %s: %w", e.ID, err)
			}
			name := f
			if i < len(e.Names) {
				name = e.Names[i]
			}
			ex.Files = append(ex.Files, InputFile{Name: name, Content: string(b)})
		}
		out.Examples = append(out.Examples, ex)
	}
	return out, nil
}

func init() {
	register("examples", "lists the built-in examples (state files and admission scenarios)", func(json.RawMessage) (any, error) {
		return Examples()
	})
}
