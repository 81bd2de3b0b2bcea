package topomgr

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBitMaskString(t *testing.T) {
	for _, c := range []struct {
		ids  []int
		want string
	}{
		{nil, "00"}, {[]int{0}, "01"}, {[]int{1}, "10"}, {[]int{0, 1}, "11"}, {[]int{2}, "100"}, {[]int{0, 2}, "0101"},
		{[]int{63}, "1000000000000000000000000000000000000000000000000000000000000000"},
	} {
		assert.Equal(t, c.want, mask(c.ids...).String(), "%v", c.ids)
	}
	_, err := NewBitMask(64)
	assert.Error(t, err, "NUMA node 64 accepted")
}

func TestIterateBitMasksOrder(t *testing.T) {
	var got []BitMask
	IterateBitMasks([]int{0, 1, 2}, func(m BitMask) { got = append(got, m) })
	want := []BitMask{mask(0), mask(1), mask(2), mask(0, 1), mask(0, 2), mask(1, 2), mask(0, 1, 2)}
	assert.Equal(t, want, got, "masks in the kubelet's order")
}

func TestPolicyOptionsErrors(t *testing.T) {
	for opts, want := range map[string]string{
		"max-allowable-numa-nodes=7":      `the minimum value of "max-allowable-numa-nodes" should not be less than 8`,
		"max-allowable-numa-nodes=x":      `unable to convert policy option to integer "max-allowable-numa-nodes"`,
		"prefer-closest-numa-nodes=maybe": `bad value for option "prefer-closest-numa-nodes"`,
		"bogus=1":                         `unknown Topology Manager Policy option: "bogus"`,
	} {
		var k, v string
		for i := range opts {
			if opts[i] == '=' {
				k, v = opts[:i], opts[i+1:]
				break
			}
		}
		_, err := NewPolicyOptions(map[string]string{k: v})
		if assert.Error(t, err, "%s", opts) {
			assert.True(t, strings.HasPrefix(err.Error(), want), "%s: %v, want %q...", opts, err, want)
		}
	}
}
