package nodebundle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTripAmongLogLines(t *testing.T) {
	in := &Bundle{Node: "n1", Files: []File{{Path: "cpu_manager_state", Data: []byte(`{"policyName":"none"}`)}, {Path: "sys/devices/system/node/node0/cpulist", Data: []byte("0-3\n")}}}
	var buf bytes.Buffer
	buf.WriteString(`{"level":"INFO","msg":"numascope agent started"}` + "\n")
	require.NoError(t, Write(&buf, in))
	buf.WriteString("a trailing line\n")
	got, err := Read(&buf, "pod log")
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(in, got))

	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, got.WriteDir(dir))
	data, err := os.ReadFile(filepath.Join(dir, "sys", "devices", "system", "node", "node0", "cpulist"))
	require.NoError(t, err)
	assert.Equal(t, "0-3\n", string(data))
	assert.ErrorContains(t, got.WriteDir(dir), "exists", "a second write never overwrites")
}

func TestReadRefuses(t *testing.T) {
	line := func(files string) string {
		return `{"schema":"` + Schema + `","node":"n","files":[` + files + `]}` + "\n"
	}
	many := strings.Repeat(`{"path":"a","data":""},`, MaxFiles+1)
	for _, tc := range []struct {
		name, log, want string
	}{
		{"no bundle", "just a log line\n", "no numascope.bundle/v1 line"},
		{"empty", "", "no numascope.bundle/v1 line"},
		{"absolute path", line(`{"path":"/etc/passwd","data":""}`), "not a clean relative path"},
		{"parent path", line(`{"path":"../x","data":""}`), "not a clean relative path"},
		{"unclean path", line(`{"path":"a/./b","data":""}`), "not a clean relative path"},
		{"duplicate", line(`{"path":"a","data":""},{"path":"a","data":""}`), "appears twice"},
		{"too many files", line(many[:len(many)-1]), "more than"},
		{"not json", `{"schema":"` + Schema + `", oops` + "\n", "not valid JSON"},
		{"bad base64", line(`{"path":"a","data":"!!"}`), "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.log), "the pod's log")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "the pod's log")
		})
	}
}

func TestReadRefusesAnOverlongLine(t *testing.T) {
	log := fmt.Sprintf(`{"schema":"%s","files":[{"path":"a","data":"%s"}]}`, Schema, strings.Repeat("A", MaxBytes+8))
	_, err := Read(strings.NewReader(log), "the pod's log")
	assert.ErrorContains(t, err, "longer than")
}
