//go:build !unix

package input

import "os"

// openFlags: where there is no O_NONBLOCK (js/wasm, Windows) there are no
// FIFOs to block on either; the type check after open still refuses them.
const openFlags = os.O_RDONLY
