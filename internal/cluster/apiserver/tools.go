//go:build tools

// Package apiserver pins the kube-apiserver release that numascope's cluster
// tests run against. It is a module of its own because k8s.io/kubernetes
// needs replace directives that must not leak into the main module.
package apiserver

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
