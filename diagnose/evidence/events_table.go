package evidence

import (
	"regexp"
	"strings"
)

// textTable is a table header: its column names and where they start.
type textTable struct {
	kind      string // formatPodsTable or formatEventsTable, or "describe"
	names     []string
	starts    []int
	collapsed bool // single spaces between the header's columns
	line      int
}

func (t *textTable) has(col string) bool { return contains(t.names, col) }

// indexOf and contains are slices.Index and slices.Contains for strings,
// written out: each generic instantiation costs the browser build.
func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool { return indexOf(list, s) >= 0 }

// end returns where a column ends: the next column's start (-1 when it is
// the last column or unknown).
func (t *textTable) end(col string) int {
	j := indexOf(t.names, col)
	if j < 0 || j+1 >= len(t.starts) {
		return -1
	}
	return t.starts[j+1]
}

var (
	podsColumns   = []string{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}
	eventsColumns = []string{"NAMESPACE", "LAST SEEN", "FIRST SEEN", "COUNT", "NAME", "KIND", "SUBOBJECT", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"}
	// describeColumns are the Events section's, today's and pre-1.14's.
	describeColumns = []string{"TYPE", "REASON", "AGE", "FROM", "MESSAGE", "FIRSTSEEN", "LASTSEEN", "COUNT", "SUBOBJECTPATH"}
	reRun2          = regexp.MustCompile(`\S+(?: \S+)*`)
)

// parseHeader reads a header line whose columns are all among known,
// either aligned (columns two or more spaces apart) or collapsed to
// single spaces.
func parseHeader(line string, known []string) (*textTable, bool) {
	t := &textTable{}
	for _, loc := range reRun2.FindAllStringIndex(line, -1) {
		name := strings.ToUpper(line[loc[0]:loc[1]])
		if !contains(known, name) {
			t = nil
			break
		}
		t.names = append(t.names, name)
		t.starts = append(t.starts, loc[0])
	}
	if t != nil && len(t.names) >= 3 {
		return t, true
	}
	// Collapsed: single spaces; match two-word names first.
	words := strings.Fields(line)
	t = &textTable{collapsed: true}
	for i := 0; i < len(words); {
		w := strings.ToUpper(words[i])
		if i+1 < len(words) && contains(known, w+" "+strings.ToUpper(words[i+1])) {
			t.names = append(t.names, w+" "+strings.ToUpper(words[i+1]))
			i += 2
			continue
		}
		if !contains(known, w) {
			return nil, false
		}
		t.names = append(t.names, w)
		i++
	}
	return t, len(t.names) >= 3
}

// podsHeader and eventsHeader read the header of a `kubectl get pods` and
// of a `kubectl get events` / `kubectl events` table.
func podsHeader(line string) (*textTable, bool) {
	if !strings.Contains(line, "STATUS") || !strings.Contains(line, "READY") {
		return nil, false
	}
	t, ok := parseHeader(line, podsColumns)
	return t, ok && t.has("NAME") && t.has("STATUS") && t.has("READY")
}

func eventsHeader(line string) (*textTable, bool) {
	if !strings.Contains(line, "REASON") || !strings.Contains(line, "TYPE") {
		return nil, false
	}
	t, ok := parseHeader(line, eventsColumns)
	return t, ok && t.has("TYPE") && t.has("REASON") && (t.has("MESSAGE") || t.has("LAST SEEN"))
}

// cells cuts a row at the header's offsets. ok is false when the row
// does not line up with the header (then callers split it by shape).
func (t *textTable) cells(line string, required ...string) (map[string]string, bool) {
	if t.collapsed || len(t.starts) == 0 {
		return nil, false
	}
	last := 0 // the start of the last required column
	for _, r := range required {
		if j := indexOf(t.names, r); j >= 0 {
			last = max(last, t.starts[j])
		}
	}
	if len(line) <= last || len(line) < t.starts[0] || strings.TrimSpace(line[:t.starts[0]]) != "" {
		return nil, false
	}
	out := make(map[string]string, len(t.names))
	for j, start := range t.starts {
		if start >= len(line) {
			out[t.names[j]] = ""
			continue
		}
		if start > 0 && line[start-1] != ' ' {
			return nil, false
		}
		end := len(line)
		if j+1 < len(t.starts) {
			end = t.starts[j+1]
		}
		end = min(end, len(line))
		out[t.names[j]] = strings.TrimSpace(line[start:end])
	}
	for _, r := range required {
		if j := indexOf(t.names, r); j < 0 || line[t.starts[j]] == ' ' {
			return nil, false
		}
	}
	return out, true
}
