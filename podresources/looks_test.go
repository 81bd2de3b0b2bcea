package podresources_test

import (
	"testing"

	"github.com/numascope/numascope/podresources"
	"github.com/stretchr/testify/assert"
)

func TestLooks(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"numascope's snapshot", `{"pods": [{"name": "web", "namespace": "default", "containers": []}]}`, true},
		{"protobuf-JSON List", `{"pod_resources":[{"name":"web"}]}`, true},
		{"camel-case List", `{"podResources":[]}`, true},
		{"GetAllocatableResources", `{"cpu_ids":[0,1]}`, true},
		{"numascope's allocatable member", `{"allocatable":{"cpuIds":[0]}}`, true},
		{"a quota counting pods", `{"kind":"ResourceQuota","spec":{"hard":{"pods":"10"}}}`, false},
		{"not JSON", `pods: [a]`, false},
		{"empty", ``, false},
	} {
		_, ok := podresources.Looks([]byte(tc.head))
		assert.Equal(t, tc.want, ok, tc.name)
	}
}
