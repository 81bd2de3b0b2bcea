// Package conformance proves that numascope answers exactly as the kubelet
// does. It is a separate module that imports the real kubelet code
// (k8s.io/kubernetes) and runs it side by side with numascope: golden files
// written by the kubelet's own Marshal code, differential tests and fuzz
// tests, and benchmarks of both implementations on the same input.
//
// The main module never imports this one.
package conformance
