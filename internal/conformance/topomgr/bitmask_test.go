package topomgr

import (
	"math/rand/v2"
	"testing"

	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"

	ns "github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/require"
)

// TestBitMaskAgrees compares String, Count, ordering and GetBits on random
// 64-bit masks, and IterateBitMasks' order on random node lists.
func TestBitMaskAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20000; i++ {
		v := r.Uint64() >> uint(r.IntN(64))
		w := r.Uint64() >> uint(r.IntN(64))
		n := ns.BitMask(v)
		o := ns.BitMask(w)
		k, err := bitmask.NewBitMask(n.Bits()...)
		require.NoError(t, err, "the kubelet's NewBitMask(%v)", n.Bits())
		ko, err := bitmask.NewBitMask(o.Bits()...)
		require.NoError(t, err, "the kubelet's NewBitMask(%v)", o.Bits())
		require.Equal(t, k.String(), n.String(), "mask %#x: String, kubelet and numascope", v)
		require.Equal(t, k.Count(), n.Count(), "mask %#x: Count, kubelet and numascope", v)
		require.Equal(t, k.IsNarrowerThan(ko), n.IsNarrowerThan(o), "mask %#x vs %#x: IsNarrowerThan, kubelet and numascope", v, w)
		require.Equal(t, k.IsLessThan(ko), n.IsLessThan(o), "mask %#x vs %#x: IsLessThan, kubelet and numascope", v, w)
		require.Equal(t, k.IsGreaterThan(ko), n.IsGreaterThan(o), "mask %#x vs %#x: IsGreaterThan, kubelet and numascope", v, w)
	}
	for i := 0; i < 200; i++ {
		ids := r.Perm(12)[:1+r.IntN(8)]
		var want, got []uint64
		bitmask.IterateBitMasks(ids, func(m bitmask.BitMask) {
			nm, err := ns.NewBitMask(m.GetBits()...)
			require.NoError(t, err, "NewBitMask(%v)", m.GetBits())
			want = append(want, uint64(nm))
		})
		ns.IterateBitMasks(ids, func(m ns.BitMask) { got = append(got, uint64(m)) })
		require.Equal(t, want, got, "ids %v: masks in the kubelet's order", ids)
	}
}
