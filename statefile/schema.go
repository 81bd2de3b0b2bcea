package statefile

import (
	"embed"
	"fmt"
)

// The JSON Schemas of every checkpoint kind and format, as the kubelet writes
// them, published under statefile/schema. A file that breaks its schema may
// still be accepted by the kubelet (which ignores unknown fields, for
// example), so schema findings are warnings; what the kubelet refuses is
// reported as an error by the restore simulation.
//
//go:embed schema/*.json
var schemaFS embed.FS

const schemaBase = "https://github.com/numascope/numascope/statefile/schema/"

// maxSchemaProblems bounds the schema findings reported per file.
const maxSchemaProblems = maxOfAKind

// Schema returns the JSON Schema numascope checks a checkpoint kind and
// format against (for cpu v4, memory v3 and dra crc32 the outer layout; add
// "-data" to the format for the data section), as published in statefile/schema.
func Schema(kind Kind, format Format) ([]byte, error) {
	b, err := schemaFS.ReadFile("schema/" + string(kind) + "-" + string(format) + ".json")
	if err != nil {
		return nil, fmt.Errorf("no schema for %s %s: %w", kind, format, err)
	}
	return b, nil
}

// SchemaValidation reports whether this build checks files against the
// embedded JSON Schemas. Every build does, the browser's included: the check
// is compiled from the published schemas and reports what a JSON Schema
// validator reports for them.
func SchemaValidation() bool { return true }
