package topomgr

// The big.Rat implementation of Quantity that numascope used before its
// own decimal numbers, kept as the reference of TestQuantityMatchesBigRat
// and FuzzQuantityMatchesBigRat. (resource.ParseQuantity itself is the
// reference of internal/conformance's quantity tests.)

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a Kubernetes resource quantity ("2", "500m", "1Gi", "1e3"),
// held exactly: the value k8s.io/apimachinery's resource.ParseQuantity
// gives, as a rational number. The zero value is 0.
type refQuantity struct{ r *big.Rat }

var (
	refNano   = big.NewRat(1, 1_000_000_000)
	refMaxBin = new(big.Rat).SetInt64(1<<63 - 1)
	refBigTen = big.NewInt(10)
)

// ParseQuantity parses a Kubernetes quantity: an optionally signed decimal
// number and a suffix, binary (Ki..Ei), decimal (n, u, m, k, M..E) or an
// exponent (e3, E-2). It accepts and refuses exactly what
// resource.ParseQuantity does (no spaces, "1.", ".5" and a bare suffix such
// as "m" are accepted), and gives the same value: rounded up, away from
// zero, to a multiple of 1n, and binary quantities capped at 2^63-1. It
// also refuses exponents beyond 10^±1000 and quantities of more than 1000
// characters, which the API server would keep.
func refParseQuantity(str string) (refQuantity, error) {
	bad := func(why string) (refQuantity, error) {
		return refQuantity{}, fmt.Errorf("quantity %s: %w: %s (write e.g. 2, 500m, 1.5, 1Gi)", quoteCut(str), errQuantity, why)
	}
	if str == "" {
		return bad("empty")
	}
	if len(str) > maxQuantityLength {
		return bad(fmt.Sprintf("%d characters, more than numascope reads in one quantity (%d)", len(str), maxQuantityLength))
	}
	if str == "0" {
		return refQuantity{}, nil
	}
	positive, value, num, denom, suf, ok := splitQuantity(str)
	if !ok {
		return bad("unexpected characters")
	}
	var (
		binExp uint
		decExp int32
		isBin  bool
	)
	if e, ok := decSufs[suf]; ok {
		decExp = e
	} else if e, ok := binSufs[suf]; ok {
		binExp, isBin = e, true
	} else if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		e, err := strconv.ParseInt(suf[1:], 10, 64)
		if err != nil {
			return bad(fmt.Sprintf("unknown suffix %q", suf))
		}
		decExp = int32(e) // as the API server does, a larger exponent wraps
	} else {
		return bad(fmt.Sprintf("unknown suffix %q", suf))
	}

	// The API server's fast path: few enough digits for an int64.
	if !isBin {
		precision := 18 - int32(len(num)+len(denom))
		scale := decExp - int32(len(denom))
		if precision >= 0 && scale >= -9 {
			return refDecimalQuantity(str, positive, num+denom, int64(scale))
		}
	} else if len(denom) == 0 && 15-len(num)-int(float32(binExp)*3/10)-1 >= 0 {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return bad("not a number")
		}
		r := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(v), binExp))
		if r.Cmp(refMaxBin) > 0 {
			r.Set(refMaxBin)
		}
		if !positive {
			r.Neg(r)
		}
		return refQuantity{r}, nil
	}

	// The slow path: the digits as written, then the suffix.
	digits, scale, ok := scanDecimal(value)
	if !ok {
		return bad("not a number")
	}
	u := new(big.Int)
	if _, ok := u.SetString(digits, 10); !ok {
		return bad("not a number")
	}
	neg := u.Sign() < 0
	u.Abs(u)
	exp := -int64(scale)
	if !isBin {
		exp += int64(decExp)
	}
	if u.Sign() == 0 {
		return refQuantity{}, nil
	}
	if exp+int64(len(u.String())) < -9 {
		// Smaller than 1n: the API server rounds it up to 1n.
		r := new(big.Rat).Set(refNano)
		if neg {
			r.Neg(r)
		}
		return refQuantity{r}, nil
	}
	if exp > maxQuantityExponent || exp < -maxQuantityExponent {
		return bad(fmt.Sprintf("the exponent 10^%d is beyond what numascope holds (10^±%d)", exp, maxQuantityExponent))
	}
	r := new(big.Rat).SetInt(u)
	p := new(big.Rat).SetInt(new(big.Int).Exp(refBigTen, big.NewInt(refAbs64(exp)), nil))
	if exp >= 0 {
		r.Mul(r, p)
	} else {
		r.Quo(r, p)
	}
	if isBin {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), binExp)))
	}
	refRoundUpNano(r)
	if isBin && r.Cmp(refMaxBin) > 0 {
		r.Set(refMaxBin)
	}
	if neg {
		r.Neg(r)
	}
	return refQuantity{r}, nil
}

// decimalQuantity is digits × 10^scale, scale >= -9, with the sign.
func refDecimalQuantity(str string, positive bool, digits string, scale int64) (refQuantity, error) {
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return refQuantity{}, fmt.Errorf("quantity %s: %w: not a number", quoteCut(str), errQuantity)
	}
	if v == 0 {
		return refQuantity{}, nil
	}
	if scale > maxQuantityExponent {
		return refQuantity{}, fmt.Errorf("quantity %s: %w: the exponent 10^%d is beyond what numascope holds (10^±%d)", quoteCut(str), errQuantity, scale, maxQuantityExponent)
	}
	r := new(big.Rat).SetInt64(v)
	p := new(big.Rat).SetInt(new(big.Int).Exp(refBigTen, big.NewInt(refAbs64(scale)), nil))
	if scale >= 0 {
		r.Mul(r, p)
	} else {
		r.Quo(r, p)
	}
	if !positive {
		r.Neg(r)
	}
	return refQuantity{r}, nil
}

func refAbs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// roundUpNano rounds a non-negative r up to a multiple of 1n.
func refRoundUpNano(r *big.Rat) {
	n := new(big.Int).Mul(r.Num(), big.NewInt(1_000_000_000))
	q, m := new(big.Int).QuoRem(n, r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	r.SetFrac(q, big.NewInt(1_000_000_000))
}

// IsZero reports whether the quantity is zero (or unset).
func (q refQuantity) IsZero() bool { return q.r == nil || q.r.Sign() == 0 }

// Cmp compares two quantities: -1, 0 or +1.
func (q refQuantity) Cmp(o refQuantity) int { return q.rat().Cmp(o.rat()) }

func (q refQuantity) rat() *big.Rat {
	if q.r == nil {
		return new(big.Rat)
	}
	return q.r
}

// Value returns the quantity rounded up to an integer, as
// resource.Quantity.Value does, saturated at the int64 bounds.
func (q refQuantity) Value() int64 { return refCeilInt64(q.rat()) }

// MilliValue returns the quantity in thousandths, rounded up, saturated at
// the int64 bounds.
func (q refQuantity) MilliValue() int64 {
	return refCeilInt64(new(big.Rat).Mul(q.rat(), big.NewRat(1000, 1)))
}

// IsInteger reports whether the quantity is a whole number (2, not 1500m).
func (q refQuantity) IsInteger() bool { return q.rat().IsInt() }

// Add returns q+o.
func (q refQuantity) Add(o refQuantity) refQuantity {
	return refQuantity{new(big.Rat).Add(q.rat(), o.rat())}
}

// String renders the quantity as an exact decimal number that ParseQuantity
// reads back to the same value: "2", "1.5", "0.0015", "3.0001".
func (q refQuantity) String() string {
	r := q.rat()
	if r.IsInt() {
		s := r.Num().String()
		// Past 30 digits (no real request or limit), an exponent keeps the
		// text short enough for ParseQuantity to read back: 1e1000, not a
		// thousand zeros.
		if len(s) > 30 {
			mant := strings.TrimRight(s, "0")
			if zeros := len(s) - len(mant); zeros > 0 {
				return mant + "e" + strconv.Itoa(zeros)
			}
		}
		return s
	}
	// Every quantity is a multiple of 1n, so nine decimals are exact.
	s := strings.TrimRight(r.FloatString(9), "0")
	return strings.TrimSuffix(s, ".")
}

func refCeilInt64(r *big.Rat) int64 {
	n, d := r.Num(), r.Denom()
	quo, mod := new(big.Int).DivMod(n, d, new(big.Int))
	if mod.Sign() != 0 {
		quo.Add(quo, big.NewInt(1))
	}
	if !quo.IsInt64() {
		if quo.Sign() > 0 {
			return 1<<63 - 1
		}
		return -1 << 63
	}
	return quo.Int64()
}
