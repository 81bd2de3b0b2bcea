package evidence

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindCutKlogHeader(t *testing.T) {
	tests := []struct {
		line   string
		ok     bool
		source string
		rest   string
	}{
		{`29867 server.go:292] "Failed to run kubelet" err="x"`, true, "server.go:292", `"Failed to run kubelet" err="x"`},
		{`   4410 container_manager_linux.go:346] msg`, true, "container_manager_linux.go:346", "msg"},
		{`4410 policy_static.go:114]`, true, "policy_static.go:114", ""},
		{`node 0 cpus: 0 1 2 3`, false, "", ""},
		{`2 replicas.go:3 is not a header`, false, "", ""},
		{`12345678901 x.go:1] too long a pid`, false, "", ""},
		{`42 file.py:1] not go`, false, "", ""},
		{`42 file.go:x] no line`, false, "", ""},
		{`x 42 file.go:1] not at the start`, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			h, ok := findCutKlogHeader(tt.line)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.source, h.source)
				assert.Equal(t, tt.rest, tt.line[h.end:])
				assert.Empty(t, h.severity)
			}
		})
	}
}
