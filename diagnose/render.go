package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/statefile"
)

// WriteJSON writes the report as indented JSON (schema numascope.diagnose/v1).
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Headline is the report in one line, the first line of the text report:
// the most severe finding (findings are sorted worst first) and the count
// of findings by severity, or why there are none.
func (r Report) Headline() string {
	if len(r.Findings) == 0 {
		switch {
		case len(r.Evidence) == 0:
			return "✓ no findings (no evidence given)"
		case len(r.notUsed()) == len(r.Evidence):
			return "✗ no findings: no input could be read"
		}
		return "✓ no findings: nothing in the evidence points at a problem"
	}
	top := r.Findings[0]
	mark := "✓"
	switch top.Severity {
	case statefile.SeverityError:
		mark = "✗"
	case statefile.SeverityWarning:
		mark = "!"
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{r.Summary.Errors, "error"}, {r.Summary.Warnings, "warning"}, {r.Summary.Infos, "note"}} {
		if c.n > 0 {
			counts = append(counts, words.Count(c.n, c.what))
		}
	}
	return fmt.Sprintf("%s %s: %s — %s", mark, top.Code, words.Clip(top.Title, 300), strings.Join(counts, ", "))
}

// WriteText writes the report for a terminal, the headline first.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Headline() + "\n")
	if r.Kubelet != "" {
		fmt.Fprintf(&b, "Kubelet: %s\n", words.Clip(r.Kubelet, 300))
	}
	if r.Next != "" {
		b.WriteString("Next:\n")
		wrap(&b, r.Next, "  ")
	}
	if unused := r.notUsed(); len(unused) > 0 {
		fmt.Fprintf(&b, "\nEvidence not used (%d of %d inputs):\n", len(unused), len(r.Evidence))
		for _, e := range unused {
			fmt.Fprintf(&b, "  - %s: %s: %s\n", e.File, e.Status, words.Clip(words.Or(e.Error, e.Note), 600))
		}
	}
	if moved := r.readAsOther(); len(moved) > 0 {
		b.WriteString("\nEvidence read as another kind than given:\n")
		for _, e := range moved {
			fmt.Fprintf(&b, "  - %s: %s\n", e.File, words.Clip(e.Warnings[0], 300))
		}
	}
	for i, f := range r.Findings {
		fmt.Fprintf(&b, "\n%d. [%s] %s: %s\n", i+1, strings.ToUpper(string(f.Severity)), f.Code, f.Title)
		wrap(&b, f.Explanation, "   ")
		if a := f.TopologyAffinityError; a != nil {
			fmt.Fprintf(&b, "   Cause: %s\n", a.Cause)
			if a.SimulatedBestHint != nil || a.Agree != nil {
				fmt.Fprintf(&b, "   Simulated best hint: %s", hintText(a.SimulatedBestHint))
				if a.Agree != nil {
					fmt.Fprintf(&b, " (agrees with the log: %v)", *a.Agree)
				}
				b.WriteString("\n")
			}
			if len(a.Resources) > 0 {
				b.WriteString("   Resource            NUMA      Requested   Free         Fits Note\n")
				for _, row := range a.Resources {
					fmt.Fprintf(&b, "   %-19s %-9s %-11s %-12s %-4s %s\n", row.Resource, words.Nodes(row.NUMANodes), orDash(row.Requested), orDash(row.Free), yesNo(row.Fits), row.Note)
				}
			}
			if len(a.LoggedHints) > 0 {
				b.WriteString("   Hints logged by the kubelet:\n")
				for _, p := range a.LoggedHints {
					fmt.Fprintf(&b, "     %-7s %s\n", p.Provider, providerText(p))
				}
			}
			if len(a.SimulatedHints) > 0 {
				b.WriteString("   Hints computed from the state files:\n")
				for _, p := range a.SimulatedHints {
					fmt.Fprintf(&b, "     %-7s %s\n", p.Provider, providerText(p))
				}
			}
		}
		if f.Remedy != "" {
			b.WriteString("   Remedy:\n")
			wrap(&b, f.Remedy, "   ")
		}
		if len(f.Evidence) > 0 {
			b.WriteString("   Evidence:\n")
			for _, e := range f.Evidence {
				fmt.Fprintf(&b, "     - %s", e)
				if e.Quote != "" {
					fmt.Fprintf(&b, "  %q", words.Clip(e.Quote, 120))
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report for a ticket or a pull request.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## numascope diagnosis\n\n")
	b.WriteString("**" + strings.NewReplacer("*", `\*`, "_", `\_`, "|", `\|`, "\n", " ").Replace(r.Headline()) + "**\n")
	if r.Kubelet != "" {
		fmt.Fprintf(&b, "\nKubelet: %s\n", mdEscape(words.Clip(r.Kubelet, 300)))
	}
	if r.Next != "" {
		fmt.Fprintf(&b, "\n**Next:** %s\n", r.Next)
	}
	if unused := r.notUsed(); len(unused) > 0 {
		fmt.Fprintf(&b, "\n**Evidence not used (%d of %d inputs):**\n\n", len(unused), len(r.Evidence))
		for _, e := range unused {
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", mdEscape(e.File), e.Status, mdEscape(words.Clip(words.Or(e.Error, e.Note), 600)))
		}
	}
	if len(r.Evidence) > 0 {
		b.WriteString("\n| evidence | kind | status | format | note |\n|---|---|---|---|---|\n")
		for _, e := range r.Evidence {
			note := e.Note
			if len(e.Warnings) > 0 {
				note = strings.TrimPrefix(note+"; "+e.Warnings[0], "; ")
				if len(e.Warnings) > 1 {
					note += fmt.Sprintf(" (+%d more)", len(e.Warnings)-1)
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", mdEscape(e.File), e.Kind, e.Status, e.Format, mdEscape(note))
		}
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n### %s `%s`: %s\n\n", severityIcon(f.Severity), f.Code, mdEscape(f.Title))
		b.WriteString(f.Explanation + "\n")
		if a := f.TopologyAffinityError; a != nil {
			fmt.Fprintf(&b, "\n**Cause:** `%s`", a.Cause)
			if a.Policy != "" {
				fmt.Fprintf(&b, " (policy `%s`, scope `%s`)", a.Policy, words.Or(a.Scope, "container"))
			}
			b.WriteString("\n")
			if len(a.Resources) > 0 {
				b.WriteString("\n| resource | NUMA | requested | free | fits | note |\n|---|---|---|---|---|---|\n")
				for _, row := range a.Resources {
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", row.Resource, words.Nodes(row.NUMANodes), orDash(row.Requested), orDash(row.Free), yesNo(row.Fits), mdEscape(row.Note))
				}
			}
			if len(a.LoggedHints) > 0 {
				b.WriteString("\nHints logged by the kubelet:\n\n")
				for _, p := range a.LoggedHints {
					fmt.Fprintf(&b, "- %s: `%s`\n", p.Provider, providerText(p))
				}
			}
			if len(a.SimulatedHints) > 0 {
				b.WriteString("\nHints computed from the state files:\n\n")
				for _, p := range a.SimulatedHints {
					fmt.Fprintf(&b, "- %s: `%s`\n", p.Provider, providerText(p))
				}
			}
		}
		if f.Remedy != "" {
			b.WriteString("\n**Remedy:** " + f.Remedy + "\n")
		}
		if len(f.Evidence) > 0 {
			b.WriteString("\nEvidence:\n\n")
			for _, e := range f.Evidence {
				fmt.Fprintf(&b, "- `%s`", mdEscape(e.String()))
				if e.Quote != "" {
					fmt.Fprintf(&b, ": `%s`", strings.ReplaceAll(words.Clip(e.Quote, 160), "`", "'"))
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// notUsed lists the inputs that were refused or held nothing usable.
func (r Report) notUsed() []evidence.Item {
	var out []evidence.Item
	for _, e := range r.Evidence {
		if !e.Used() {
			out = append(out, e)
		}
	}
	return out
}

// readAsOther lists the inputs read as another kind than they were given as.
func (r Report) readAsOther() []evidence.Item {
	var out []evidence.Item
	for _, e := range r.Evidence {
		if e.Used() && e.Given != "" && len(e.Warnings) > 0 {
			out = append(out, e)
		}
	}
	return out
}

func severityIcon(s statefile.Severity) string {
	switch s {
	case statefile.SeverityError:
		return "Error"
	case statefile.SeverityWarning:
		return "Warning"
	}
	return "Note"
}

func hintText(h *evidence.Hint) string {
	if h == nil {
		return "-"
	}
	return h.String()
}

func providerText(p evidence.ProviderHints) string {
	if p.NoPreference {
		if p.EmptyMap && p.Provider == "memory" {
			// The Static memory policy answers {} for a Guaranteed container
			// when no NUMA node or set of nodes can hold it.
			return "{} (no NUMA node or set of NUMA nodes can hold it)"
		}
		if p.EmptyMap {
			return "{} (no hints: no preference)"
		}
		return "null (no preference)"
	}
	var parts []string
	for _, r := range p.Resources {
		switch {
		case r.NoPreference:
			parts = append(parts, r.Resource+": no preference")
		case r.Impossible:
			parts = append(parts, r.Resource+": [] (nowhere)")
		default:
			hs := make([]string, len(r.Hints))
			for i, h := range r.Hints {
				hs[i] = h.String()
			}
			parts = append(parts, r.Resource+": "+strings.Join(hs, " "))
		}
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

func wrap(b *strings.Builder, text, indent string) {
	const width = 100
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line)+len(word)+1 > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = indent
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	if strings.TrimSpace(line) != "" {
		b.WriteString(line + "\n")
	}
}
