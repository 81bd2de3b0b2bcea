// Package v1alpha2 mirrors k8s.io/api/resource/v1alpha2 (v0.30).
package v1alpha2

import "github.com/numascope/numascope/statefile/internal/spewtypes/runtime"

// ResourceHandle mirrors v1alpha2.ResourceHandle.
type ResourceHandle struct {
	DriverName     string
	Data           string
	StructuredData *StructuredResourceHandle
}

// ResourceHandle128 mirrors the v0.28 ResourceHandle (no StructuredData);
// tests rename it to ResourceHandle.
type ResourceHandle128 struct {
	DriverName string
	Data       string
}

// StructuredResourceHandle mirrors v1alpha2.StructuredResourceHandle.
type StructuredResourceHandle struct {
	VendorClassParameters runtime.RawExtension
	VendorClaimParameters runtime.RawExtension
	NodeName              string
	Results               []DriverAllocationResult
}

// DriverAllocationResult mirrors v1alpha2.DriverAllocationResult.
type DriverAllocationResult struct {
	VendorRequestParameters runtime.RawExtension
	AllocationResultModel   `json:",inline"`
}

// AllocationResultModel mirrors v1alpha2.AllocationResultModel.
type AllocationResultModel struct {
	NamedResources *NamedResourcesAllocationResult
}

// NamedResourcesAllocationResult mirrors v1alpha2.NamedResourcesAllocationResult.
type NamedResourcesAllocationResult struct {
	Name string
}
