// Package sets mirrors k8s.io/apimachinery/pkg/util/sets.
package sets

// Empty mirrors sets.Empty.
type Empty struct{}

// Set mirrors sets.Set.
type Set[T comparable] map[T]Empty
