package units

import (
	"flag"
	"io"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{in: "4194304", want: 4 << 20},
		{in: "4096Ki", want: 4 << 20},
		{in: "4Mi", want: 4 << 20},
		{in: "4MiB", want: 4 << 20},
		{in: "512MiB", want: 512 << 20},
		{in: "64GiB", want: 64 << 30},
		{in: "1.5Gi", want: 3 << 29},
		{in: ".5Ki", want: 512},
		{in: "200GB", want: 200e9},
		{in: "200G", want: 200e9},
		{in: "4M", want: 4e6},
		{in: "10k", want: 10e3},
		{in: "10kB", want: 10e3},
		{in: "7 B", want: 7},
		{in: " 7 ", want: 7},
		{in: "0", want: 0},
		{in: "4PiB", want: 4 << 50},
		{in: "", err: "empty"},
		{in: "B", err: "not a number"},
		{in: "MiB", err: "not a number"},
		{in: "-5MiB", err: "not a number"},
		{in: "1.5B", err: "not a whole number of bytes"},
		{in: "1.", err: "not a number"},
		{in: "1e3", err: "not a number"},
		{in: "4mi", err: "not a number"},
		{in: "9999999999TiB", err: "more than 2^62"},
		{in: "99999999999999999999", err: "too large"},
		{in: "4095.99999PiB", err: "not a whole number"},
		{in: "4096.25PiB", err: "more than 2^62"}, {in: "4095.75PiB", want: 4095<<50 + 3<<48},
		{in: "1.0000000000000000001Ki", err: "too many decimals"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrSize)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "give a byte count such as")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		n                      int64
		bytes, exact, quantity string
	}{
		{0, "0 B", "0 bytes", "0"},
		{1023, "1023 B", "1023 bytes", "1023"},
		{1024, "1 KiB", "1024 bytes (1 KiB)", "1Ki"},
		{1536, "1.5 KiB", "1536 bytes (1.5 KiB)", "1536"},
		{64 << 20, "64 MiB", "67108864 bytes (64 MiB)", "64Mi"},
		{5220 << 20, "5.1 GiB", "5473566720 bytes (5.1 GiB)", "5220Mi"},
		{3 << 29, "1.5 GiB", "1610612736 bytes (1.5 GiB)", "1536Mi"},
		{1<<30 + 1, "1 GiB", "1073741825 bytes (1 GiB)", "1Gi"},
		{150 << 30, "150 GiB", "161061273600 bytes (150 GiB)", "150Gi"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.bytes, Bytes(tt.n), "Bytes(%d)", tt.n)
		assert.Equal(t, tt.exact, Exact(uint64(tt.n)), "Exact(%d)", tt.n)
		assert.Equal(t, tt.quantity, Quantity(tt.n), "Quantity(%d)", tt.n)
	}
}

func TestFlag(t *testing.T) {
	var n int64 = 4 << 20
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(Flag{N: &n, Max: 1 << 40}, "max", "")
	var lim int64
	fs.Var(Flag{N: &lim, None: true}, "limit", "")
	require.NoError(t, fs.Parse([]string{"-max", "8Mi", "-limit", "none"}))
	assert.Equal(t, int64(8<<20), n)
	assert.Equal(t, int64(-1), lim)
	assert.Equal(t, "none", fs.Lookup("limit").Value.String())
	assert.Equal(t, "8 MiB", fs.Lookup("max").Value.String())
	err := fs.Parse([]string{"-max", "2Ti"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 1 TiB, the largest this flag takes")
	err = fs.Parse([]string{"-limit", "lots"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "or none for no limit")
	err = fs.Parse([]string{"-max", "none"})
	require.Error(t, err)
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4Mi", "1.5Gi", "200GB", "7 B", "0.0001Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			n, err := ParseSize(s)
			if err != nil {
				return
			}
			if n < 0 || n > 1<<62 {
				t.Fatalf("ParseSize(%q) = %d", s, n)
			}
		})
	})
}

func TestSize(t *testing.T) {
	for _, tt := range []struct {
		n    uint64
		want string
	}{{0, "0 B"}, {1 << 30, "1 GiB"}, {150 << 30, "150 GiB"}, {1<<63 + 1, "9223372036854775809 B"}} {
		assert.Equal(t, tt.want, Size(tt.n), "%d", tt.n)
	}
}
