package evidence

import "strings"

// kubeletStartMessages are log records the kubelet writes when it starts.
var kubeletStartMessages = map[string]bool{"Kubelet version": true, "Started kubelet": true, "Starting kubelet.": true, "Starting kubelet": true}

// SamePod tells whether two pod references ("ns/name" or "name") name the same pod: equal, or the same name where one side gives no namespace.
func SamePod(a, b string) bool {
	if a == b {
		return true
	}
	an, bn := a, b
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		an = a[i+1:]
	}
	if i := strings.LastIndexByte(b, '/'); i >= 0 {
		bn = b[i+1:]
	}
	if an != bn {
		return false
	}
	// One side has no namespace.
	return !strings.Contains(a, "/") || !strings.Contains(b, "/")
}

// admissionLiterals are literal pieces of the kubelet's admission error
// texts; a text that holds none of them cannot carry one, which is far
// cheaper to tell than running the templates on every record.
var admissionLiterals = []string{"which is unexpected", "SMT Alignment Error", "with Topology", "not enough cpus available", "[memorymanager] failed",
	"[memorymanager] preferred hint", "devices unavailable for", "unhealthy devices", "unregistered device", "endpoint not found in cache"}

// mentionsAdmission reports whether s holds one of admissionLiterals.
func mentionsAdmission(s string) bool {
	for _, lit := range admissionLiterals {
		if strings.Contains(s, lit) {
			return true
		}
	}
	return false
}

// MentionsAdmission reports whether the message of rec, or a value
// where the kubelet puts errors and admission results, holds one of
// admissionLiterals, without building the record's text.
func MentionsAdmission(rec Record) bool {
	if mentionsAdmission(rec.Message) {
		return true
	}
	for _, v := range rec.Values {
		switch v.Key {
		case "err", "error", "message", "reason", "msg":
			if mentionsAdmission(v.Text) {
				return true
			}
		}
	}
	return false
}

// IsAdmissionReason tells whether r is a pod-status reason the kubelet's
// admission produces.
func IsAdmissionReason(r string) bool { return admissionReasons[r] }

// IsKubeletStart tells whether a record's message is one the kubelet
// prints when it starts.
func IsKubeletStart(msg string) bool { return kubeletStartMessages[msg] }
