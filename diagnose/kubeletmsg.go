package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/diagnose/evidence/catalog"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

// messageLead opens the title of a finding drawn from a kubelet message.
var messageLead = map[string]string{
	CodeKubeletError:           "The kubelet reported an error",
	CodeKubeletStartFailed:     "The kubelet cannot start",
	CodeKubeletFlagInvalid:     "The kubelet refuses its command line",
	CodeKubeletConfigInvalid:   "The kubelet refuses its configuration",
	CodeAdmissionRejected:      "A pod was rejected at admission",
	CodeDevicePluginFailed:     "A device plugin failed",
	CodeContainerStartFailed:   "A container could not start",
	CodeDRAPrepareFailed:       "Preparing a pod's dynamic resources failed",
	CodeDRADriverNotRegistered: "A DRA driver is not registered on the node",
}

// generic are the codes that say only that something failed: the
// innermost error the kubelet printed says what.
var generic = map[string]bool{CodeKubeletError: true, CodeKubeletStartFailed: true}

// maxMessageRefs bounds the evidence lines cited per message finding.
const maxMessageRefs = 5

// kubeletMessages turns the kubelet messages the catalogue classifies as
// findings into findings, unless a finding drawn before covers the same
// failure (the rules' own findings explain it better): one cites the same
// line, one of the same code is about the same pod (or about no pod), a
// generic start-up failure is explained by a specific one, or one quotes
// the same words.
func (d *diagnosis) kubeletMessages() {
	before := append([]Finding(nil), d.report.Findings...)
	cited := map[string]bool{}
	startExplained := false
	for _, f := range before {
		for _, r := range f.Evidence {
			cited[refKey(r.File, r.Line, r.Path)] = true
		}
		startExplained = startExplained || explainsExit[f.Code] && f.Code != CodeKubeletStartFailed
	}
	covered := func(file string, m *evidence.Message) bool {
		for _, l := range m.Lines {
			if cited[refKey(file, l, "")] {
				return true
			}
		}
		for _, p := range m.Paths {
			if cited[refKey(file, 0, p)] {
				return true
			}
		}
		if startExplained && (m.Code == CodeKubeletStartFailed || m.Code == CodeKubeletError) {
			return true
		}
		pod, said := messagePod(m), innermostText(m)
		for _, f := range before {
			if f.Code == m.Code && (pod == "" || f.Pod == "" || evidence.SamePod(f.Pod, pod)) {
				return true
			}
			if admissionCodes[m.Code] && admissionCodes[f.Code] && pod != "" && evidence.SamePod(f.Pod, pod) {
				return true
			}
			if said != "" && (strings.Contains(f.inner, said) || quotes(f, said)) {
				return true
			}
		}
		return false
	}
	for _, l := range d.ev.Logs {
		for i := range l.Messages {
			if m := &l.Messages[i]; !covered(l.Name, m) {
				d.add(messageFinding(l.Name, m))
			}
		}
	}
	for _, ev := range d.ev.Events {
		for i := range ev.Messages {
			if m := &ev.Messages[i]; !covered(ev.Source, m) {
				d.add(messageFinding(ev.Source, m))
			}
		}
	}
}

// admissionCodes are the findings of a pod the kubelet rejected at admission.
var admissionCodes = map[string]bool{CodeTopologyAffinityError: true, CodeSMTAlignmentError: true, CodeUnexpectedAdmission: true,
	CodeMemoryGroupExtension: true, CodeDevicesUnavailable: true, CodeAdmissionRejected: true}

// quotes tells whether a finding quotes s in its evidence.
func quotes(f Finding, s string) bool {
	for _, r := range f.Evidence {
		if strings.Contains(r.Quote, s) {
			return true
		}
	}
	return false
}

// innermostText is the kubelet's words of the innermost error of a
// message, as it printed them.
func innermostText(m *evidence.Message) string {
	return hitText(m.Hit.Innermost())
}

// hitText renders a hit as the kubelet printed it: its format with the
// values it printed, or a structured message with its error.
func hitText(h *catalog.Hit) string {
	e := h.Entry
	if e == nil {
		return ""
	}
	if e.Form == catalog.FormStructured {
		s := e.Format
		for _, f := range h.Fields {
			if f.Key == "err" || f.Key == "error" {
				s += ": " + f.Value
			}
		}
		return s
	}
	var b strings.Builder
	k := 0
	for _, p := range catalog.ParseFormat(e.Format) {
		if p.Verb == "" {
			b.WriteString(p.Lit)
			continue
		}
		v := "…"
		for _, c := range h.Captures {
			if c.Index == k {
				v = c.Text
				if p.Char == 'q' {
					v = strconv.Quote(v)
				}
			}
		}
		b.WriteString(v)
		k++
	}
	return b.String()
}

func refKey(file string, line int, path string) string {
	return file + "\x00" + strconv.Itoa(line) + "\x00" + path
}

// messageFinding is the finding of one kubelet message: the class's code
// and severity, the kubelet's words, what they mean in its code and what
// to do, with the values the kubelet printed.
func messageFinding(file string, m *evidence.Message) Finding {
	at := m.At
	if at == nil {
		at = &m.Hit
	}
	words1 := hitText(at)
	if generic[m.Code] || words1 == "" {
		words1 = innermostText(m)
	}
	lead := messageLead[m.Code]
	if lead == "" {
		lead = "The kubelet says"
	}
	f := Finding{Code: m.Code, Severity: statefile.Severity(m.Class.Severity),
		Title: lead + ": " + words.Clip(words1, 200)}
	if f.Severity == "" {
		f.Severity = statefile.SeverityWarning
	}
	var b strings.Builder
	b.WriteString(m.Class.Explain(m.Hit))
	if e := at.Entry; e != nil {
		fmt.Fprintf(&b, " The kubelet prints this in releases %s", e.Releases)
		if len(e.Sites) > 0 {
			fmt.Fprintf(&b, " (%s, %s)", e.Sites[0].File, e.Sites[0].Func)
		}
		b.WriteString(".")
	}
	if m.Count > 1 {
		fmt.Fprintf(&b, " Seen %s in %s.", words.Count(m.Count, "time"), file)
	}
	f.Explanation = strings.TrimSpace(b.String())
	f.Remedy = m.Class.Remedy(m.Hit)
	quote := words.Clip(m.Text, 300)
	for i, l := range m.Lines {
		if i == maxMessageRefs {
			break
		}
		f.Evidence = append(f.Evidence, Ref{File: file, Line: l, Quote: quote})
	}
	for i, p := range m.Paths {
		if i == maxMessageRefs {
			break
		}
		f.Evidence = append(f.Evidence, Ref{File: file, Path: p, Quote: quote})
	}
	if len(f.Evidence) == 0 {
		f.Evidence = []Ref{{File: file, Quote: quote}}
	}
	if pod := messagePod(m); pod != "" {
		f.Pod = pod
	}
	f.inner = m.Text
	return f
}

// messagePod is the pod a message names in a structured field.
func messagePod(m *evidence.Message) string {
	for _, h := range m.Hit.Chain() {
		for _, f := range h.Fields {
			if f.Key == "pod" && f.Value != "" && !strings.ContainsAny(f.Value, " {}") {
				return f.Value
			}
		}
	}
	return ""
}

// runtimeFailures are the findings of a kubelet that crashed or exited:
// Go panics, and systemd's report of the unit, when no finding explains it.
func (d *diagnosis) runtimeFailures() {
	for _, l := range d.ev.Logs {
		var panics []evidence.Signal
		for _, p := range l.SignalsOf(evidence.SignalPanic) {
			if !d.citeIfSaid(Ref{File: l.Name, Line: p.Line, Quote: words.Clip(p.Fields["panic"], 300)}, strings.TrimPrefix(p.Fields["panic"], "panic: ")) {
				panics = append(panics, p)
			}
		}
		if len(panics) > 0 {
			d.add(panicFinding(l, panics))
		}
		var exits []evidence.Signal
		restarts := 0
		for _, s := range l.SignalsOf(evidence.SignalUnit) {
			switch s.Fields["event"] {
			case "exited", "failed", "start-limit":
				if s.Fields["status"] != "0/SUCCESS" && s.Fields["result"] != "success" {
					exits = append(exits, s)
				}
			case "restart":
				if n, err := strconv.Atoi(s.Fields["restarts"]); err == nil && n > restarts {
					restarts = n
				}
			}
		}
		if len(exits) > 0 {
			d.exitFinding(l, exits, restarts)
		}
	}
}

// citeIfSaid adds ref to the first finding that quotes what it says
// (the kubelet panics on purpose with an error it logged just before),
// and tells whether there was one.
func (d *diagnosis) citeIfSaid(ref Ref, said string) bool {
	said = words.Clip(strings.TrimSpace(said), 120)
	said = strings.TrimSuffix(said, "...")
	if len(said) < 16 {
		return false
	}
	for i := range d.report.Findings {
		f := &d.report.Findings[i]
		if strings.Contains(f.inner, said) || quotes(*f, said) {
			f.Evidence = append(f.Evidence, ref)
			return true
		}
	}
	return false
}

func panicFinding(l *evidence.KubeletLog, panics []evidence.Signal) Finding {
	s := panics[0]
	where := "the kubelet's code"
	if mgr := s.Fields["manager"]; mgr != "" {
		where = "the container manager's " + mgr + " package"
	}
	f := Finding{Code: CodeKubeletPanic, Severity: statefile.SeverityError,
		Title: fmt.Sprintf("The kubelet crashed: %s (in %s)", words.Clip(s.Fields["panic"], 160), where)}
	var b strings.Builder
	b.WriteString("A Go panic ends the kubelet process at once: no pod is admitted and none of its managers runs until it starts again. ")
	if fr := s.Fields["frame"]; fr != "" {
		fmt.Fprintf(&b, "The first frame in the kubelet's code is %s. ", fr)
	}
	b.WriteString("When the panic comes from what the kubelet restores or re-admits at start-up (its checkpoints, the pods already bound to the node), it panics again on every restart.")
	if len(panics) > 1 {
		fmt.Fprintf(&b, " The log holds %s.", words.Count(len(panics), "panic"))
	}
	f.Explanation = b.String()
	f.Remedy = "Keep the whole panic with its goroutine frames and the kubelet's version (`kubelet --version`): it is a kubelet bug to report upstream with them. " +
		"Read the lines just before the panic for the pod or checkpoint it was handling; if the frames are in a manager's state restore, draining the node and moving that manager's checkpoint away (keep a copy) lets the kubelet start."
	for i, p := range panics {
		if i == maxMessageRefs {
			break
		}
		f.Evidence = append(f.Evidence, Ref{File: l.Name, Line: p.Line, Quote: words.Clip(p.Fields["panic"], 300)})
	}
	return f
}

// explainsExit are the codes of findings that say why a kubelet stopped.
var explainsExit = map[string]bool{CodeKubeletStartFailed: true, CodeKubeletFlagInvalid: true, CodeKubeletConfigInvalid: true,
	CodeCorruptCheckpoint: true, CodeCheckpointPolicyMismatch: true, CodeMemoryStateReplay: true, CodeKubeletPanic: true,
	CodeReservedMemoryMismatch: true, CodeTooManyNUMANodes: true, CodeNUMATotalsChanged: true}

// exitFinding adds systemd's lines about the kubelet's exits to the
// finding that says why it stops, or, when none does, a finding that says
// what is missing.
func (d *diagnosis) exitFinding(l *evidence.KubeletLog, exits []evidence.Signal, restarts int) {
	var refs []Ref
	for i, e := range exits {
		if i == maxMessageRefs {
			break
		}
		refs = append(refs, Ref{File: l.Name, Line: e.Line, Quote: words.Clip(e.Text, 300)})
	}
	for i := range d.report.Findings {
		if f := &d.report.Findings[i]; explainsExit[f.Code] {
			f.Evidence = append(f.Evidence, refs...)
			return
		}
	}
	s := exits[len(exits)-1]
	status := words.Or(s.Fields["status"], s.Fields["result"])
	title := fmt.Sprintf("systemd reports the kubelet's process exited (%s)", words.Or(status, "failed"))
	if restarts > 0 {
		title += fmt.Sprintf(", restarted %s", words.Count(restarts, "time"))
	}
	d.add(Finding{Code: CodeKubeletExited, Severity: statefile.SeverityError, Title: title, Evidence: refs,
		Explanation: "The kubelet's unit stopped with an error and systemd restarts it; nothing in the evidence says why it stops. " +
			"The kubelet prints its reason as its last lines before the exit: an F line, a \"failed to run Kubelet\" or \"command failed\" record, or \"Error: ...\" printed before its logging starts.",
		Remedy: "Add the kubelet's own lines before the exit (`journalctl -u kubelet -b --no-pager | grep -B 30 'Main process exited'`) and run the diagnosis again."})
}

// fatalRecords are the findings of the kubelet's fatal records (klog's
// Fatal and Exit families end the process) that no finding explains: the
// kubelet stopped, and its words say why even when the catalogue does not
// know them.
func (d *diagnosis) fatalRecords() {
	cited := map[string]bool{}
	for _, f := range d.report.Findings {
		for _, r := range f.Evidence {
			cited[refKey(r.File, r.Line, r.Path)] = true
		}
	}
	for _, l := range d.ev.Logs {
		seen := map[string]int{}
		var order []string
		var lines = map[string][]int{}
		for _, r := range l.Records {
			if r.Severity != "F" || cited[refKey(l.Name, r.Line, "")] {
				continue
			}
			text, _, _ := strings.Cut(r.Text(), "\n")
			text = words.Clip(text, 300)
			if seen[text] == 0 {
				order = append(order, text)
			}
			seen[text]++
			if len(lines[text]) < maxMessageRefs {
				lines[text] = append(lines[text], r.Line)
			}
		}
		for i, text := range order {
			if i == maxMessageRefs {
				break
			}
			f := Finding{Code: CodeKubeletError, Severity: statefile.SeverityError,
				Title: "The kubelet stopped on a fatal error: " + words.Clip(text, 200),
				Explanation: "klog's Fatal (and Exit) print this line and end the kubelet's process: nothing runs until systemd starts it again. " +
					"numascope's catalogue of the kubelet's messages does not know these words, so what they mean is the kubelet's own text.",
				Remedy: "Read the error as the kubelet printed it (the lines just before it often say more), mend what it names, and restart the kubelet.",
				inner:  text}
			for _, ln := range lines[text] {
				f.Evidence = append(f.Evidence, Ref{File: l.Name, Line: ln, Quote: text})
			}
			if seen[text] > 1 {
				f.Explanation += fmt.Sprintf(" Seen %s.", words.Count(seen[text], "time"))
			}
			d.add(f)
		}
	}
}

// unreadableInputs are the findings of inputs no reader could read: a
// report over them says nothing about what they hold.
func (d *diagnosis) unreadableInputs() {
	for _, it := range d.report.Evidence {
		if it.Status != "refused" {
			continue
		}
		d.add(Finding{Code: CodeEvidenceUnreadable, Severity: statefile.SeverityWarning,
			Title:       fmt.Sprintf("%s could not be read: nothing in it was checked", it.File),
			Explanation: "numascope read none of this input, so no finding (and no absence of one) rests on it: " + words.Clip(it.Error, 600),
			Remedy:      "Pass it again as the error says (the whole file, unedited, or as the kind it is), or leave it out.",
			Evidence:    []Ref{{File: it.File, Quote: words.Clip(it.Error, 300)}}})
	}
}
