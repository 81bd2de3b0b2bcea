package diagnose

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is an exact Kubernetes resource quantity ("2", "500m", "1Gi",
// "1.5", "1e3"), kept as a rational number so fractional CPUs are never
// rounded away.
type Quantity struct {
	r *big.Rat
}

var quantitySuffixes = map[string]*big.Rat{
	"n": big.NewRat(1, 1_000_000_000), "u": big.NewRat(1, 1_000_000), "m": big.NewRat(1, 1000), "": big.NewRat(1, 1),
	"k": big.NewRat(1e3, 1), "M": big.NewRat(1e6, 1), "G": big.NewRat(1e9, 1), "T": big.NewRat(1e12, 1),
	"P": big.NewRat(1e15, 1), "E": big.NewRat(1e18, 1),
	"Ki": big.NewRat(1<<10, 1), "Mi": big.NewRat(1<<20, 1), "Gi": big.NewRat(1<<30, 1), "Ti": big.NewRat(1<<40, 1),
	"Pi": big.NewRat(1<<50, 1), "Ei": big.NewRat(1<<60, 1),
}

// ParseQuantity parses a Kubernetes quantity string.
func ParseQuantity(s string) (Quantity, error) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 64 {
		return Quantity{}, fmt.Errorf("quantity %q: want a number with an optional suffix such as 500m, 2, 1Gi", s)
	}
	i := 0
	if t[0] == '+' || t[0] == '-' {
		i++
	}
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, suffix := t[:i], t[i:]
	if num == "" || num == "+" || num == "-" || strings.Count(num, ".") > 1 {
		return Quantity{}, fmt.Errorf("quantity %q: want a number with an optional suffix such as 500m, 2, 1Gi", s)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return Quantity{}, fmt.Errorf("quantity %q: %q is not a number", s, num)
	}
	if mult, ok := quantitySuffixes[suffix]; ok {
		return Quantity{r.Mul(r, mult)}, nil
	}
	if suffix[0] == 'e' || suffix[0] == 'E' {
		exp, err := strconv.Atoi(suffix[1:])
		if err != nil || fmt.Sprint(exp) != strings.TrimPrefix(suffix[1:], "+") || exp > 30 || exp < -30 {
			return Quantity{}, fmt.Errorf("quantity %q: bad exponent %q", s, suffix)
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
		pr := new(big.Rat).SetInt(p)
		if exp < 0 {
			pr.Inv(pr)
		}
		return Quantity{r.Mul(r, pr)}, nil
	}
	return Quantity{}, fmt.Errorf("quantity %q: unknown suffix %q (use m, k, M, G, Ki, Mi, Gi, ...)", s, suffix)
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// IsZero reports whether the quantity is zero or unset.
func (q Quantity) IsZero() bool { return q.r == nil || q.r.Sign() == 0 }

// IsInteger reports whether the quantity is a whole number (2 but not 1500m).
func (q Quantity) IsInteger() bool { return q.r == nil || q.r.IsInt() }

// Int64 returns the value rounded up to a whole number, as the kubelet's
// Quantity.Value does.
func (q Quantity) Int64() int64 {
	if q.r == nil {
		return 0
	}
	n := new(big.Int).Quo(q.r.Num(), q.r.Denom())
	if !q.r.IsInt() && q.r.Sign() > 0 {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() {
		return 1<<63 - 1
	}
	return n.Int64()
}

// Cmp compares two quantities like big.Rat.Cmp.
func (q Quantity) Cmp(o Quantity) int {
	a, b := q.r, o.r
	if a == nil {
		a = new(big.Rat)
	}
	if b == nil {
		b = new(big.Rat)
	}
	return a.Cmp(b)
}

// String renders the quantity as a decimal number.
func (q Quantity) String() string {
	if q.r == nil {
		return "0"
	}
	if q.r.IsInt() {
		return q.r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(q.r.FloatString(3), "0"), ".")
}
