package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence/internal/paste"
	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/internal/yamljson"
)

// Event is one Kubernetes event about a pod, from an event list, an
// events table, the Events section of `kubectl describe pod`, a row of a
// `kubectl get pods` table whose STATUS is an admission reason, or a
// kubelet message quoted on its own.
type Event struct {
	// Line is the 1-based line for text input; Path the JSON pointer for
	// JSON/YAML input.
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
	Type string `json:"type"`
	// Reason is the event reason, the pod's STATUS in a `kubectl get pods`
	// table, or, when Inferred, the reason the kubelet gives the message.
	Reason string `json:"reason"`
	// Object is "pod/NAME" or "pod/NAMESPACE/NAME" ("" when the input
	// does not say).
	Object  string `json:"object,omitempty"`
	Message string `json:"message"`
	Count   int    `json:"count,omitempty"`
	From    string `json:"from,omitempty"`
	// Inferred says Reason was not in the input: it is the reason of the
	// kubelet message template the text matched.
	Inferred bool `json:"inferred,omitempty"`
	// Controller groups the pods one controller keeps recreating: the pod
	// name without its random suffix (the ReplicaSet of a Deployment pod,
	// the DaemonSet or Job, the StatefulSet of name-N), "" when the name
	// has no such suffix. Rows of one Controller with one Reason are one
	// failure.
	Controller string `json:"controller,omitempty"`
}

// Events is a parsed events document.
type Events struct {
	Source string `json:"source"`
	// Format names what was read: "list" (kubectl get events -o
	// json|yaml), "events-table" (kubectl get events, -o wide, -A, the
	// pre-1.14 columns), "kubectl-events" (kubectl events), "get-pods-table"
	// (kubectl get pods, -o wide, -A), "kubelet-message" (the kubelet's
	// own messages quoted alone), "describe" (kubectl describe pod) or
	// "describe-fragment" (its Events section or Status/Reason/Message
	// lines alone). Input holding several is named by the first; Warnings
	// lists the others.
	Format string  `json:"format"`
	Events []Event `json:"events"`
	// Pod holds what `kubectl describe pod` says about the pod itself.
	Pod *DescribedPod `json:"pod,omitempty"`
	// Warnings says what was guessed, skipped or not an admission failure.
	Warnings []string `json:"warnings,omitempty"`
	// Messages are the kubelet messages of the catalogue in the events'
	// and the pod's messages that the classification calls findings (see
	// Log.Messages).
	Messages     []Message `json:"messages,omitempty"`
	MessagesMore int       `json:"messagesMore,omitempty"`
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
	// A Pod in the list: its status tells an admission failure.
	Metadata struct {
		Name, Namespace string
	} `json:"metadata"`
	Status struct {
		Reason, Message string
	} `json:"status"`
}

// ParseEvents reads pod events, the kind detected from the content:
// `kubectl get events -o json|yaml`; the tables of `kubectl get events`
// (default, -o wide, -A, the pre-1.14 columns) and `kubectl events`;
// `kubectl get pods` tables (default, -o wide, -A; a row whose STATUS is
// an admission reason becomes a Warning event); `kubectl describe pod`
// output, whole or in fragments (its Events section, its Status, Reason
// and Message lines); and the kubelet's admission messages quoted alone
// or inside prose, whose reason is inferred from the message template
// (Event.Inferred). Tables are read from their header's column offsets,
// else split on runs of spaces. Lines it cannot read are skipped with a
// warning; text in which nothing is recognised is an error.
//
// The text may be pasted as it was posted (fences, prompts, quotes, ANSI
// colours, CRLF): it is normalised first, as Set.Add does.
func ParseEvents(name string, data []byte) (*Events, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for an events document", name, len(data), maxEvidenceSize)
	}
	return readEvents(name, paste.Normalize(data).WithKubectlCommands())
}

// readEvents reads normalised text, where the command of a pasted
// `kubectl` prompt line is kept as "$ kubectl ..." on its line.
func readEvents(name string, data []byte) (*Events, error) {
	ev, err := parseEvents(name, data)
	if ev != nil {
		ev.Messages, ev.MessagesMore = eventMessages(ev)
	}
	return ev, err
}

func parseEvents(name string, data []byte) (*Events, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for an events document", name, len(data), maxEvidenceSize)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty events document (pass `kubectl describe pod NAME` or `kubectl get events -o yaml`)", name)
	}
	if body := structuredBody(trimmed); body != nil {
		ev, err := parseEventList(name, body)
		if err == nil {
			return ev, nil
		}
		// JSON log lines and YAML-looking prose may still hold messages.
		if tev, terr := parseEventText(name, string(data)); terr == nil {
			tev.Warnings = append([]string{"not read as an event list (" + err.Error() + "): read as text"}, tev.Warnings...)
			return tev, nil
		}
		return nil, err
	}
	return parseEventText(name, string(data))
}

// structuredBody returns the document when it is a JSON or YAML object or
// list, without the "$ kubectl ..." lines normalisation keeps of a pasted
// prompt; nil otherwise.
func structuredBody(b []byte) []byte {
	if !bytes.HasPrefix(b, []byte("$ ")) && !bytes.Contains(b, []byte("\n$ ")) {
		if isStructured(b) {
			return b
		}
		return nil
	}
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !rePromptLine.Match(bytes.TrimSpace(l)) {
			out = append(out, l)
		}
	}
	body := bytes.TrimSpace(bytes.Join(out, []byte("\n")))
	if len(body) > 0 && isStructured(body) {
		return body
	}
	return nil
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
		if top.Kind == "" && top.Items == nil {
			return nil, fmt.Errorf("%s: not an EventList: the document has neither kind nor items", name)
		}
		if top.Kind == "Event" || top.Kind == "Pod" {
			items = []json.RawMessage{js}
			prefix = "-"
		}
	}
	ev := &Events{Source: name, Format: "list"}
	pods := 0
	for i, raw := range items {
		var e eventJSON
		path := fmt.Sprintf("%s/%d", prefix, i)
		if prefix == "-" {
			path = ""
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: %s: not an Event: %w", name, path, err)
		}
		if e.Kind == "Pod" {
			// `kubectl get pods -o yaml` given as events: a rejected pod's
			// status reason is its admission failure.
			if admissionStatus(e.Status.Reason) {
				ev.Events = append(ev.Events, Event{Path: path + "/status/reason", Type: "Warning", Reason: e.Status.Reason,
					Object: objectRef(e.Metadata.Name, e.Metadata.Namespace), Count: 1, Controller: controllerOf(e.Metadata.Name),
					Message: strings.TrimPrefix(strings.TrimPrefix(e.Status.Message, "Pod was rejected: "), "Pod ")})
			}
			pods++
			continue
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
	if top.Kind != "" && top.Kind != "EventList" && top.Kind != "List" && top.Kind != "Event" && top.Kind != "Pod" && top.Kind != "PodList" {
		return nil, fmt.Errorf("%s: /kind: %q is not an EventList (pass `kubectl get events -o yaml`)", name, top.Kind)
	}
	if pods > 0 {
		ev.Warnings = append(ev.Warnings, words.Count(pods, "pod")+" read for their status: "+strconv.Itoa(len(ev.Events))+" show an admission failure")
	}
	return ev, nil
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
