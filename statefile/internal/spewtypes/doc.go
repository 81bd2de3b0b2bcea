// Package spewtypes holds, in sub-packages named like the kubelet's own, Go
// types with the kubelet's type names and shapes. Tests render them with
// go-spew to prove numascope's checksum printer byte for byte.
package spewtypes
