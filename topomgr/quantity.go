package topomgr

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Quantity is a Kubernetes resource quantity ("2", "500m", "1Gi", "1e3"),
// held exactly: the value k8s.io/apimachinery's resource.ParseQuantity
// gives. Every such value is a whole number of nano-units (the API server
// rounds up to 1n), which Quantity keeps as a decimal number of any size.
// The zero value is 0.
type Quantity struct{ v *nanos }

// nanos is a quantity in nano-units: a sign and the magnitude.
type nanos struct {
	neg bool
	mag nat
}

// errQuantity is wrapped by every error of ParseQuantity.
var errQuantity = errors.New("not a Kubernetes quantity")

// maxQuantityExponent bounds the decimal exponent numascope holds. The API
// server keeps 1e1000000000 as a number with an exponent; numascope holds
// quantities exactly and refuses exponents past this bound, with an error
// that says so, instead of building a number of a billion digits.
const maxQuantityExponent = 1000

// maxQuantityLength bounds a quantity's text: decimal conversion of a
// number of millions of digits takes minutes. The API server has no such
// bound; no real quantity comes near it.
const maxQuantityLength = 1000

var (
	binSufs = map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	decSufs = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	// maxBinNanos is 2^63-1, the cap of binary quantities, in nano-units.
	maxBinNanos = natFromUint64(math.MaxInt64).shiftLimbs(1)
)

// quantity builds a Quantity from a sign and a magnitude in nano-units.
func quantity(neg bool, mag nat) Quantity {
	if len(mag) == 0 {
		return Quantity{}
	}
	return Quantity{&nanos{neg: neg, mag: mag}}
}

// ParseQuantity parses a Kubernetes quantity: an optionally signed decimal
// number and a suffix, binary (Ki..Ei), decimal (n, u, m, k, M..E) or an
// exponent (e3, E-2). It accepts and refuses exactly what
// resource.ParseQuantity does (no spaces, "1.", ".5" and a bare suffix such
// as "m" are accepted), and gives the same value: rounded up, away from
// zero, to a multiple of 1n, and binary quantities capped at 2^63-1. It
// also refuses exponents beyond 10^±1000 and quantities of more than 1000
// characters, which the API server would keep.
func ParseQuantity(str string) (Quantity, error) {
	bad := func(why string) (Quantity, error) {
		return Quantity{}, fmt.Errorf("quantity %s: %w: %s (write e.g. 2, 500m, 1.5, 1Gi)", quoteCut(str), errQuantity, why)
	}
	if str == "" {
		return bad("empty")
	}
	if len(str) > maxQuantityLength {
		return bad(fmt.Sprintf("%d characters, more than numascope reads in one quantity (%d)", len(str), maxQuantityLength))
	}
	if str == "0" {
		return Quantity{}, nil
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
			return decimalQuantity(str, positive, num+denom, int64(scale))
		}
	} else if len(denom) == 0 && 15-len(num)-int(float32(binExp)*3/10)-1 >= 0 {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return bad("not a number")
		}
		// v << binExp, capped at 2^63-1.
		units := uint64(math.MaxInt64)
		if v == 0 || uint(bits.Len64(uint64(v)))+binExp <= 63 {
			units = uint64(v) << binExp
		}
		return quantity(!positive, natFromUint64(units).shiftLimbs(1)), nil
	}

	// The slow path: the digits as written, then the suffix.
	digits, scale, ok := scanDecimal(value)
	if !ok {
		return bad("not a number")
	}
	neg := digits[0] == '-'
	digits = strings.TrimLeft(strings.TrimLeft(digits, "+-"), "0")
	if digits == "" {
		return Quantity{}, nil
	}
	exp := -int64(scale)
	if !isBin {
		exp += int64(decExp)
	}
	if exp+int64(len(digits)) < -9 {
		// Smaller than 1n: the API server rounds it up to 1n.
		return quantity(neg, nat{1}), nil
	}
	if exp > maxQuantityExponent || exp < -maxQuantityExponent {
		return bad(fmt.Sprintf("the exponent 10^%d is beyond what numascope holds (10^±%d)", exp, maxQuantityExponent))
	}
	// digits × 2^binExp × 10^(exp+9) nano-units, rounded up.
	u := natFromDecimal(digits)
	if isBin {
		u = u.mulPow2(binExp)
	}
	if e := exp + 9; e >= 0 {
		u = u.mulPow10(int(e))
	} else {
		u = u.divPow10Ceil(int(-e))
	}
	if isBin && u.cmp(maxBinNanos) > 0 {
		u = maxBinNanos
	}
	return quantity(neg, u), nil
}

// decimalQuantity is digits × 10^scale, scale >= -9, with the sign.
func decimalQuantity(str string, positive bool, digits string, scale int64) (Quantity, error) {
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return Quantity{}, fmt.Errorf("quantity %s: %w: not a number", quoteCut(str), errQuantity)
	}
	if v == 0 {
		return Quantity{}, nil
	}
	if scale > maxQuantityExponent {
		return Quantity{}, fmt.Errorf("quantity %s: %w: the exponent 10^%d is beyond what numascope holds (10^±%d)", quoteCut(str), errQuantity, scale, maxQuantityExponent)
	}
	return quantity(!positive, natFromUint64(uint64(v)).mulPow10(int(scale+9))), nil
}

// splitQuantity splits str as the API server's parseQuantityString does.
func splitQuantity(str string) (positive bool, value, num, denom, suffix string, ok bool) {
	positive = true
	pos, end := 0, len(str)
	if pos < end {
		switch str[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for ; ; pos++ { // leading zeros
		if pos >= end {
			return positive, "0", "0", "", "", true
		}
		if str[pos] != '0' {
			break
		}
	}
	i := pos
	for i < end && isDigit(str[i]) {
		i++
	}
	num = str[pos:i]
	if i >= end {
		return positive, str, num, "", "", true
	}
	pos = i
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		i = pos
		for i < end && isDigit(str[i]) {
			i++
		}
		denom = str[pos:i]
		if i >= end {
			return positive, str, num, denom, "", true
		}
		pos = i
	}
	value = str[:pos]
	start := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	if pos < end {
		return false, "", "", "", "", false
	}
	return positive, value, num, denom, str[start:], true
}

// scanDecimal reads a signed decimal with an optional point as inf.Dec
// does: it needs one digit at least. It returns the digits (with the sign)
// and the number of digits after the point.
func scanDecimal(s string) (digits string, scale int, ok bool) {
	var b strings.Builder
	dot, seen := -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == '+' || c == '-') && i == 0:
		case c == '.' && dot < 0:
			dot = b.Len()
			continue
		case isDigit(c):
			seen = true
		default:
			return "", 0, false
		}
		b.WriteByte(c)
	}
	if !seen {
		return "", 0, false
	}
	d := b.String()
	if dot >= 0 {
		scale = len(d) - dot
	}
	return d, scale, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func quoteCut(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}

func (q Quantity) parts() (neg bool, mag nat) {
	if q.v == nil {
		return false, nil
	}
	return q.v.neg, q.v.mag
}

// Sign returns -1, 0 or +1 as the quantity is negative, zero or positive.
func (q Quantity) Sign() int {
	neg, mag := q.parts()
	switch {
	case len(mag) == 0:
		return 0
	case neg:
		return -1
	}
	return 1
}

// IsZero reports whether the quantity is zero (or unset).
func (q Quantity) IsZero() bool { return q.v == nil || len(q.v.mag) == 0 }

// Cmp compares two quantities: -1, 0 or +1.
func (q Quantity) Cmp(o Quantity) int {
	_, qm := q.parts()
	_, om := o.parts()
	qs, os := q.Sign(), o.Sign()
	switch {
	case qs != os:
		if qs < os {
			return -1
		}
		return 1
	case qs < 0:
		return om.cmp(qm)
	}
	return qm.cmp(om)
}

// Value returns the quantity rounded up to an integer, as
// resource.Quantity.Value does, saturated at the int64 bounds.
func (q Quantity) Value() int64 { return q.ceilDiv(9) }

// MilliValue returns the quantity in thousandths, rounded up, saturated at
// the int64 bounds.
func (q Quantity) MilliValue() int64 { return q.ceilDiv(6) }

// ceilDiv is the quantity in nano-units divided by 10^k, rounded up
// (towards +∞), saturated at the int64 bounds.
func (q Quantity) ceilDiv(k int) int64 {
	neg, mag := q.parts()
	quo, exact := mag.divPow10(k)
	if !neg && !exact {
		quo = quo.add(nat{1})
	}
	u, ok := quo.uint64()
	switch {
	case neg && (!ok || u > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(u) // u <= 2^63: -2^63 wraps to itself, as wanted
	case !ok || u > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(u)
}

// IsInteger reports whether the quantity is a whole number (2, not 1500m).
func (q Quantity) IsInteger() bool {
	_, mag := q.parts()
	return len(mag) == 0 || mag[0] == 0
}

// Add returns q+o.
func (q Quantity) Add(o Quantity) Quantity {
	qn, qm := q.parts()
	on, om := o.parts()
	if qn == on {
		return quantity(qn, qm.add(om))
	}
	if qm.cmp(om) >= 0 {
		return quantity(qn, qm.sub(om))
	}
	return quantity(on, om.sub(qm))
}

// String renders the quantity as an exact decimal number that ParseQuantity
// reads back to the same value: "2", "1.5", "0.0015", "3.0001".
func (q Quantity) String() string {
	neg, mag := q.parts()
	sign := ""
	if neg && len(mag) > 0 {
		sign = "-"
	}
	var frac uint32
	if len(mag) > 0 {
		frac = mag[0]
	}
	units := nat(nil)
	if len(mag) > 1 {
		units = mag[1:]
	}
	if frac == 0 {
		s := sign + units.String()
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
	f := strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	return sign + units.String() + "." + f
}

// nat is a natural number in base 10^9, least significant limb first, with
// no zero limb at the top (0 is the empty nat). Base 10^9 makes the lowest
// limb of a quantity in nano-units its fraction, and decimal text cheap.
type nat []uint32

const natBase = 1_000_000_000

var pow10 = [...]uint32{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

func (z nat) norm() nat {
	for len(z) > 0 && z[len(z)-1] == 0 {
		z = z[:len(z)-1]
	}
	return z
}

func natFromUint64(v uint64) nat {
	var z nat
	for v > 0 {
		z = append(z, uint32(v%natBase))
		v /= natBase
	}
	return z
}

// natFromDecimal reads decimal digits (only '0'..'9').
func natFromDecimal(s string) nat {
	z := make(nat, 0, len(s)/9+1)
	for end := len(s); end > 0; end -= 9 {
		var limb uint32
		for _, c := range []byte(s[max(0, end-9):end]) {
			limb = limb*10 + uint32(c-'0')
		}
		z = append(z, limb)
	}
	return z.norm()
}

// uint64 returns z when it fits.
func (z nat) uint64() (uint64, bool) {
	var v uint64
	for i := len(z) - 1; i >= 0; i-- {
		hi, lo := bits.Mul64(v, natBase)
		if hi != 0 {
			return 0, false
		}
		sum, carry := bits.Add64(lo, uint64(z[i]), 0)
		if carry != 0 {
			return 0, false
		}
		v = sum
	}
	return v, true
}

func (z nat) cmp(o nat) int {
	if len(z) != len(o) {
		if len(z) < len(o) {
			return -1
		}
		return 1
	}
	for i := len(z) - 1; i >= 0; i-- {
		if z[i] != o[i] {
			if z[i] < o[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (z nat) add(o nat) nat {
	if len(z) < len(o) {
		z, o = o, z
	}
	out := make(nat, len(z)+1)
	var carry uint32
	for i := range z {
		s := z[i] + carry
		if i < len(o) {
			s += o[i]
		}
		carry = 0
		if s >= natBase {
			s -= natBase
			carry = 1
		}
		out[i] = s
	}
	out[len(z)] = carry
	return out.norm()
}

// sub returns z-o for z >= o.
func (z nat) sub(o nat) nat {
	out := make(nat, len(z))
	var borrow uint32
	for i := range z {
		d := int64(z[i]) - int64(borrow)
		if i < len(o) {
			d -= int64(o[i])
		}
		borrow = 0
		if d < 0 {
			d += natBase
			borrow = 1
		}
		out[i] = uint32(d)
	}
	return out.norm()
}

// mulSmall returns z×m for m <= 10^9.
func (z nat) mulSmall(m uint32) nat {
	if len(z) == 0 || m == 0 {
		return nil
	}
	out := make(nat, len(z)+1)
	var carry uint64
	for i, limb := range z {
		p := uint64(limb)*uint64(m) + carry
		out[i] = uint32(p % natBase)
		carry = p / natBase
	}
	out[len(z)] = uint32(carry)
	return out.norm()
}

// mul returns z×o.
func (z nat) mul(o nat) nat {
	if len(z) == 0 || len(o) == 0 {
		return nil
	}
	acc := make([]uint64, len(z)+len(o)+1)
	for i, a := range z {
		var carry uint64
		for j, b := range o {
			p := acc[i+j] + uint64(a)*uint64(b) + carry
			acc[i+j] = p % natBase
			carry = p / natBase
		}
		for k := i + len(o); carry > 0; k++ {
			p := acc[k] + carry
			acc[k] = p % natBase
			carry = p / natBase
		}
	}
	out := make(nat, len(acc))
	for i, v := range acc {
		out[i] = uint32(v)
	}
	return out.norm()
}

// shiftLimbs returns z×10^(9n).
func (z nat) shiftLimbs(n int) nat {
	if len(z) == 0 {
		return nil
	}
	return append(make(nat, n, n+len(z)), z...)
}

// mulPow10 returns z×10^k for k >= 0.
func (z nat) mulPow10(k int) nat {
	return z.shiftLimbs(k / 9).mulSmall(pow10[k%9])
}

// mulPow2 returns z×2^k.
func (z nat) mulPow2(k uint) nat {
	for ; k > 29; k -= 29 {
		z = z.mulSmall(1 << 29)
	}
	return z.mulSmall(1 << k)
}

// divPow10 returns z/10^k rounded down, and whether the division was exact.
func (z nat) divPow10(k int) (nat, bool) {
	drop := k / 9
	if drop >= len(z) {
		return nil, len(z) == 0
	}
	exact := true
	for _, limb := range z[:drop] {
		if limb != 0 {
			exact = false
		}
	}
	d := uint64(pow10[k%9])
	out := make(nat, len(z)-drop)
	var rem uint64
	for i := len(z) - 1; i >= drop; i-- {
		cur := rem*natBase + uint64(z[i])
		out[i-drop] = uint32(cur / d)
		rem = cur % d
	}
	return out.norm(), exact && rem == 0
}

// divPow10Ceil returns z/10^k rounded up.
func (z nat) divPow10Ceil(k int) nat {
	q, exact := z.divPow10(k)
	if !exact {
		q = q.add(nat{1})
	}
	return q
}

func (z nat) String() string {
	if len(z) == 0 {
		return "0"
	}
	b := strconv.AppendUint(make([]byte, 0, len(z)*9), uint64(z[len(z)-1]), 10)
	for i := len(z) - 2; i >= 0; i-- {
		var limb [9]byte
		v := z[i]
		for j := 8; j >= 0; j-- {
			limb[j] = byte('0' + v%10)
			v /= 10
		}
		b = append(b, limb[:]...)
	}
	return string(b)
}
