package evidence

import (
	"strconv"
	"strings"
)

func (r *textReader) podRow(t *textTable, line string, ln int) bool {
	var ns, name, ready, status, node string
	if t != nil {
		if c, ok := t.cells(line, "NAME", "READY", "STATUS"); ok && reReady.MatchString(c["READY"]) && c["NAME"] != "" && c["STATUS"] != "" {
			ns, name, ready, status, node = c["NAMESPACE"], c["NAME"], c["READY"], c["STATUS"], c["NODE"]
		}
	}
	if name == "" {
		m := rePodRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			c := rePodRowCut.FindStringSubmatch(strings.TrimSpace(line))
			if c == nil || !admissionStatus(strings.Join(strings.Fields(c[4]), " ")) {
				return false
			}
			r.warnf("line %d: a `kubectl get pods` row without its AGE column (cut?): read by its shape", ln)
			m = append(c, "", "")
		}
		ns, name, ready, status = m[1], m[2], m[3], strings.Join(strings.Fields(m[4]), " ")
		if t != nil && !t.has("NAMESPACE") && ns != "" || t != nil && t.has("NAMESPACE") && ns == "" {
			return false
		}
		if t != nil && t.has("NODE") {
			if wide := strings.Fields(m[7]); len(wide) >= 2 {
				node = wide[1]
			}
		}
		if t == nil {
			r.saw(formatPodsTable)
		}
	}
	_ = ready
	if ns == "" {
		ns = r.namespace
	}
	if t != nil && !admissionStatus(status) && len(strings.TrimRight(line, " ")) <= t.end("STATUS") && len(status) >= 6 {
		// The row ends inside STATUS: cut at the terminal's width.
		for _, full := range []string{"TopologyAffinityError", "SMTAlignmentError", "UnexpectedAdmissionError", "EmptyPodSharedPoolError"} {
			if strings.HasPrefix(full, status) && full != status {
				r.warnf("line %d: STATUS %q is cut at the terminal's width: read as %s", ln, status, full)
				status = full
				break
			}
		}
	}
	r.podRows++
	if node != "" && node != "<none>" {
		r.nodes[node]++
	}
	if !admissionStatus(status) {
		r.otherRows[status]++
		return true
	}
	r.add(Event{Line: ln, Type: "Warning", Reason: status, Object: objectRef(name, ns), Count: 1, Controller: controllerOf(name)})
	return true
}

func (r *textReader) eventRow(t *textTable, line string, ln int) bool {
	var c map[string]string
	if t != nil {
		var ok bool
		if c, ok = t.cells(line, "TYPE", "REASON"); !ok || (c["TYPE"] != "Normal" && c["TYPE"] != "Warning") {
			c = nil
		}
	}
	if c == nil {
		m := reEventRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			if t == nil {
				return false
			}
			return r.eventRowByType(t, line, ln)
		}
		if t != nil && (t.has("NAMESPACE") != (m[1] != "")) {
			return r.eventRowByType(t, line, ln)
		}
		c = map[string]string{"NAMESPACE": m[1], "LAST SEEN": m[2], "TYPE": m[3], "REASON": m[4], "OBJECT": m[5], "MESSAGE": m[6]}
	}
	obj := c["OBJECT"]
	if obj == "" && c["NAME"] != "" {
		// Before 1.14: KIND and NAME columns.
		kind := c["KIND"]
		if kind == "" {
			kind = "pod"
		}
		obj = kind + "/" + c["NAME"]
	}
	format := formatEventsTable
	if k, _, ok := strings.Cut(c["OBJECT"], "/"); ok && k != strings.ToLower(k) {
		format = formatKubectlEvents
	}
	r.saw(format)
	e := Event{Line: ln, Type: c["TYPE"], Reason: c["REASON"], Message: c["MESSAGE"], From: c["SOURCE"], Count: countOf(c["LAST SEEN"])}
	if obj != "" {
		ns := c["NAMESPACE"]
		if ns == "" {
			ns = r.namespace
		}
		e.Object = objectRef(obj, ns)
	}
	if n, err := strconv.Atoi(c["COUNT"]); err == nil && e.Count == 0 {
		e.Count = n
	}
	if e.Count == 0 {
		e.Count = 1
	}
	r.add(e)
	return true
}

// eventRowByType reads a row whose columns do not line up with the
// header (collapsed spacing, empty SUBOBJECT cells): TYPE and REASON
// follow each other; OBJECT is the first kind/name after them.
func (r *textReader) eventRowByType(t *textTable, line string, ln int) bool {
	f := strings.Fields(line)
	if !t.collapsed {
		f = reColumnGap.Split(strings.TrimSpace(line), -1)
	}
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "Normal" && f[i] != "Warning" {
			continue
		}
		e := Event{Line: ln, Type: f[i], Reason: f[i+1], Count: max(countOf(line), 1)}
		rest := f[i+2:]
		if len(rest) > 0 && strings.Contains(rest[0], "/") {
			e.Object = objectRef(rest[0], "")
			rest = rest[1:]
		}
		e.Message = strings.Join(rest, " ")
		if !t.collapsed {
			e.Message = strings.Join(rest, "  ")
		}
		r.saw(formatEventsTable)
		if !t.collapsed {
			r.warnf("line %d: the row does not line up with the header on line %d: message read as the rest of the row", ln, t.line)
		}
		r.add(e)
		return true
	}
	return false
}

func (r *textReader) describeRow(t *textTable, line string, ln int) bool {
	trim := strings.TrimSpace(line)
	var e Event
	if t != nil && !t.has("AGE") {
		// Before 1.14: FirstSeen LastSeen Count From SubObjectPath Type Reason Message.
		c, ok := t.cells(line, "TYPE", "REASON")
		switch {
		case ok && (c["TYPE"] == "Normal" || c["TYPE"] == "Warning"):
			e = Event{Line: ln, Type: c["TYPE"], Reason: c["REASON"], From: c["FROM"], Message: c["MESSAGE"]}
			e.Count, _ = strconv.Atoi(c["COUNT"])
		default:
			// Tab-separated in those releases: Type and Reason follow each
			// other, the message is the rest.
			f := reColumnGap.Split(strings.TrimSpace(line), -1)
			i := indexOf(f, "Warning")
			if j := indexOf(f, "Normal"); j >= 0 && (i < 0 || j < i) {
				i = j
			}
			if i < 0 || i+1 >= len(f) {
				return false
			}
			e = Event{Line: ln, Type: f[i], Reason: f[i+1], Message: strings.Join(f[i+2:], "  ")}
			if i >= 3 {
				e.Count, _ = strconv.Atoi(f[2])
			}
		}
	} else {
		m := reDescribeRow.FindStringSubmatch(trim)
		if m == nil {
			m = reDescribeRowCollapsed.FindStringSubmatch(trim)
		}
		if m == nil {
			return false
		}
		e = Event{Line: ln, Type: m[1], Reason: m[2], From: m[4], Message: m[5], Count: countOf(m[3])}
	}
	if t == nil && !r.markers["Events"] {
		r.saw(formatFragment)
	}
	if p := r.ev.Pod; p != nil && p.Name != "" && r.markers["Events"] {
		e.Object = objectRef(p.Name, p.Namespace)
	}
	r.add(e)
	return true
}

// describeField reads a `Key:  value` line of a describe header: only the
// fields kubectl describe prints at column 0.
func describeField(line string) (string, string, bool) {
	if strings.HasPrefix(line, " ") {
		return "", "", false
	}
	k, v, ok := strings.Cut(line, ":")
	if !ok || !describeKeys[k] {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

var describeKeys = map[string]bool{"Name": true, "Namespace": true, "Priority": true, "Priority Class Name": true,
	"Service Account": true, "Node": true, "Start Time": true, "Labels": true, "Annotations": true, "Status": true,
	"Reason": true, "Message": true, "IP": true, "IPs": true, "Controlled By": true, "Containers": true,
	"Init Containers": true, "Conditions": true, "Volumes": true, "QoS Class": true, "Node-Selectors": true,
	"Tolerations": true, "Runtime Class Name": true}

func (r *textReader) describeField(k, v string, ln int) {
	r.markers[k] = true
	if r.ev.Pod == nil {
		r.ev.Pod = &DescribedPod{Lines: map[string]int{}}
	}
	p := r.ev.Pod
	switch k {
	case "Name":
		if p.Name != "" {
			// `kubectl describe pods`: the next pod. Keep what the last one
			// said as an event.
			r.flushPod(p)
			p = &DescribedPod{Lines: map[string]int{}}
			r.ev.Pod = p
		}
		p.Name = v
	case "Namespace":
		p.Namespace = v
	case "Status":
		p.Status = v
	case "Reason":
		p.Reason = v
	case "Message":
		p.Message = v
	case "QoS Class":
		p.QOSClass = v
	case "Node":
		p.Node = v
	default:
		return
	}
	p.Lines[k] = ln
}

func (r *textReader) flushPod(p *DescribedPod) {
	if !admissionStatus(p.Reason) {
		return
	}
	r.add(Event{Line: p.Lines["Reason"], Type: "Warning", Reason: p.Reason, Object: objectRef(p.Name, p.Namespace), Count: 1,
		Message: strings.TrimPrefix(strings.TrimPrefix(p.Message, "Pod was rejected: "), "Pod "), Controller: controllerOf(p.Name)})
}
