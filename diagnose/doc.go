// Package diagnose turns the evidence found on a Kubernetes node (kubelet logs,
// state files, PodResources snapshots, the pod, its events and the kubelet
// configuration) into findings that say what the Topology Manager and the
// CPU, Memory and Device managers did, why, and what to do about it.
//
// Evidence arrives as people have it: Evidence.Add takes any input, passes
// it through the paste normaliser (Markdown fences and quotes, shell prompts,
// HTML entities, smart quotes, CRLF, ANSI codes) and detects its kind from
// the content; a kind given by the caller is tried first. Load does the same
// for files, and never stops at one it cannot read: every input is listed in
// Report.Evidence with what was read from it (kind, format, counts,
// warnings with their lines) or why it was refused, and the text and
// Markdown reports name the inputs that were not used near the top.
//
// Every finding has a stable code, a severity, an explanation in plain words,
// references to the evidence it rests on (file and line, or JSON path) and a
// remedy; Run collects them into a Report that renders as text, JSON or Markdown.
package diagnose
