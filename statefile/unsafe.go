package statefile

import "unsafe"

// unsafeString views b as a string without copying; the caller must not keep it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
