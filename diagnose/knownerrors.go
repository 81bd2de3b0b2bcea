package diagnose

import (
	"regexp"
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

// reasonFromMessage returns the admission reason a kubelet message
// carries by its template, or "" when it matches none. It never guesses
// from free text: only the kubelet's own templates count.
func reasonFromMessage(msg string) string {
	switch {
	case strings.Contains(msg, "SMT Alignment Error") && reSMT.MatchString(msg):
		return CodeSMTAlignmentError
	case strings.Contains(msg, "which is unexpected") && reUAEText.MatchString(msg):
		return CodeUnexpectedAdmission
	case strings.Contains(msg, "with Topology") && reTAEText.MatchString(msg):
		return CodeTopologyAffinityError
	}
	return ""
}

// innerError is what numascope knows about the error wrapped in an
// UnexpectedAdmissionError: which manager failed and why.
type innerError struct {
	// kind names the inner error; "" when it is not one numascope knows.
	kind string
	// manager is "cpu", "memory" or "device".
	manager string
	// text is the inner error itself (the %v of the template).
	text string
	// m holds the submatches of the template that matched.
	m []string
}

// Inner error kinds.
const (
	innerCPUs              = "cpus-exhausted"
	innerMemoryExtend      = "memory-extend"
	innerMemoryDefault     = "memory-default-hint"
	innerMemoryExtended    = "memory-extended-hint"
	innerMemoryNoAffinity  = "memory-no-affinity"
	innerMemoryViolates    = "memory-violates-allocation"
	innerDevicesShort      = "devices-unavailable"
	innerDeviceUnregister  = "device-unregistered"
	innerDeviceEndpoint    = "device-endpoint-missing"
	innerDeviceUnhealthy   = "device-unhealthy"
	innerDevicePluginRPC   = "device-plugin-rpc"
	innerDeviceRequestDiff = "device-request-changed"
)

// classifyInner reads the inner error of an UnexpectedAdmissionError
// message (the whole message or the inner error alone).
func classifyInner(msg string) innerError {
	text := msg
	if strings.Contains(msg, "failed due to") {
		if m := reUAEText.FindStringSubmatch(msg); m != nil {
			text = m[2]
		}
	}
	in := innerError{text: text}
	set := func(kind, manager string, m []string) innerError {
		in.kind, in.manager, in.m = kind, manager, m
		return in
	}
	switch {
	case strings.Contains(text, "not enough cpus available to satisfy request"):
		return set(innerCPUs, "cpu", reNotEnoughCPUs.FindStringSubmatch(text))
	case strings.Contains(text, "failed to find NUMA nodes to extend the current topology hint"):
		return set(innerMemoryExtend, "memory", nil)
	case strings.Contains(text, "failed to find the default preferred hint"):
		return set(innerMemoryDefault, "memory", nil)
	case strings.Contains(text, "failed to find the extended preferred hint"):
		return set(innerMemoryExtended, "memory", nil)
	case strings.Contains(text, "failed to get the default NUMA affinity"):
		return set(innerMemoryNoAffinity, "memory", nil)
	case strings.Contains(text, "preferred hint violates NUMA node allocation"):
		return set(innerMemoryViolates, "memory", nil)
	case strings.Contains(text, "requested number of devices unavailable for") && reDevUnavailable.MatchString(text):
		// Only the allocation error's full text: the device manager also
		// logs "Unable to generate topology hints: requested number of
		// devices unavailable" while computing hints, which rejects nothing.
		return set(innerDevicesShort, "device", reDevUnavailable.FindStringSubmatch(text))
	case strings.Contains(text, "cannot allocate unhealthy devices") && reUnhealthy.MatchString(text):
		return set(innerDeviceUnhealthy, "device", reUnhealthy.FindStringSubmatch(text))
	case strings.Contains(text, "allocate unregistered device") && reUnregistered.MatchString(text):
		return set(innerDeviceUnregister, "device", reUnregistered.FindStringSubmatch(text))
	case strings.Contains(text, "endpoint not found in cache") && reEndpointCache.MatchString(text):
		return set(innerDeviceEndpoint, "device", reEndpointCache.FindStringSubmatch(text))
	case strings.Contains(text, "rpc error: code = ") && reRPCError.MatchString(text):
		return set(innerDevicePluginRPC, "device", reRPCError.FindStringSubmatch(text))
	case strings.Contains(text, "changed request for resource") && reChangedRequest.MatchString(text):
		return set(innerDeviceRequestDiff, "device", reChangedRequest.FindStringSubmatch(text))
	}
	return in
}

// sub returns submatch i, or def when it is missing.
func (in innerError) sub(i int, def string) string {
	if i < len(in.m) && in.m[i] != "" {
		return in.m[i]
	}
	return def
}
