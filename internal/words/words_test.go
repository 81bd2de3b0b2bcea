package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{0, "pod", nil, "0 pods"},
		{1, "pod", nil, "1 pod"},
		{2, "signal", nil, "2 signals"},
		{1, "entry", []string{"entries"}, "1 entry"},
		{3, "entry", []string{"entries"}, "3 entries"},
		{-1, "byte", nil, "-1 byte"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Count(tt.n, tt.one, tt.many...))
	}
}
