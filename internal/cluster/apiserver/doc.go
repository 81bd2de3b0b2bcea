// Package apiserver pins the kube-apiserver release that numascope's cluster
// tests run against (see tools.go); internal/cluster builds it from here.
package apiserver
