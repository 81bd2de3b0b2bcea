package topotext

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemFS checks the listing tree against the io/fs contract.
func TestMemFS(t *testing.T) {
	m := newMemFS(map[string][]byte{
		"devices/system/node/node0/cpulist":                       []byte("0-3\n"),
		"devices/system/node/node1/cpulist":                       []byte("4-7\n"),
		"devices/system/cpu/cpu0/topology/thread_siblings_list":   []byte("0,4\n"),
		"devices/system/node/node0/hugepages/hugepages-2048kB/nr": []byte("1\n"),
	})
	require.NoError(t, fstest.TestFS(m, "devices/system/node/node0/cpulist", "devices/system/cpu/cpu0/topology/thread_siblings_list"))
}

// TestParseGo reads %+v text: values with spaces, nested lists and maps,
// empty values, elisions and a cut end.
func TestParseGo(t *testing.T) {
	v, p, err := parseGo(`{Timestamp:2025-03-05 09:14:01.98 +0000 UTC m=+0.10 Mac:aa:bb:cc Empty: Next:1 L:[0 48] M:map[8:0:{Name:sda} k:v] S:{A:1 ... B:2} P:&{X:3}}`)
	require.NoError(t, err)
	assert.False(t, p.cut)
	assert.Equal(t, "2025-03-05 09:14:01.98 +0000 UTC m=+0.10", v.field("Timestamp").scalar)
	assert.Equal(t, "aa:bb:cc", v.field("Mac").scalar)
	assert.Equal(t, "", v.field("Empty").scalar)
	assert.Equal(t, "1", v.field("Next").scalar)
	require.Len(t, v.field("L").items, 2)
	assert.Equal(t, "48", v.field("L").items[1].scalar)
	require.Len(t, v.field("M").items, 2)
	assert.Equal(t, "sda", v.field("M").items[0].fields[0].val.field("Name").scalar)
	assert.Equal(t, "2", v.field("S").field("B").scalar)
	assert.Equal(t, "3", v.field("P").field("X").scalar)

	v, p, err = parseGo(`&{8 4 2 map[0:{0 0 1}]}`)
	require.NoError(t, err)
	assert.False(t, p.cut)
	require.Len(t, v.items, 4)
	assert.Equal(t, "8", v.items[0].scalar)
	assert.Equal(t, "1", v.items[3].items[0].fields[0].val.items[2].scalar)

	v, p, err = parseGo(`{A:[{B:1} {B:2`)
	require.NoError(t, err)
	assert.True(t, p.cut)
	assert.Len(t, v.field("A").items, 2)

	_, _, err = parseGo(repeat("{A:", 100))
	require.ErrorIs(t, err, errGoBudget)
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestLines removes paste noise and keeps the text.
func TestLines(t *testing.T) {
	got := Lines([]byte("> ```\r\n> $ numactl -H\r\n>> \x1b[1mnode 0 cpus: 0\u00a01\x1b[0m\r\n[root@n1 ~]# lscpu\n# CPU,Core\n"))
	assert.Equal(t, []string{"", "", "node 0 cpus: 0 1", "", "# CPU,Core", ""}, got)
}
