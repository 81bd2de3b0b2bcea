package evidence

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHintJSONSpellings(t *testing.T) {
	b, err := json.Marshal(Hint{NUMANodes: []int{0, 1}, Preferred: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"numaAffinity":[0,1],"numaNodes":[0,1],"preferred":true}`, string(b), "numaAffinity, and the v1 report's numaNodes beside it")
	for _, tc := range []struct {
		name, in string
		want     Hint
	}{
		{"numascope's spelling", `{"numaAffinity":[1],"preferred":true}`, Hint{NUMANodes: []int{1}, Preferred: true}},
		{"a v1 report", `{"numaNodes":[0],"preferred":false}`, Hint{NUMANodes: []int{0}}},
		{"both, numaAffinity wins", `{"numaAffinity":[1],"numaNodes":[0]}`, Hint{NUMANodes: []int{1}}},
		{"any NUMA node", `{"numaAffinity":null,"preferred":true}`, Hint{Preferred: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Hint
			require.NoError(t, json.Unmarshal([]byte(tc.in), &h))
			assert.Empty(t, cmp.Diff(tc.want, h))
		})
	}
}
