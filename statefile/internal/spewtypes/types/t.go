// Package types mirrors k8s.io/apimachinery/pkg/types.
package types

// UID mirrors types.UID.
type UID string
