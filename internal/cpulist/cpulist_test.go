package cpulist

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
		large   bool
	}{
		{in: "", want: nil},
		{in: "0", want: []int{0}},
		{in: "0-3,8,10-11", want: []int{0, 1, 2, 3, 8, 10, 11}},
		{in: "3,1,1-2", want: []int{1, 2, 3}},
		{in: "+1", want: []int{1}},
		{in: "65535", want: []int{65535}},
		{in: "65536", wantErr: "above the largest CPU id 65535", large: true},
		{in: "0-9223372036854775807", wantErr: "above the largest CPU id", large: true},
		{in: "99999999999999999999", wantErr: "above the largest CPU id", large: true},
		{in: "3-1", wantErr: "the start is after the end"},
		{in: "-1", wantErr: "is not a CPU id"},
		{in: "1-2-3", wantErr: "is not a CPU id"},
		{in: "a", wantErr: "is not a CPU id"},
		{in: ",", wantErr: "is not a CPU id"},
		{in: " 1", wantErr: "is not a CPU id"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Equal(t, tt.large, errorsIsTooLarge(err))
				if !tt.large { // cpuset.Parse would hang on the large ones
					_, upstream := cpuset.Parse(tt.in)
					assert.Error(t, upstream, "cpuset.Parse accepts what Parse refuses")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, cpuset.New(tt.want...).String(), got.String())
			up, err := cpuset.Parse(tt.in)
			require.NoError(t, err)
			assert.True(t, up.Equals(got))
		})
	}
}

func TestParseTotalCap(t *testing.T) {
	ranges := make([]string, 64)
	for i := range ranges {
		ranges[i] = "0-65535"
	}
	_, err := ParseWithLimits(strings.Join(ranges, ","), Limits{MaxCPUs: 100000})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 100000 CPUs in all")
	n, err := Count(strings.Join(ranges, ","), 0)
	require.NoError(t, err)
	assert.Equal(t, 64*65536, n)
}

func errorsIsTooLarge(err error) bool { return errors.Is(err, ErrTooLarge) }

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0-3,8", "0-9223372036854775807", "1-2-3", "+5,7-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			got, err := Parse(s)
			if err != nil {
				return
			}
			up, uerr := cpuset.Parse(s)
			require.NoError(t, uerr, "Parse(%q) accepts what cpuset.Parse refuses", s)
			require.True(t, up.Equals(got), "Parse(%q) = %s, cpuset.Parse = %s", s, got, up)
		})
	})
}

func TestParseLargestIntRange(t *testing.T) {
	_, err := ParseWithLimits("0-9223372036854775807", Limits{MaxID: math.MaxInt, MaxCPUs: 1 << 18})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooLarge)
	_, err = ParseWithLimits("5,9223372036854775807-9223372036854775807", Limits{MaxID: math.MaxInt})
	require.NoError(t, err)
	n, err := Count("0-9223372036854775807,1-2", math.MaxInt)
	require.NoError(t, err)
	assert.Equal(t, math.MaxInt, n)
}
