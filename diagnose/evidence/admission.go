package evidence

import (
	"regexp"
	"strconv"
	"strings"
)

// Message templates of the kubelet's admission errors, built from its
// format strings (evidence-formats.md §4): %d is \d+, %v and %s are text.
var (
	reTAEText        = regexp.MustCompile(`(?i)Resources cannot be allocated with Topology locality`)
	reUAEText        = regexp.MustCompile(`(?s)(Allocate|Update plugin resources|GeneralPredicates) failed due to (.*?), which is unexpected\.?`)
	reUnregistered   = regexp.MustCompile(`(?:can't|cannot) allocate unregistered device (\S+)`)
	reEndpointCache  = regexp.MustCompile(`endpoint not found in cache for a registered resource: (\S+)`)
	reUnhealthy      = regexp.MustCompile(`(no healthy devices present|previously allocated devices are no longer healthy); cannot allocate unhealthy devices (\S+)`)
	reChangedRequest = regexp.MustCompile(`pod "?([^" ]*)"? container "?([^" ]*)"? changed request for resource "?([^" ]*)"? from (\d+) to (\d+)`)
)

// ReasonOf returns the admission reason a kubelet message carries by its
// template (ReasonTopologyAffinity, ReasonSMTAlignment, ReasonUnexpected),
// or "" when it matches none. It never guesses from free text: only the
// kubelet's own templates count.
func ReasonOf(msg string) string {
	switch {
	case strings.Contains(msg, "SMT Alignment Error") && reSMT.MatchString(msg):
		return ReasonSMTAlignment
	case strings.Contains(msg, "which is unexpected") && reUAEText.MatchString(msg):
		return ReasonUnexpected
	case strings.Contains(msg, "with Topology") && reTAEText.MatchString(msg):
		return ReasonTopologyAffinity
	}
	return ""
}

// AllocationError is the error a resource manager returned while
// allocating for an admitted pod, which the kubelet wraps in an
// UnexpectedAdmissionError, read from the kubelet's own words. The fields
// are what its template names; a field the text does not carry is empty.
type AllocationError struct {
	// Kind names the error (the Alloc* constants); "" when it is not one
	// numascope knows.
	Kind string
	// Manager is "cpu", "memory" or "device".
	Manager string
	// Text is the inner error itself (the %v of the template).
	Text string
	// Resource is the device resource (or "cpu").
	Resource string
	// Requested and Available are the counts the text gives, as printed.
	Requested, Available string
	// Detail is the device manager's reason for unhealthy devices ("no
	// healthy devices present", "previously allocated devices are no
	// longer healthy").
	Detail string
	// Code and Desc are a device plugin's gRPC status code and text.
	Code, Desc string
	// Container, From and To are a changed device request: the container
	// and the counts before and after.
	Container, From, To string
}

// Allocation error kinds.
const (
	AllocCPUs              = "cpus-exhausted"
	AllocMemoryExtend      = "memory-extend"
	AllocMemoryDefault     = "memory-default-hint"
	AllocMemoryExtended    = "memory-extended-hint"
	AllocMemoryNoAffinity  = "memory-no-affinity"
	AllocMemoryViolates    = "memory-violates-allocation"
	AllocDevicesShort      = "devices-unavailable"
	AllocDeviceUnregister  = "device-unregistered"
	AllocDeviceEndpoint    = "device-endpoint-missing"
	AllocDeviceUnhealthy   = "device-unhealthy"
	AllocDevicePluginRPC   = "device-plugin-rpc"
	AllocDeviceRequestDiff = "device-request-changed"
)

// ParseAllocationError reads the inner error of an UnexpectedAdmissionError
// message (the whole message or the inner error alone).
func ParseAllocationError(msg string) AllocationError {
	text := msg
	if strings.Contains(msg, "failed due to") {
		if m := reUAEText.FindStringSubmatch(msg); m != nil {
			text = m[2]
		}
	}
	a := AllocationError{Text: text}
	at := func(m []string, i int) string {
		if i < len(m) {
			return m[i]
		}
		return ""
	}
	switch {
	case strings.Contains(text, "not enough cpus available to satisfy request"):
		m := reNotEnoughCPUs.FindStringSubmatch(text)
		a.Kind, a.Manager, a.Resource, a.Requested, a.Available = AllocCPUs, "cpu", "cpu", at(m, 1), at(m, 2)
	case strings.Contains(text, "failed to find NUMA nodes to extend the current topology hint"):
		a.Kind, a.Manager = AllocMemoryExtend, "memory"
	case strings.Contains(text, "failed to find the default preferred hint"):
		a.Kind, a.Manager = AllocMemoryDefault, "memory"
	case strings.Contains(text, "failed to find the extended preferred hint"):
		a.Kind, a.Manager = AllocMemoryExtended, "memory"
	case strings.Contains(text, "failed to get the default NUMA affinity"):
		a.Kind, a.Manager = AllocMemoryNoAffinity, "memory"
	case strings.Contains(text, "preferred hint violates NUMA node allocation"):
		a.Kind, a.Manager = AllocMemoryViolates, "memory"
	case strings.Contains(text, "requested number of devices unavailable for") && reDevUnavailable.MatchString(text):
		// Only the allocation error's full text: the device manager also
		// logs "Unable to generate topology hints: requested number of
		// devices unavailable" while computing hints, which rejects nothing.
		m := reDevUnavailable.FindStringSubmatch(text)
		a.Kind, a.Manager, a.Resource, a.Requested, a.Available = AllocDevicesShort, "device", m[1], m[2], m[3]
	case strings.Contains(text, "cannot allocate unhealthy devices") && reUnhealthy.MatchString(text):
		m := reUnhealthy.FindStringSubmatch(text)
		a.Kind, a.Manager, a.Detail, a.Resource = AllocDeviceUnhealthy, "device", m[1], m[2]
	case strings.Contains(text, "allocate unregistered device") && reUnregistered.MatchString(text):
		a.Kind, a.Manager, a.Resource = AllocDeviceUnregister, "device", reUnregistered.FindStringSubmatch(text)[1]
	case strings.Contains(text, "endpoint not found in cache") && reEndpointCache.MatchString(text):
		a.Kind, a.Manager, a.Resource = AllocDeviceEndpoint, "device", reEndpointCache.FindStringSubmatch(text)[1]
	case strings.Contains(text, "rpc error: code = ") && reRPCError.MatchString(text):
		m := reRPCError.FindStringSubmatch(text)
		a.Kind, a.Manager, a.Code, a.Desc = AllocDevicePluginRPC, "device", m[1], m[2]
	case strings.Contains(text, "changed request for resource") && reChangedRequest.MatchString(text):
		m := reChangedRequest.FindStringSubmatch(text)
		a.Kind, a.Manager, a.Container, a.Resource, a.From, a.To = AllocDeviceRequestDiff, "device", m[2], m[3], m[4], m[5]
	}
	return a
}

// SMTError is the CPU manager's SMTAlignmentError (option
// full-pcpus-only), in either of its forms.
type SMTError struct {
	// NotMultiple is the "requested N cpus not multiple cpus per core = M"
	// form; otherwise "not enough free physical CPUs" with Available.
	NotMultiple bool
	Requested   int
	PerCore     int
	// Available is the free physical CPUs the other form names.
	Available int
}

// ParseSMTError reads an SMTAlignmentError message.
func ParseSMTError(msg string) (SMTError, bool) {
	m := reSMT.FindStringSubmatch(msg)
	if m == nil {
		return SMTError{}, false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	if m[4] != "" {
		return SMTError{NotMultiple: true, Requested: n(m[4]), PerCore: n(m[5])}, true
	}
	return SMTError{Requested: n(m[2]), PerCore: n(m[3]), Available: n(m[1])}, true
}

// ParsePolicyMismatch reads the kubelet's "configured policy %q differs
// from state checkpoint policy %q" error.
func ParsePolicyMismatch(msg string) (configured, checkpoint string, ok bool) {
	m := rePolicyMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
