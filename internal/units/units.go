// Package units is numascope's one owner of byte counts as people read and
// write them: the size flags of every command (ParseSize, Flag), sizes in
// messages (Bytes: "1.5 MiB"), exact figures beside them (Exact:
// "68719476736 bytes (64 GiB)") and sizes in the Kubernetes spelling a
// node engineer writes in a pod or a KubeletConfiguration (Quantity:
// "5220Mi").
package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// suffixes are the units ParseSize reads, case-sensitive as Kubernetes
// quantities are: binary with or without a trailing B (Ki, KiB, ... Pi),
// decimal as in a quantity (k, M, G, T, P) or with a B (kB, KB, MB, ...).
var suffixes = []struct {
	s    string
	mult float64
	bin  int64
}{
	{"KiB", 0, 1 << 10}, {"MiB", 0, 1 << 20}, {"GiB", 0, 1 << 30}, {"TiB", 0, 1 << 40}, {"PiB", 0, 1 << 50},
	{"Ki", 0, 1 << 10}, {"Mi", 0, 1 << 20}, {"Gi", 0, 1 << 30}, {"Ti", 0, 1 << 40}, {"Pi", 0, 1 << 50},
	{"kB", 1e3, 0}, {"KB", 1e3, 0}, {"MB", 1e6, 0}, {"GB", 1e9, 0}, {"TB", 1e12, 0}, {"PB", 1e15, 0},
	{"k", 1e3, 0}, {"M", 1e6, 0}, {"G", 1e9, 0}, {"T", 1e12, 0}, {"P", 1e15, 0},
	{"B", 0, 1},
}

// ErrSize is wrapped by every error of ParseSize.
var ErrSize = errors.New("not a size")

// maxSizeText bounds the text ParseSize looks at.
const maxSizeText = 64

// ParseSize reads a byte count: a whole or decimal number and an optional
// unit, binary (4Mi, 4MiB, 1.5Gi) or decimal (200G, 200GB, 10k), spaces
// allowed between them. The result must be a whole number of bytes between
// 0 and 2^62. The units are the ones of Kubernetes quantities (M is 10^6,
// Mi is 2^20) with an optional B.
func ParseSize(s string) (int64, error) {
	bad := func(why string) (int64, error) {
		t := s
		if len(t) > maxSizeText {
			t = t[:maxSizeText] + "…"
		}
		return 0, fmt.Errorf("%q: %w: %s (give a byte count such as 4194304, 4096Ki, 512MiB, 1.5Gi or 200GB)", t, ErrSize, why)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return bad("empty")
	}
	if len(t) > maxSizeText {
		return bad("too long")
	}
	var bin int64 = 1
	dec := 0.0
	for _, u := range suffixes {
		if rest, ok := strings.CutSuffix(t, u.s); ok && rest != "" {
			t, bin, dec = strings.TrimSpace(rest), u.bin, u.mult
			break
		}
	}
	whole, frac, hasFrac := strings.Cut(t, ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) || hasFrac && frac == "" {
		return bad("not a number with a unit")
	}
	w, err := strconv.ParseInt(whole0(whole), 10, 64)
	if err != nil {
		return bad("too large")
	}
	mult := bin
	if dec != 0 {
		mult = int64(dec)
	}
	const maxSize = 1 << 62
	if w > maxSize/mult {
		return bad("more than 2^62 bytes")
	}
	n := w * mult
	if frac != "" {
		// The fraction times the unit must be whole bytes: 1.5Gi is, 1.5B is not.
		if len(frac) > 18 {
			return bad("too many decimals")
		}
		f, _ := new(big.Int).SetString(frac, 10)
		part, rem := new(big.Int).QuoRem(f.Mul(f, big.NewInt(mult)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil), new(big.Int))
		if rem.Sign() != 0 {
			return bad("not a whole number of bytes")
		}
		if n > maxSize-part.Int64() {
			return bad("more than 2^62 bytes")
		}
		n += part.Int64()
	}
	return n, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func whole0(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// Bytes renders a byte count with a binary unit, one decimal at most:
// 512 B, 64 KiB, 1.5 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	s := strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + string("KMGTPE"[exp]) + "iB"
}

// Size is Bytes for the unsigned counts of checkpoints and PodResources
// answers: beyond the int64 range it gives the plain bytes.
func Size(n uint64) string {
	if n > math.MaxInt64 {
		return strconv.FormatUint(n, 10) + " B"
	}
	return Bytes(int64(n))
}

// Exact is a byte count with its human size: "68719476736 bytes (64 GiB)";
// below 1 KiB the count alone.
func Exact(n uint64) string {
	if n < 1024 || n > math.MaxInt64 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%s)", n, Bytes(int64(n)))
}

// Quantity renders bytes as a Kubernetes quantity reads best: exact in Ti,
// Gi, Mi or Ki when it is a whole number of them (150Gi, 5220Mi),
// otherwise in the largest unit with two decimals at most (1.5Gi), and
// plain bytes below 1Ki.
func Quantity(b int64) string {
	units := []struct {
		s string
		v int64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}}
	for _, u := range units {
		if b >= u.v && b%u.v == 0 {
			return strconv.FormatInt(b/u.v, 10) + u.s
		}
	}
	for _, u := range units {
		if b >= u.v {
			s := strconv.FormatFloat(float64(b)/float64(u.v), 'f', 2, 64)
			return strings.TrimRight(strings.TrimRight(s, "0"), ".") + u.s
		}
	}
	if b >= 1<<10 && b%(1<<10) == 0 {
		return strconv.FormatInt(b>>10, 10) + "Ki"
	}
	return strconv.FormatInt(b, 10)
}

// Flag is a size flag (flag.Value): a byte count read by ParseSize, no
// larger than Max when Max is set; with None, "none" is accepted and gives -1
// (no limit).
type Flag struct {
	N    *int64
	Max  int64
	None bool
}

func (f Flag) String() string {
	if f.N == nil {
		return ""
	}
	if *f.N < 0 {
		return "none"
	}
	return Bytes(*f.N)
}

// Set parses a flag's text.
func (f Flag) Set(s string) error {
	if f.None && strings.EqualFold(strings.TrimSpace(s), "none") {
		*f.N = -1
		return nil
	}
	n, err := ParseSize(s)
	if err != nil {
		if f.None {
			return fmt.Errorf("%w, or none for no limit", err)
		}
		return err
	}
	if f.Max > 0 && n > f.Max {
		return fmt.Errorf("%q: %w: more than %s, the largest this flag takes", s, ErrSize, Bytes(f.Max))
	}
	*f.N = n
	return nil
}
