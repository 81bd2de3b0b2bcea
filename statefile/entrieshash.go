package statefile

import "sync/atomic"

// entriesHasher renders the checksum text of a spew-era memory file (v1,
// v2), or of a v3 file's outer copy, on a goroutine of its own while the
// builder is still reading the entries, so that the hash chain, which is
// byte at a time by its nature, runs beside the parse instead of after it.
//
// The pods are hashed in the order they are read. That is spew's order (Go
// string order) in every file a kubelet writes, as encoding/json sorts map
// keys; when a pod comes out of order the hasher is stopped and its work
// thrown away, and the caller renders the text again from the sorted list.
type entriesHasher struct {
	batches chan []memPodBlocks // the pods read so far, a batch at a time
	out     chan printer        // the printer after the last pod
	closed  bool
	dropped bool // a pod came out of order: what out gives is not the text
}

// hashBatch is how many pods the builder reads between two hand-overs.
const hashBatch = 64

// concurrentHashMin is the smallest file whose entries are hashed beside
// the parse: below it a goroutine costs more than it saves.
var concurrentHashMin = 128 << 10

// startEntriesHash starts rendering memHead(policy, ms, pods, false), up to
// the pods that add sends.
func startEntriesHash(policy string, ms map[int]*NUMANodeState) *entriesHasher {
	h := &entriesHasher{batches: make(chan []memPodBlocks, 8), out: make(chan printer, 1)}
	go func() {
		p := newPrinter()
		p.memHeadOpen(policy, ms, false)
		done := 0
		for pods := range h.batches {
			p.memPods(pods[done:], done)
			done = len(pods)
		}
		h.out <- p
	}()
	return h
}

// add hands the pods read so far to the hasher. pods[:len(pods)] is never
// written again; the builder appends beyond it.
func (h *entriesHasher) add(pods []memPodBlocks) {
	if h != nil && !h.closed {
		h.batches <- pods
	}
}

// drop stops the hasher because the pods are not in spew's order, and
// waits for it, so that the caller may reorder the list it was reading.
func (h *entriesHasher) drop() {
	if h == nil || h.dropped {
		return
	}
	h.dropped = true
	h.stop()
	<-h.out
}

// stop ends the hand-overs (the goroutine then finishes on its own).
func (h *entriesHasher) stop() {
	if h != nil && !h.closed {
		h.closed = true
		close(h.batches)
	}
}

// printer waits for the hasher and returns its printer, positioned after
// the last pod of the entries map, or false when it was dropped.
func (h *entriesHasher) printer() (printer, bool) {
	if h == nil || h.dropped {
		return printer{}, false
	}
	h.stop()
	return <-h.out, true
}

// hashesUsed counts the texts an entriesHasher rendered that a decode
// used (for the tests).
var hashesUsed atomic.Int64
