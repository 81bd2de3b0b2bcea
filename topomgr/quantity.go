package topomgr

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a Kubernetes resource quantity ("2", "500m", "1Gi", "1e3"),
// held exactly.
type Quantity struct{ r *big.Rat }

var quantitySuffixes = map[string]*big.Rat{
	"n": big.NewRat(1, 1000000000), "u": big.NewRat(1, 1000000), "m": big.NewRat(1, 1000), "": big.NewRat(1, 1),
	"k": big.NewRat(1000, 1), "M": big.NewRat(1000000, 1), "G": big.NewRat(1000000000, 1),
	"T":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil)),
	"P":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(15), nil)),
	"E":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)),
	"Ki": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 10)), "Mi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 20)),
	"Gi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 30)), "Ti": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 40)),
	"Pi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 50)), "Ei": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 60)),
}

// ParseQuantity parses a Kubernetes quantity: a signed decimal number with
// an optional binary (Ki..Ei), decimal (n..E) or exponent (e3) suffix.
func ParseQuantity(s string) (Quantity, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return Quantity{}, fmt.Errorf("quantity %q: empty", orig)
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		if s[i] != '.' {
			digits++
		}
		i++
	}
	num, suffix := s[:i], s[i:]
	if digits == 0 || strings.Count(num, ".") > 1 || len(num) > 80 {
		return Quantity{}, fmt.Errorf("quantity %q: not a number (e.g. 2, 500m, 1Gi)", orig)
	}
	r, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
	if !ok {
		return Quantity{}, fmt.Errorf("quantity %q: not a number (e.g. 2, 500m, 1Gi)", orig)
	}
	if mult, ok := quantitySuffixes[suffix]; ok {
		return Quantity{r.Mul(r, mult)}, nil
	}
	if suffix[0] == 'e' || suffix[0] == 'E' {
		if exp, err := strconv.Atoi(suffix[1:]); err == nil && fmt.Sprint(exp) == strings.TrimPrefix(suffix[1:], "+") && exp >= -30 && exp <= 30 {
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
			if exp >= 0 {
				return Quantity{r.Mul(r, new(big.Rat).SetInt(p))}, nil
			}
			return Quantity{r.Quo(r, new(big.Rat).SetInt(p))}, nil
		}
	}
	return Quantity{}, fmt.Errorf("quantity %q: unknown suffix %q (use m, k, M, G, Ki, Mi, Gi, ... or e<N>)", orig, suffix)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// IsZero reports whether the quantity is zero (or unset).
func (q Quantity) IsZero() bool { return q.r == nil || q.r.Sign() == 0 }

// Cmp compares two quantities.
func (q Quantity) Cmp(o Quantity) int { return q.rat().Cmp(o.rat()) }

func (q Quantity) rat() *big.Rat {
	if q.r == nil {
		return new(big.Rat)
	}
	return q.r
}

// Value returns the quantity rounded up to an integer, as Quantity.Value does.
func (q Quantity) Value() int64 { return ceilInt64(q.rat()) }

// MilliValue returns the quantity in thousandths, rounded up.
func (q Quantity) MilliValue() int64 {
	return ceilInt64(new(big.Rat).Mul(q.rat(), big.NewRat(1000, 1)))
}

// IsInteger reports whether the quantity is a whole number.
func (q Quantity) IsInteger() bool { return q.rat().IsInt() }

// Add returns q+o.
func (q Quantity) Add(o Quantity) Quantity { return Quantity{new(big.Rat).Add(q.rat(), o.rat())} }

// String renders the quantity as an exact decimal.
func (q Quantity) String() string { return q.rat().RatString() }

func ceilInt64(r *big.Rat) int64 {
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
