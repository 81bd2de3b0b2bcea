//go:build js

package statefile

const schemaValidation = false

// addSchemaProblems does nothing in the browser build: the JSON Schema
// validator and what it pulls in (net, math/big, regexp) would push the
// playground's WebAssembly past its size budget. Schema findings are
// warnings only; everything that decides the kubelet's verdict is checked.
func (f *File) addSchemaProblems(data []byte) {}
