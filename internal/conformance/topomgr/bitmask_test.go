package topomgr

import (
	"math/rand/v2"
	"testing"

	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"

	ns "github.com/numascope/numascope/topomgr"
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
		k, _ := bitmask.NewBitMask(n.Bits()...)
		ko, _ := bitmask.NewBitMask(o.Bits()...)
		if k.String() != n.String() || k.Count() != n.Count() || k.IsNarrowerThan(ko) != n.IsNarrowerThan(o) ||
			k.IsLessThan(ko) != n.IsLessThan(o) || k.IsGreaterThan(ko) != n.IsGreaterThan(o) {
			t.Fatalf("mask %#x vs %#x: kubelet %q numascope %q", v, w, k.String(), n.String())
		}
	}
	for i := 0; i < 200; i++ {
		ids := r.Perm(12)[:1+r.IntN(8)]
		var want, got []uint64
		bitmask.IterateBitMasks(ids, func(m bitmask.BitMask) {
			nm, _ := ns.NewBitMask(m.GetBits()...)
			want = append(want, uint64(nm))
		})
		ns.IterateBitMasks(ids, func(m ns.BitMask) { got = append(got, uint64(m)) })
		if len(want) != len(got) {
			t.Fatalf("ids %v: %d masks, want %d", ids, len(got), len(want))
		}
		for j := range want {
			if want[j] != got[j] {
				t.Fatalf("ids %v: mask %d is %b, want %b", ids, j, got[j], want[j])
			}
		}
	}
}
