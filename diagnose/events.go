package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/yamljson"
)

// Event is one Kubernetes event about a pod, from an event list or from the
// Events section of `kubectl describe pod`.
type Event struct {
	// Line is the 1-based line for text input; Path the JSON pointer for
	// JSON/YAML input.
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Object  string `json:"object,omitempty"`
	Message string `json:"message"`
	Count   int    `json:"count,omitempty"`
	From    string `json:"from,omitempty"`
}

// Events is a parsed events document.
type Events struct {
	Source string `json:"source"`
	// Format is "list" (kubectl get events -o json|yaml), "describe"
	// (kubectl describe pod) or "table" (kubectl get events / kubectl events).
	Format string  `json:"format"`
	Events []Event `json:"events"`
	// Pod holds what `kubectl describe pod` says about the pod itself.
	Pod *DescribedPod `json:"pod,omitempty"`
}

// DescribedPod is the header of `kubectl describe pod` output.
type DescribedPod struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Status    string `json:"status,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	QOSClass  string `json:"qosClass,omitempty"`
	Node      string `json:"node,omitempty"`
	// Lines maps a field (Status, Reason, Message, QoS Class) to its line.
	Lines map[string]int `json:"lines,omitempty"`
}

type eventJSON struct {
	Kind           string `json:"kind"`
	Type           string `json:"type"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	Note           string `json:"note"`
	Count          int    `json:"count"`
	InvolvedObject struct {
		Kind, Name, Namespace string
	} `json:"involvedObject"`
	Regarding struct {
		Kind, Name, Namespace string
	} `json:"regarding"`
	Source struct {
		Component string `json:"component"`
		Host      string `json:"host"`
	} `json:"source"`
	ReportingController string `json:"reportingController"`
}

var columnSplit = regexp.MustCompile(`\s{2,}|\t+`)

// ParseEvents reads pod events: `kubectl get events -o json|yaml`, the table
// printed by `kubectl get events` or `kubectl events`, or the whole output of
// `kubectl describe pod` (its header and its Events section).
func ParseEvents(name string, data []byte) (*Events, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for an events document", name, len(data), maxEvidenceSize)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty events document (pass `kubectl describe pod NAME` or `kubectl get events -o yaml`)", name)
	}
	if isStructured(trimmed) {
		return parseEventList(name, trimmed)
	}
	return parseEventText(name, string(data))
}

func isStructured(b []byte) bool {
	if b[0] == '{' || b[0] == '[' {
		return true
	}
	s := string(b)
	return strings.HasPrefix(s, "apiVersion:") || strings.HasPrefix(s, "kind:") || strings.HasPrefix(s, "items:") ||
		strings.Contains(s, "\nkind: EventList") || strings.Contains(s, "\nkind: List") || strings.Contains(s, "\nitems:")
}

func parseEventList(name string, data []byte) (*Events, error) {
	js, err := yamljson.ToJSON(data, name)
	if err != nil {
		return nil, err
	}
	var top struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	var items []json.RawMessage
	prefix := "/items"
	if bytes.HasPrefix(bytes.TrimSpace(js), []byte("[")) {
		if err := json.Unmarshal(js, &items); err != nil {
			return nil, fmt.Errorf("%s: not a list of events: %w", name, err)
		}
		prefix = ""
	} else {
		if err := json.Unmarshal(js, &top); err != nil {
			return nil, fmt.Errorf("%s: not an EventList: %w", name, err)
		}
		items = top.Items
		if top.Kind == "Event" {
			items = []json.RawMessage{js}
			prefix = "-"
		}
	}
	ev := &Events{Source: name, Format: "list"}
	for i, raw := range items {
		var e eventJSON
		path := fmt.Sprintf("%s/%d", prefix, i)
		if prefix == "-" {
			path = ""
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: %s: not an Event: %w", name, path, err)
		}
		obj := e.InvolvedObject
		if obj.Name == "" {
			obj = e.Regarding
		}
		msg := e.Message
		if msg == "" {
			msg = e.Note
		}
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		if e.Source.Host != "" {
			from += ", " + e.Source.Host
		}
		ref := obj.Name
		if obj.Namespace != "" {
			ref = obj.Namespace + "/" + obj.Name
		}
		if obj.Kind != "" {
			ref = strings.ToLower(obj.Kind) + "/" + ref
		}
		ev.Events = append(ev.Events, Event{Path: path, Type: e.Type, Reason: e.Reason, Object: ref, Message: msg, Count: e.Count, From: from})
	}
	if top.Kind != "" && top.Kind != "EventList" && top.Kind != "List" && top.Kind != "Event" {
		return nil, fmt.Errorf("%s: /kind: %q is not an EventList (pass `kubectl get events -o yaml`)", name, top.Kind)
	}
	return ev, nil
}

func parseEventText(name, text string) (*Events, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	ev := &Events{Source: name}
	// kubectl describe pod: header fields, then "Events:".
	inEvents := false
	var cols []string
	var header []int // column start offsets for table output
	for i, line := range lines {
		ln := i + 1
		trim := strings.TrimSpace(line)
		if !inEvents && header == nil && !strings.HasPrefix(line, "Events:") {
			if k, v, ok := describeField(line); ok {
				if ev.Pod == nil {
					ev.Pod = &DescribedPod{Lines: map[string]int{}}
				}
				switch k {
				case "Name":
					if ev.Pod.Name == "" {
						ev.Pod.Name = v
					}
				case "Namespace":
					ev.Pod.Namespace = v
				case "Status":
					ev.Pod.Status = v
				case "Reason":
					ev.Pod.Reason = v
				case "Message":
					ev.Pod.Message = v
				case "QoS Class":
					ev.Pod.QOSClass = v
				case "Node":
					ev.Pod.Node = v
				default:
					continue
				}
				ev.Pod.Lines[k] = ln
				continue
			}
		}
		if strings.HasPrefix(line, "Events:") {
			inEvents = true
			ev.Format = "describe"
			continue
		}
		if inEvents {
			if trim == "" || trim == "<none>" {
				continue
			}
			if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
				inEvents = false
				continue
			}
			f := columnSplit.Split(trim, -1)
			if f[0] == "Type" || strings.HasPrefix(f[0], "----") {
				cols = f
				continue
			}
			_ = cols
			e := Event{Line: ln, Type: f[0]}
			// Type Reason Age From Message: Message may itself hold double spaces.
			if len(f) >= 2 {
				e.Reason = f[1]
			}
			if len(f) >= 4 {
				e.From = f[3]
			}
			if len(f) >= 5 {
				e.Message = strings.Join(f[4:], "  ")
			}
			if c := countFromAge(f); c > 0 {
				e.Count = c
			}
			ev.Events = append(ev.Events, e)
			continue
		}
		// kubectl get events / kubectl events table.
		if header == nil && strings.Contains(line, "REASON") && strings.Contains(line, "MESSAGE") {
			header = []int{}
			cols = nil
			for _, h := range []string{"NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"} {
				idx := strings.Index(line, h)
				header = append(header, idx)
				cols = append(cols, h)
			}
			ev.Format = "table"
			continue
		}
		if header != nil && trim != "" {
			get := func(col string) string {
				var start, end = -1, len(line)
				for j, c := range cols {
					if c == col {
						start = header[j]
					}
				}
				if start < 0 || start >= len(line) {
					return ""
				}
				for _, o := range header {
					if o > start && o < end {
						end = o
					}
				}
				if end > len(line) {
					end = len(line)
				}
				return strings.TrimSpace(line[start:end])
			}
			e := Event{Line: ln, Type: get("TYPE"), Reason: get("REASON"), Object: get("OBJECT"), Message: get("MESSAGE")}
			if e.Type == "" && e.Reason == "" {
				continue
			}
			ev.Events = append(ev.Events, e)
		}
	}
	if ev.Format == "" {
		if ev.Pod != nil {
			ev.Format = "describe"
		} else {
			return nil, fmt.Errorf("%s: no events found: pass `kubectl describe pod NAME`, `kubectl get events` or `kubectl get events -o yaml` output", name)
		}
	}
	return ev, nil
}

func describeField(line string) (string, string, bool) {
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
		return "", "", false
	}
	k, v, ok := strings.Cut(line, ":")
	if !ok || strings.ContainsAny(k, "\"{}[]") || len(k) > 40 {
		return "", "", false
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), true
}

var reAgeCount = regexp.MustCompile(`\(x(\d+) over`)

func countFromAge(f []string) int {
	if len(f) < 3 {
		return 0
	}
	if m := reAgeCount.FindStringSubmatch(f[2]); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// ForReason returns the events with the given reason.
func (e *Events) ForReason(reason string) []Event {
	var out []Event
	for _, x := range e.Events {
		if x.Reason == reason {
			out = append(out, x)
		}
	}
	return out
}
