package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNRTZones(t *testing.T) {
	obj := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(`{
	  "attributes": [{"name": "topologyManagerPolicy", "value": "single-numa-node"}],
	  "zones": [
	    {"name": "node-1", "type": "Node", "resources": [{"name": "cpu", "available": "24"}, {"name": "memory", "available": "1536Mi"}]},
	    {"name": "node-0", "type": "Node", "resources": [{"name": "cpu", "available": "19"}, {"name": "memory", "available": "not-a-quantity"}]},
	    {"name": "socket-0", "type": "Socket", "resources": [{"name": "cpu", "available": "43"}]}
	  ]}`), &obj))
	z, err := nrtZones(obj)
	require.NoError(t, err)
	assert.Equal(t, "policy single-numa-node; node-0 free cpu 19 memory ?; node-1 free cpu 24 memory 1.5Gi", z.summary())
}

func TestFillFromAgent(t *testing.T) {
	var r agentReport
	require.NoError(t, json.Unmarshal([]byte(`{"schema":"numascope.agent/v1","node":"n",
	  "checkpoints":[{"present":true,"kubeletAccepts":true},{"present":true,"error":"permission denied"},{"present":false}],
	  "memory":[{"numaNode":0,"resource":"memory","free":1073741824},{"numaNode":0,"resource":"hugepages-1Gi","free":0}],
	  "cpus":[{"numaNode":-1,"free":1},{"numaNode":0,"free":3},{"numaNode":1}],
	  "findings":[{"code":"A","severity":"error"},{"code":"A","severity":"error"},{"code":"B","severity":"warning"}]}`), &r))
	row := nodeRow{Node: "n", Errors: []string{}}
	fillFromAgent(&row, &r)
	assert.Empty(t, cmp.Diff(nodeRow{Node: "n", Source: "agent", Checkpoints: "1 unreadable", FreeCPU: "0:3", FreeMemory: "0:1 GiB", Errors: []string{"A"}, Warnings: []string{"B"}}, row))
}

func TestWriteRows(t *testing.T) {
	rows := []nodeRow{{Node: "a", Source: "agent", Checkpoints: "ok", FreeCPU: "0:3", Errors: []string{}}, {Node: "b", Source: "none", Errors: []string{"X", "Y"}, Note: "no running numascope agent"}}
	var text, md, js bytes.Buffer
	require.NoError(t, writeRows(t.Context(), rows, "text", &text))
	assert.Equal(t, "NODE  SOURCE  CHECKPOINTS  FREE CPU (NUMA:n)  FREE MEMORY (NUMA:size)  ERRORS  NOTE\n"+
		"a     agent   ok           0:3                -                        -       -\n"+
		"b     none    -            -                  -                        X,Y     no running numascope agent\n", text.String())
	var wide bytes.Buffer
	rows[0].FreeHugePages, rows[0].Warnings = "0:hugepages-1Gi 2 GiB", []string{"W"}
	require.NoError(t, writeRows(t.Context(), rows, "wide", &wide))
	assert.Equal(t, "NODE  SOURCE  CHECKPOINTS  FREE CPU (NUMA:n)  FREE MEMORY (NUMA:size)  FREE HUGEPAGES (NUMA:size)  ERRORS  WARNINGS  NOTE\n"+
		"a     agent   ok           0:3                -                        0:hugepages-1Gi 2 GiB       -       W         -\n"+
		"b     none    -            -                  -                        -                           X,Y     -         no running numascope agent\n", wide.String())
	require.NoError(t, writeRows(t.Context(), rows, "markdown", &md))
	assert.Contains(t, md.String(), "| b | none | - | - | - | X,Y | no running numascope agent |")
	require.NoError(t, writeRows(t.Context(), rows, "json", &js))
	var back []nodeRow
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Empty(t, cmp.Diff(rows, back))
}
