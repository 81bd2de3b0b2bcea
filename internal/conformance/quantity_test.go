package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityCases are quantities as they appear in pod manifests, hand-picked
// around the edges of resource.ParseQuantity: signs, leading zeros, bare
// dots, every suffix, exponents, precision below a nano, overflow.
var quantityCases = []string{
	"0", "1", "2", "+2", "-2", "007", "0.5", ".5", "5.", "1.", ".", "+", "-", "", " ", " 2", "2 ", "\t2\n",
	"100m", "1500m", "1.5", "1.5m", "3.0001", "0.0001", "1n", "1u", "1.5n", "0.1n", "0.0000000001", "1.0000000001",
	"1k", "1K", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei", "1.5Gi", "0.5Ki", "1KI",
	"1e3", "1E3", "1e-3", "1e+3", "1e", "1E", "1ee3", "1e3.5", "1e03", "1.5e3", "1e18", "1e19", "1e-9", "1e-10",
	"9223372036854775807", "9223372036854775808", "99999999999999999999", "8Ei", "9Ei", "16Ei", "1e308",
	"1mi", "1 Mi", "1m m", "12a", "a", "0x10", "1_000", "1,5", "1.2.3", "--1", "+-1", "1-", "1+", "1e1e1",
	"2.000", "2.500000000", "0.000", "000.000", "128974848", "129e6", "129M", "123Mi", "5172Mi", "150Gi",
}

// compareQuantity returns how topomgr.ParseQuantity's reading of s differs
// from resource.ParseQuantity's, or "" when they agree: accept or reject,
// the exact value, Value and MilliValue, and that String reads back to the
// same value.
//
// Two differences are deliberate and not compared:
//   - Value or MilliValue of a quantity that does not fit an int64 in that
//     unit (1e19, or 1e16 in thousandths): resource.Quantity wraps around or
//     answers 0; numascope saturates at the int64 bounds. The exact values
//     still agree.
//   - Value and MilliValue of a negative quantity, which resource.Quantity
//     rounds inconsistently ("-0.5" has Value 1). The API server refuses
//     negative requests and limits, so no pod the kubelet sees has one.
func compareQuantity(s string) string {
	want, wantErr := resource.ParseQuantity(s)
	got, gotErr := topomgr.ParseQuantity(s)
	switch {
	case wantErr != nil && gotErr != nil:
		return ""
	case wantErr != nil:
		return fmt.Sprintf("%q: numascope accepts it as %s, the API server refuses it: %v", s, got, wantErr)
	case gotErr != nil:
		return fmt.Sprintf("%q: numascope refuses it (%v), the API server reads %s", s, gotErr, want.String())
	}
	var diffs []string
	exact := want.AsDec()
	if exact.Sign() >= 0 {
		if fitsInt64(exact, 0) {
			if g, w := got.Value(), want.Value(); g != w {
				diffs = append(diffs, fmt.Sprintf("Value %d, want %d", g, w))
			}
		}
		if fitsInt64(exact, 3) {
			if g, w := got.MilliValue(), want.MilliValue(); g != w {
				diffs = append(diffs, fmt.Sprintf("MilliValue %d, want %d", g, w))
			}
		}
	}
	back, err := resource.ParseQuantity(got.String())
	switch {
	case err != nil:
		diffs = append(diffs, fmt.Sprintf("String %q is not a quantity: %v", got.String(), err))
	case back.Cmp(want) != 0:
		diffs = append(diffs, fmt.Sprintf("String %q is %s, want %s", got.String(), back.String(), want.String()))
	}
	again, err := topomgr.ParseQuantity(got.String())
	if err != nil || again.Cmp(got) != 0 {
		diffs = append(diffs, fmt.Sprintf("String %q does not read back (%v)", got.String(), err))
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%q: %s", s, strings.Join(diffs, "; "))
}

// fitsInt64 reports whether d times 10^shift, rounded up, fits an int64.
func fitsInt64(d *inf.Dec, shift int) bool {
	scaled := new(inf.Dec).Set(d)
	scaled.SetScale(scaled.Scale() - inf.Scale(shift))
	limit := inf.NewDec(math.MaxInt64, 0)
	return scaled.Cmp(limit) < 0
}

func TestQuantityAgainstAPIServer(t *testing.T) {
	for _, s := range quantityCases {
		t.Run(s, func(t *testing.T) {
			assert.Empty(t, compareQuantity(s))
		})
	}
}

// randomQuantity builds a quantity-like string: mostly well formed, with a
// few malformed pieces mixed in.
func randomQuantity(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(6) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	digits := func(n int) {
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	digits(r.IntN(12))
	if r.IntN(3) == 0 {
		b.WriteByte('.')
		digits(r.IntN(12))
	}
	suffixes := []string{"", "", "", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e", "E", "x", "mi", "KI"}
	b.WriteString(suffixes[r.IntN(len(suffixes))])
	if s := b.String(); strings.HasSuffix(s, "e") || strings.HasSuffix(s, "E") {
		if r.IntN(4) == 0 {
			b.WriteByte("+-"[r.IntN(2)])
		}
		digits(r.IntN(3))
	}
	return b.String()
}

func TestQuantityRandomAgainstAPIServer(t *testing.T) {
	r := rand.New(rand.NewPCG(42, uint64(randomCount())))
	disagree := 0
	const n = 20000
	for range n {
		s := randomQuantity(r)
		if d := compareQuantity(s); d != "" {
			disagree++
			if disagree <= 20 {
				t.Error(d)
			}
		}
	}
	t.Logf("%d random quantities, %d disagreements with the API server", n, disagree)
}

// FuzzQuantityAgainstAPIServer compares numascope's quantities with the API
// server's on any string. Exponents far outside what a manifest holds make
// the reference itself slow, so the fuzzer keeps to strings of at most 40
// bytes.
func FuzzQuantityAgainstAPIServer(f *testing.F) {
	for _, s := range quantityCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 40 {
			return
		}
		fuzzbudget.Run(t, func() {
			assert.Empty(t, compareQuantity(s), "numascope against resource.ParseQuantity")
		})
	})
}
