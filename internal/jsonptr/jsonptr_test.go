package jsonptr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{"cpu": "cpu", "nvidia.com/gpu": "nvidia.com~1gpu", "a~b": "a~0b", "~/": "~0~1"} {
		assert.Equal(t, want, Escape(in), in)
	}
}
