// Package v1 mirrors the core/v1 type names used in checkpoints.
package v1

// ResourceName mirrors v1.ResourceName.
type ResourceName string
