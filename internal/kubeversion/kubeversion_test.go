package kubeversion

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMinor(t *testing.T) {
	for _, tc := range []struct {
		in      string
		minor   int
		errText string
	}{
		{in: "", minor: 37},
		{in: "  ", minor: 37},
		{in: "1.30", minor: 30},
		{in: "v1.30.4", minor: 30},
		{in: "v1.30.4-gke.100", minor: 30},
		{in: "Kubernetes v1.28.15", minor: 28},
		{in: "1.27", errText: `kubelet version "1.27" is outside the supported range; numascope knows the restore code of kubelet 1.28 to 1.37`},
		{in: "2.0", errText: "outside the supported range"},
		{in: "1.99999999999999999999", errText: "outside the supported range"},
		{in: "thirty", errText: `kubelet version "thirty" is not a version`},
		{in: strings.Repeat("9", 100), errText: "(100 bytes) is not a version"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Minor(tc.in, 28, 37, "the restore code")
			if tc.errText != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errText)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.minor, got)
		})
	}
}
