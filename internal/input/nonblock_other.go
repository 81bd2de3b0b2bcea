//go:build !unix

package input

// oNonblock is 0 where open(2) has no O_NONBLOCK (js/wasm reads no host
// files; Windows has no FIFOs to block on).
const oNonblock = 0
