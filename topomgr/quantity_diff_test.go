package topomgr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quantityDiffCases are quantities around every path of ParseQuantity: the
// int64 fast paths, binary suffixes and their cap, the slow path with
// exponents, fractions below 1n, signs and malformed text.
var quantityDiffCases = []string{
	"0", "1", "2", "+2", "-2", "007", "0.5", ".5", "5.", "1.", ".", "+", "-", "", "-0", "+0.000", "-0.0000000001",
	"100m", "1500m", "1.5", "1.5m", "3.0001", "0.0001", "1n", "1u", "1.5n", "0.1n", "0.0000000001", "1.0000000001",
	"-1.5", "-0.5", "-1500m", "-1.0000000001", "-1n", "-0.1n",
	"1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei", "1.5Gi", "0.5Ki", "-1.5Gi", "-8Ei",
	"1e3", "1E3", "1e-3", "1e+3", "1e3.5", "1e03", "1.5e3", "1e18", "1e19", "1e-9", "1e-10", "-1e-10", "1e-1000", "1e1000", "1e1001",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999",
	"8Ei", "9Ei", "16Ei", "1e308", "123456789012345678901234567890", "1234567890123456789012345678901",
	"0.123456789123456789", "123456789.123456789", "9999999999999999999.999999999", "7.999999999999999999Ei",
	"1000000000000000Ki", "999999999999999Ki", "123456789012345Ei", "1.000000001Ki", "0.0000000001Ki",
	"9223372036854775.807", "9223372036854775.808", "9223372036854775807m", "9223372036854775808m", "-9223372036854775809m",
	"1mi", "1 Mi", "12a", "a", "0x10", "1_000", "1,5", "1.2.3", "--1", "+-1", "1e1e1", "2.000", "2.500000000",
	"128974848", "129e6", "129M", "123Mi", "5172Mi", "150Gi", strings.Repeat("9", 999) + "n", strings.Repeat("1", 1001),
}

// compareWithBigRat returns how ParseQuantity's reading of s differs from the
// big.Rat implementation's, or "" when every method agrees.
func compareWithBigRat(s string) string {
	want, wantErr := refParseQuantity(s)
	got, gotErr := ParseQuantity(s)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		return fmt.Sprintf("%q: error %v, want %v", s, gotErr, wantErr)
	case wantErr != nil:
		if gotErr.Error() != wantErr.Error() {
			return fmt.Sprintf("%q: error %q, want %q", s, gotErr, wantErr)
		}
		return ""
	}
	var diffs []string
	check := func(what string, g, w any) {
		if g != w {
			diffs = append(diffs, fmt.Sprintf("%s %v, want %v", what, g, w))
		}
	}
	check("String", got.String(), want.String())
	check("Value", got.Value(), want.Value())
	check("MilliValue", got.MilliValue(), want.MilliValue())
	check("IsInteger", got.IsInteger(), want.IsInteger())
	check("IsZero", got.IsZero(), want.IsZero())
	check("Sign", got.Sign(), want.rat().Sign())
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%q: %s", s, strings.Join(diffs, "; "))
}

// compareArithmetic compares Cmp and Add of two quantities with big.Rat's.
func compareArithmetic(a, b string) string {
	ra, err1 := refParseQuantity(a)
	rb, err2 := refParseQuantity(b)
	qa, err3 := ParseQuantity(a)
	qb, err4 := ParseQuantity(b)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return ""
	}
	if g, w := qa.Cmp(qb), ra.Cmp(rb); g != w {
		return fmt.Sprintf("Cmp(%q, %q) = %d, want %d", a, b, g, w)
	}
	sum, rsum := qa.Add(qb), ra.Add(rb)
	if g, w := sum.String(), rsum.String(); g != w {
		return fmt.Sprintf("Add(%q, %q) = %s, want %s", a, b, g, w)
	}
	if g, w := sum.Value(), rsum.Value(); g != w {
		return fmt.Sprintf("Add(%q, %q).Value() = %d, want %d", a, b, g, w)
	}
	return ""
}

func TestQuantityMatchesBigRat(t *testing.T) {
	for _, s := range quantityDiffCases {
		assert.Empty(t, compareWithBigRat(s))
	}
	for _, a := range quantityDiffCases {
		for _, b := range quantityDiffCases {
			assert.Empty(t, compareArithmetic(a, b))
		}
	}
	var zero Quantity
	assert.Equal(t, "0", zero.String())
	assert.Zero(t, zero.Cmp(Quantity{}))
	assert.True(t, zero.IsInteger())
}

func FuzzQuantityMatchesBigRat(f *testing.F) {
	for i, s := range quantityDiffCases {
		f.Add(s, quantityDiffCases[(i*7+3)%len(quantityDiffCases)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		fuzzbudget.Run(t, func() {
			assert.Empty(t, compareWithBigRat(a))
			assert.Empty(t, compareArithmetic(a, b))
		})
	})
}

func TestCombinationCountMatchesBigInt(t *testing.T) {
	for _, lens := range [][]uint64{{}, {0}, {1}, {3, 4}, {255, 255, 255}, {65535, 65535, 65535, 65535, 65535}, {1 << 40, 1 << 40, 999999999, 1000000000, 1000000001}} {
		count, want := nat{1}, big.NewInt(1)
		for _, n := range lens {
			count = count.mul(natFromUint64(n))
			want.Mul(want, new(big.Int).SetUint64(n))
		}
		c := combinationCount(count)
		assert.Equal(t, want.String(), c.String(), "%v", lens)
		wantInt := int64(math.MaxInt64)
		if want.IsInt64() {
			wantInt = want.Int64()
		}
		assert.Equal(t, wantInt, c.Int64(), "%v", lens)
		b, err := json.Marshal(MergeReport{Combinations: c})
		require.NoError(t, err)
		var back MergeReport
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, want.String(), back.Combinations.String(), "%v through JSON", lens)
	}
	var c combinationCount
	for _, bad := range []string{`"1"`, `-1`, `1.5`, `1e3`, ``, `null`} {
		assert.Error(t, c.UnmarshalJSON([]byte(bad)), bad)
	}
}
