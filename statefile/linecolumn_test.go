package statefile

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyntaxErrorLineColumn(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		line, col int
	}{
		{name: "first line", data: `{"policyName": x}`, line: 1, col: 16},
		{name: "third line", data: "{\n  \"policyName\": \"static\",\n  \"entries\": {,}\n}", line: 3, col: 15},
		{name: "truncated", data: "{\n  \"policyName\": \"static\"", line: 2, col: 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			var se *json.SyntaxError
			require.True(t, errors.As(json.Unmarshal([]byte(tt.data), &raw), &se))
			line, col := lineColumn([]byte(tt.data), se.Offset)
			assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{line, col})
		})
	}
}

func TestNotJSONNamesLineAndColumn(t *testing.T) {
	_, err := Decode([]byte("{\n  \"policyName\": \"static\",\n  \"entries\": {,}\n}"), Options{Kind: KindCPU})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNotJSON)
	var se *json.SyntaxError
	assert.True(t, errors.As(err, &se), "the syntax error stays reachable with errors.As")
	assert.Contains(t, err.Error(), "at line 3, column 15")
}
