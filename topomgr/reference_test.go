package topomgr

// referenceMerge enumerates every combination as the kubelet's HintMerger
// does and folds them with the kubelet's compare; it exists only to check
// the fast merge.
func referenceMerge(numa *NUMAInfo, lists [][]TopologyHint, policy string, opts PolicyOptions) TopologyHint {
	def := numa.DefaultAffinityMask()
	b := bestNonPreferredAffinityCount(lists)
	compareMasks := func(cur, cand *TopologyHint) *TopologyHint {
		if cand.NUMANodeAffinity == cur.NUMANodeAffinity {
			return cur
		}
		var best BitMask
		if policy != PolicySingleNumaNode && opts.PreferClosestNUMA {
			best = numa.Closest(cur.NUMANodeAffinity, cand.NUMANodeAffinity)
		} else {
			best = numa.Narrowest(cur.NUMANodeAffinity, cand.NUMANodeAffinity)
		}
		if best == cur.NUMANodeAffinity {
			return cur
		}
		return cand
	}
	compare := func(cur, cand *TopologyHint) *TopologyHint {
		if cand.NUMANodeAffinity.Count() == 0 {
			return cur
		}
		if cur == nil {
			return cand
		}
		if !cur.Preferred && cand.Preferred {
			return cand
		}
		if cur.Preferred && !cand.Preferred {
			return cur
		}
		if cur.Preferred && cand.Preferred {
			return compareMasks(cur, cand)
		}
		c, k := cur.NUMANodeAffinity.Count(), cand.NUMANodeAffinity.Count()
		if c > b {
			return compareMasks(cur, cand)
		}
		if c == b {
			if k != b {
				return cur
			}
			return compareMasks(cur, cand)
		}
		if k > b {
			return cur
		}
		if k == b {
			return cand
		}
		if k > c {
			return cand
		}
		if k < c {
			return cur
		}
		return compareMasks(cur, cand)
	}
	var best *TopologyHint
	perm := make([]TopologyHint, 0, len(lists))
	var iterate func(i int)
	iterate = func(i int) {
		if i == len(lists) {
			preferred := true
			merged := def
			first, have := BitMask(0), false
			for _, h := range perm {
				if h.HasAffinity {
					if !have {
						first, have = h.NUMANodeAffinity, true
					}
					merged &= h.NUMANodeAffinity
					if h.NUMANodeAffinity != first {
						preferred = false
					}
				}
				if !h.Preferred {
					preferred = false
				}
			}
			cand := NewHint(merged, preferred)
			best = compare(best, &cand)
			return
		}
		for _, h := range lists[i] {
			perm = append(perm, h)
			iterate(i + 1)
			perm = perm[:len(perm)-1]
		}
	}
	iterate(0)
	if best == nil {
		return NewHint(def, false)
	}
	return *best
}

// referencePolicyMerge is the kubelet's policy Merge over referenceMerge.
func referencePolicyMerge(numa *NUMAInfo, policy string, opts PolicyOptions, providers []ProviderHints) (TopologyHint, bool) {
	if policy == PolicyNone {
		return TopologyHint{}, true
	}
	var lists [][]TopologyHint
	for _, l := range filterProvidersHints(providers) {
		lists = append(lists, l.Hints)
	}
	if policy == PolicySingleNumaNode {
		lists = filterSingleNUMAHints(lists)
	}
	best := referenceMerge(numa, lists, policy, opts)
	if policy == PolicySingleNumaNode && best.NUMANodeAffinity == numa.DefaultAffinityMask() {
		best = AnyNUMAHint(best.Preferred)
	}
	if policy == PolicyBestEffort {
		return best, true
	}
	return best, best.Preferred
}
