package podresources

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestByteQuantity(t *testing.T) {
	for _, tc := range []struct {
		in   uint64
		want string
	}{
		{0, "0"}, {1, "1"}, {1024, "1Ki"}, {3 << 20, "3Mi"}, {1 << 30, "1Gi"}, {1<<30 + 1, "1073741825"}, {2 << 40, "2Ti"},
	} {
		assert.Equal(t, tc.want, byteQuantity(tc.in), "byteQuantity(%d)", tc.in)
	}
}
