package topomgr

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
)

// This file reads the kubelet's command line in the forms people paste it
// (one line, \ continuations, ps output, /proc/PID/cmdline without its
// NULs, systemd units and environment files, the kubelet's own FLAG: dump,
// minikube --extra-config) and applies it with pflag's rules as the
// kubelet's AddKubeletConfigFlags binds the flags (cmd/kubelet/app/options,
// component-base/cli/flag, pkg/util/flag).

// flagKind is how a kubelet flag's pflag.Value parses its text.
type flagKind uint8

const (
	flagString      flagKind = iota + 1 // StringVar: the last value wins
	flagMap                             // MapStringString: k=v[,k=v], the first use clears the map
	flagMapNoSplit                      // MapStringStringNoSplit: one k=v per use
	flagLangleMap                       // LangleSeparatedMapStringString: k<v[,k<v]
	flagBoolMap                         // MapStringBool: k=bool[,k=bool]
	flagReservedMem                     // ReservedMemoryVar: N:type=q[,type=q][;N:...], appends
	flagPath                            // --config
)

// kubeletFlag is one flag numascope reads and the field it sets.
type kubeletFlag struct {
	Field string
	Kind  flagKind
	// Default is the built-in default as the kubelet's FLAG: dump prints it.
	Default string
}

// kubeletFlags are the kubelet flags bound to the fields KubeletConfig
// reads (options.AddKubeletConfigFlags), by flag name.
var kubeletFlags = map[string]kubeletFlag{
	"cpu-manager-policy":              {"cpuManagerPolicy", flagString, defaultCPUManagerPolicy},
	"cpu-manager-policy-options":      {"cpuManagerPolicyOptions", flagMapNoSplit, ""},
	"memory-manager-policy":           {"memoryManagerPolicy", flagString, defaultMemoryManagerPolicy},
	"reserved-memory":                 {"reservedMemory", flagReservedMem, ""},
	"topology-manager-policy":         {"topologyManagerPolicy", flagString, DefaultTopologyManagerPolicy},
	"topology-manager-scope":          {"topologyManagerScope", flagString, DefaultTopologyManagerScope},
	"topology-manager-policy-options": {"topologyManagerPolicyOptions", flagMap, ""},
	"reserved-cpus":                   {"reservedSystemCPUs", flagString, ""},
	"kube-reserved":                   {"kubeReserved", flagMap, ""},
	"system-reserved":                 {"systemReserved", flagMap, ""},
	"eviction-hard":                   {"evictionHard", flagLangleMap, ""},
	"feature-gates":                   {"featureGates", flagBoolMap, ""},
	"config":                          {"", flagPath, ""},
}

// enumValues are the values the kubelet accepts for the enumerated flags
// (a value cut by a terminal is told from a whole one by them).
var enumValues = map[string][]string{
	"cpu-manager-policy":      {"none", "static"},
	"memory-manager-policy":   {"None", "Static"},
	"topology-manager-policy": {"none", "best-effort", "restricted", "single-numa-node"},
	"topology-manager-scope":  {"container", "pod"},
}

// flagArg is one flag occurrence in the paste.
type flagArg struct {
	Name, Value string
	HasValue    bool
	Line        int
	SingleDash  bool
}

// flagReader collects the warnings of one reading.
type flagReader struct {
	warnings []string
	format   string
	dump     bool // FLAG: lines
}

func (r *flagReader) warn(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("line %d: %s", line, msg)
	}
	r.warnings = append(r.warnings, msg)
}

var (
	ansiRE       = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
	flagDumpRE   = regexp.MustCompile(`FLAG: --([A-Za-z0-9][A-Za-z0-9_-]*)=(".*")\s*$`)
	psHeadRE     = regexp.MustCompile(`^\S+\s+\d+\s+(?:\d+\s+)?[\d.]+\s+[\d.]+\s`)     // ps aux: USER PID %CPU %MEM
	psEfRE       = regexp.MustCompile(`^\S+\s+\d+\s+\d+\s+\d+\s+\S+\s+\S+\s+[\d:]+\s`) // ps -ef: UID PID PPID C STIME TTY TIME
	deprecatedRE = regexp.MustCompile(`Flag --\S+ has been deprecated`)
	varRE        = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)
)

// commonWidths are terminal widths ps cuts its lines at.
var commonWidths = map[int]bool{79: true, 80: true, 100: true, 120: true, 132: true, 150: true, 160: true, 180: true, 200: true, 210: true, 220: true, 240: true, 250: true, 256: true}

// pasteQuotes undoes what chat and mail do to quotes, spaces and dashes.
var pasteQuotes = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'", "\u00a0", " ", "\u2013\u2013", "--", "\u2014", "--")

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// cleanPasteLine removes what chat and terminals add to a line.
func cleanPasteLine(s string) string {
	s = strings.TrimRight(s, "\r")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRE.ReplaceAllString(s, "")
	}
	if !isASCII(s) {
		s = pasteQuotes.Replace(s)
	}
	t := strings.TrimLeft(s, " \t")
	for _, p := range []string{">> ", "> ", "$ ", "# "} {
		if strings.HasPrefix(t, p) && (p != "# " || strings.Contains(t, "--")) && !strings.HasPrefix(t, "# /") {
			return t[len(p):]
		}
	}
	return s
}

// parseKubeletFlagText reads kubelet flags from text. It returns nil when
// the text holds no flag numascope knows.
func parseKubeletFlagText(data []byte) (*KubeletConfig, error) {
	r := &flagReader{format: "flags"}
	raw := strings.Split(string(data), "\n")
	lines := make([]string, len(raw))
	for i, l := range raw {
		lines[i] = cleanPasteLine(l)
	}
	var args []flagArg
	systemd := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "ExecStart=") || strings.HasPrefix(t, "[Service]") || strings.HasPrefix(t, "Environment=") {
			systemd = true
			break
		}
	}
	switch {
	case systemd:
		r.format = "systemd"
		args = r.systemdArgs(lines)
	default:
		args = r.textArgs(lines)
	}
	if r.dump {
		r.format = "flag-dump"
	}
	c := &KubeletConfig{Format: r.format, fromFlags: true}
	n := r.apply(c, args)
	if n == 0 {
		return nil, fmt.Errorf("no kubelet flags found: expected --name=value tokens (for example --topology-manager-policy=single-numa-node; paste the kubelet's command line from ps auxww, /proc/PID/cmdline, systemctl cat kubelet or /var/lib/kubelet/kubeadm-flags.env)")
	}
	if r.dump {
		r.warn(0, "read from the kubelet's FLAG: start-up lines: they show command-line values and built-in defaults, not the --config file's values (a value equal to the default was not taken as set); /configz shows the merged result")
	}
	c.Warnings = append(c.Warnings, r.warnings...)
	c.setDefaults()
	return c, nil
}

// dumpLine matches a FLAG: line of the kubelet's start-up dump.
func dumpLine(t string) []string {
	if !strings.Contains(t, "FLAG: --") {
		return nil
	}
	return flagDumpRE.FindStringSubmatch(t)
}

// envLine splits "NAME=value" (or "export NAME=value") into the match,
// the name and the value; nil when t is not such a line.
func envLine(t string) []string {
	t = strings.TrimPrefix(t, "export ")
	i := 0
	for i < len(t) && (t[i] == '_' || t[i] >= 'A' && t[i] <= 'Z' || t[i] >= 'a' && t[i] <= 'z' || i > 0 && t[i] >= '0' && t[i] <= '9') {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != '=' {
		return nil
	}
	return []string{t, t[:i], t[i+1:]}
}

// envValue unquotes an environment value: Go %q or shell quotes.
func envValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return v[1 : len(v)-1]
	}
	return v
}

// logicalLines joins lines ending in a backslash; each result keeps the
// number of its first line.
func logicalLines(lines []string) (out []string, nums []int) {
	var cur strings.Builder
	start, open := 0, false
	for i, l := range lines {
		t := strings.TrimRight(l, " \t")
		if !open {
			start, open = i+1, true
		}
		if strings.HasSuffix(t, "\\") {
			cur.WriteString(strings.TrimSuffix(t, "\\"))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(l)
		out, nums = append(out, cur.String()), append(nums, start)
		cur.Reset()
		open = false
	}
	if open {
		out, nums = append(out, cur.String()), append(nums, start)
	}
	return out, nums
}

// textArgs reads flags from any text that is not a systemd unit.
func (r *flagReader) textArgs(lines []string) []flagArg {
	logical, nums := logicalLines(lines)
	var args []flagArg
	env := map[string]string{}
	for i, l := range logical {
		line := nums[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") && !strings.Contains(t, "--") {
			continue
		}
		head := t[:min(len(t), 200)] // the patterns look at a line's start
		if strings.Contains(t, " has been deprecated") && deprecatedRE.MatchString(t) {
			continue // the kubelet's notice about a flag, not the flag
		}
		if m := dumpLine(t); m != nil {
			r.dump = true
			v, err := strconv.Unquote(m[2])
			if err != nil {
				v = strings.Trim(m[2], `"`)
			}
			args = append(args, flagArg{Name: m[1], Value: v, HasValue: true, Line: line})
			continue
		}
		if m := envLine(t); m != nil && !strings.HasPrefix(t, "--") {
			// kubeadm-flags.env, /etc/default/kubelet, /etc/sysconfig/kubelet
			v := envValue(m[2])
			env[m[1]] = v
			if r.format == "flags" {
				r.format = "env-file"
			}
			args = append(args, r.tokenArgs(v, line, false)...)
			continue
		}
		isPS := psHeadRE.MatchString(head) || psEfRE.MatchString(head)
		if isPS && isGrepLine(t) {
			continue
		}
		if !isPS && isGrepLine(t) && !strings.Contains(t, "kubelet --") {
			continue
		}
		if isPS && r.format == "flags" {
			r.format = "ps"
		}
		a := r.tokenArgs(l, line, isPS)
		args = append(args, a...)
	}
	_ = env
	return args
}

// isGrepLine reports a line that is the grep of a "ps | grep kubelet".
func isGrepLine(t string) bool {
	for _, f := range strings.Fields(t) {
		base := f[strings.LastIndex(f, "/")+1:]
		switch base {
		case "grep", "egrep", "fgrep", "rg", "pgrep":
			return true
		}
		if strings.HasPrefix(f, "--") {
			return false
		}
	}
	return false
}

// systemdArgs reads a systemd unit with its drop-ins (systemctl cat
// kubelet): Environment= values, environment files pasted with it, and
// the last ExecStart= after the last reset, with $VAR expanded from them.
func (r *flagReader) systemdArgs(lines []string) []flagArg {
	logical, nums := logicalLines(lines)
	env := map[string]string{}
	exec, execLine := "", 0
	for i, l := range logical {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Environment="):
			for _, w := range unitWords(strings.TrimPrefix(t, "Environment=")) {
				if k, v, ok := strings.Cut(w, "="); ok {
					env[k] = v
				}
			}
		case strings.HasPrefix(t, "ExecStart="):
			exec, execLine = strings.TrimSpace(strings.TrimPrefix(t, "ExecStart=")), nums[i]
			exec = strings.TrimLeft(exec, "-@:+!")
		case strings.HasPrefix(t, "#"), strings.HasPrefix(t, "["), strings.HasPrefix(t, ";"):
		default:
			if m := envLine(t); m != nil {
				// an environment file pasted with the unit
				if _, known := map[string]bool{"Description": true, "Documentation": true, "After": true, "Wants": true, "Requires": true, "Restart": true, "RestartSec": true, "WantedBy": true, "StartLimitInterval": true, "EnvironmentFile": true, "Type": true, "KillMode": true}[m[1]]; !known {
					env[m[1]] = envValue(m[2])
				}
			}
		}
	}
	if exec == "" {
		r.warn(0, "the unit has no ExecStart= with a command (an empty ExecStart= resets the list): no kubelet command line to read")
		return nil
	}
	missing := map[string]bool{}
	expanded := varRE.ReplaceAllStringFunc(exec, func(m string) string {
		name := strings.Trim(m, "${}")
		if v, ok := env[name]; ok {
			return v
		}
		missing[name] = true
		return ""
	})
	var names []string
	for n := range missing {
		names = append(names, "$"+n)
	}
	sort.Strings(names)
	if len(names) > 0 {
		msg := fmt.Sprintf("ExecStart= uses %s, set in an environment file not in this paste: flags may be missing", strings.Join(names, ", "))
		if missing["KUBELET_EXTRA_ARGS"] || missing["KUBELET_KUBEADM_ARGS"] {
			msg += " (paste /var/lib/kubelet/kubeadm-flags.env and /etc/default/kubelet or /etc/sysconfig/kubelet too)"
		}
		r.warn(execLine, "%s", msg)
	}
	return r.tokenArgs(expanded, execLine, false)
}

// unitWords splits a systemd value into words, honouring double quotes.
func unitWords(s string) []string {
	var out []string
	var b strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"':
			in, any = !in, true
		case ch == '\\' && in && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case (ch == ' ' || ch == '\t') && !in:
			if b.Len() > 0 || any {
				out = append(out, b.String())
			}
			b.Reset()
			any = false
		default:
			b.WriteByte(ch)
		}
	}
	if b.Len() > 0 || any {
		out = append(out, b.String())
	}
	return out
}

// shellWords splits a line into words: quotes (', ", `) group words when
// they close on the line, and are literal otherwise (an apostrophe in
// prose).
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	word := false
	var noMore [256]bool // no closing quote of this kind further on
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			if noMore[ch] {
				b.WriteByte(ch)
				word = true
				continue
			}
			if j := strings.IndexByte(s[i+1:], ch); j >= 0 {
				b.WriteString(s[i+1 : i+1+j])
				i += j + 1
				word = true
				continue
			}
			noMore[ch] = true
			b.WriteByte(ch)
			word = true
		case ch == ' ' || ch == '\t':
			if word {
				out = append(out, b.String())
			}
			b.Reset()
			word = false
		default:
			b.WriteByte(ch)
			word = true
		}
	}
	if word {
		out = append(out, b.String())
	}
	return out
}

// gluedFlags returns the offsets of each "--" in s that follows a
// character other than a space or a dash and precedes a letter: a flag
// run into what comes before it.
func gluedFlags(s string) []int {
	var out []int
	for i := 1; i+2 < len(s); i++ {
		if s[i] == '-' && s[i+1] == '-' && s[i-1] != '-' && s[i-1] != ' ' && s[i-1] != '\t' {
			if c := s[i+2]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				out = append(out, i)
			}
		}
	}
	return out
}

// splitGlued puts a space before each glued flag of s.
func splitGlued(s string) string {
	at := gluedFlags(s)
	var b strings.Builder
	b.Grow(len(s) + len(at))
	prev := 0
	for _, i := range at {
		b.WriteString(s[prev:i])
		b.WriteByte(' ')
		prev = i
	}
	b.WriteString(s[prev:])
	return b.String()
}

// tokenArgs reads the flags of one logical line.
func (r *flagReader) tokenArgs(s string, line int, isPS bool) []flagArg {
	if strings.Contains(s, "--") {
		// /proc/PID/cmdline printed without its NUL separators
		glued := false
		for _, w := range strings.Fields(s) {
			if (strings.HasPrefix(w, "/") || strings.HasPrefix(w, "--") || strings.HasPrefix(w, "kubelet")) && len(gluedFlags(w)) > 0 {
				glued = true
				break
			}
		}
		if glued {
			s = splitGlued(s)
			r.warn(line, "flags run together (a /proc/PID/cmdline printed without its NUL separators): split before each --; print it with tr '\\0' ' ' < /proc/PID/cmdline")
			if r.format == "flags" {
				r.format = "cmdline"
			}
		}
	}
	words := shellWords(s)
	var args []flagArg
	for i := 0; i < len(words); i++ {
		w := strings.TrimRight(words[i], ".,)") // prose punctuation; a ";" is the kubelet's to refuse
		if w == "--" {
			break // the rest are arguments, not flags
		}
		if strings.HasPrefix(w, "--extra-config=kubelet.") { // minikube
			w = "--" + strings.TrimPrefix(w, "--extra-config=kubelet.")
		}
		single := false
		switch {
		case strings.HasPrefix(w, "--") && len(w) > 2:
			w = w[2:]
		case strings.HasPrefix(w, "-") && len(w) > 2 && w[1] != '-':
			single = true
			w = w[1:]
		default:
			continue
		}
		name, val, has := strings.Cut(w, "=")
		name = strings.ReplaceAll(name, "_", "-")
		if _, known := kubeletFlags[name]; !known {
			continue
		}
		a := flagArg{Name: name, Value: val, HasValue: has, Line: line, SingleDash: single}
		if !has && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			if v := strings.TrimRight(words[i+1], ".,)"); plausibleValue(name, v) {
				a.Value, a.HasValue = v, true
				i++
			}
		}
		if isPS && i == len(words)-1 {
			cut := strings.HasSuffix(s, "+") || strings.HasSuffix(s, ">") || strings.HasSuffix(s, "…") || commonWidths[len([]rune(strings.TrimRight(s, " ")))]
			if cut && !validEnum(name, a.Value) {
				r.warn(line, "the ps line looks cut off at column %d: --%s=%s at its end may be incomplete and is not read (use ps auxww)", len([]rune(s)), name, a.Value)
				continue
			}
		}
		args = append(args, a)
	}
	return args
}

// plausibleValue reports whether the word after "--name" (without "=")
// can be its value, rather than prose ("set --cpu-manager-policy to
// static") or a log message ("Flag --cpu-manager-policy has been
// deprecated").
func plausibleValue(name, v string) bool {
	if vals, ok := enumValues[name]; ok {
		for _, x := range vals {
			if strings.EqualFold(x, v) {
				return true
			}
		}
		return false
	}
	switch kubeletFlags[name].Kind {
	case flagPath:
		return strings.ContainsAny(v, "/.")
	case flagString: // --reserved-cpus
		return v != "" && v[0] >= '0' && v[0] <= '9'
	case flagReservedMem:
		return strings.Contains(v, ":")
	case flagLangleMap:
		return strings.Contains(v, "<")
	}
	return strings.Contains(v, "=")
}

func validEnum(name, v string) bool {
	vals, ok := enumValues[name]
	if !ok {
		return false
	}
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}

// apply sets the fields of c from args with pflag's rules and returns how
// many known flags it read.
func (r *flagReader) apply(c *KubeletConfig, args []flagArg) int {
	n := 0
	seen := map[string]int{}
	last := map[string]string{}
	noTarget := false
	refuse := func(a flagArg, cause string) {
		msg := fmt.Sprintf("failed to parse kubelet flag: invalid argument %q for \"--%s\" flag: %s", a.Value, a.Name, cause)
		r.warn(a.Line, "--%s=%s: the kubelet refuses this value and does not start (%s)", a.Name, a.Value, msg)
		if c.KubeletRefuses == "" || strings.HasPrefix(c.KubeletRefuses, "bad value for option") { // flag parsing comes first
			c.KubeletRefuses = msg
		}
	}
	for _, a := range args {
		n++
		f := kubeletFlags[a.Name]
		if a.SingleDash {
			msg := fmt.Sprintf("failed to parse kubelet flag: unknown shorthand flag: %q in -%s", rune(a.Name[0]), a.Name)
			if a.HasValue {
				msg += "=" + a.Value
			}
			r.warn(a.Line, "-%s has one dash: the kubelet rejects it (%s); not read", a.Name, msg)
			if c.KubeletRefuses == "" || strings.HasPrefix(c.KubeletRefuses, "bad value for option") {
				c.KubeletRefuses = msg
			}
			continue
		}
		if !a.HasValue {
			r.warn(a.Line, "--%s has no value: not read", a.Name)
			continue
		}
		if r.dump && (a.Value == f.Default || f.Kind == flagLangleMap && isDefaultEviction(a.Value)) {
			continue // a built-in default: the config file may set the field
		}
		if f.Kind == flagPath {
			c.ConfigFile = a.Value
			continue
		}
		if seen[a.Name] > 0 && (f.Kind == flagString) && last[a.Name] != a.Value {
			r.warn(a.Line, "--%s is given again: the last value wins (%q replaces %q)", a.Name, a.Value, last[a.Name])
		}
		if f.Kind == flagReservedMem && a.Value == "" {
			// ReservedMemoryVar.Set("") drops its target and leaves the
			// field as it was; a later --reserved-memory then fails.
			noTarget = true
			continue
		}
		first := seen[a.Name] == 0
		seen[a.Name]++
		last[a.Name] = a.Value
		c.markSet(f.Field, a.Line)
		switch f.Kind {
		case flagString:
			if a.Name == "reserved-cpus" && a.Value != "" {
				if _, err := cpulist.Parse(a.Value); err != nil {
					r.warn(a.Line, "--reserved-cpus=%s: %v; not read", a.Value, err)
					continue
				}
			}
			*c.stringField(f.Field) = a.Value
		case flagMap, flagMapNoSplit, flagLangleMap:
			m := c.mapField(f.Field)
			if first || *m == nil {
				*m = map[string]string{}
			}
			if err := setStringMap(*m, a.Value, f.Kind); err != nil {
				refuse(a, err.Error())
				continue
			}
			if f.Kind == flagMapNoSplit {
				if k, v, _ := strings.Cut(a.Value, "="); strings.Contains(v, ",") && strings.Contains(v, "=") {
					msg := fmt.Sprintf("bad value for option %q: strconv.ParseBool: parsing %q: invalid syntax", strings.TrimSpace(k), strings.TrimSpace(v))
					r.warn(a.Line, "--cpu-manager-policy-options takes one option per flag: %q is one option whose value is %q, and the kubelet fails with %s; write --cpu-manager-policy-options=%s --cpu-manager-policy-options=...", a.Value, strings.TrimSpace(v), msg, strings.TrimSpace(k)+"="+strings.SplitN(v, ",", 2)[0])
					if c.KubeletRefuses == "" {
						c.KubeletRefuses = msg
					}
				}
			}
		case flagBoolMap:
			if first || c.FeatureGates == nil {
				c.FeatureGates = map[string]bool{}
			}
			for _, s := range strings.Split(a.Value, ",") {
				if s == "" {
					continue
				}
				k, v, ok := strings.Cut(s, "=")
				if !ok {
					refuse(a, "malformed pair, expect string=bool")
					break
				}
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				b, err := strconv.ParseBool(v)
				if err != nil {
					refuse(a, fmt.Sprintf("invalid value of %s: %s, err: %v", k, v, err))
					break
				}
				c.FeatureGates[k] = b
			}
		case flagReservedMem:
			if r.dump {
				a.Value = dumpReservedMemory(a.Value)
			}
			if noTarget {
				refuse(a, "no target (nil pointer to *[]MemoryReservation)")
				continue
			}
			if first {
				c.ReservedMemory = []MemoryReservation{}
			}
			rs, err := parseReservedMemoryFlag(a.Value)
			if err != nil {
				refuse(a, err.Error())
				continue
			}
			c.ReservedMemory = append(c.ReservedMemory, rs...)
		}
	}
	return n
}

func isDefaultEviction(v string) bool {
	m := map[string]string{}
	if setStringMap(m, v, flagLangleMap) != nil {
		return false
	}
	def := map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}
	if len(m) != len(def) {
		return false
	}
	for k, x := range def {
		if m[k] != x {
			return false
		}
	}
	return true
}

// setStringMap adds value's pairs to m as the kubelet's map flag kinds do.
func setStringMap(m map[string]string, value string, kind flagKind) error {
	if kind == flagMapNoSplit {
		k, v, ok := strings.Cut(value, "=")
		if !ok {
			return fmt.Errorf("malformed pair, expect string=string")
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		return nil
	}
	sep, want := "=", "string=string"
	if kind == flagLangleMap {
		sep, want = "<", "string<string"
	}
	for _, s := range strings.Split(value, ",") {
		if s == "" {
			continue
		}
		k, v, ok := strings.Cut(s, sep)
		if !ok {
			return fmt.Errorf("malformed pair, expect %s", want)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return nil
}

// dumpReservedMemory turns the FLAG: dump's rendering of --reserved-memory
// (entries joined with commas: "0:memory=1Gi,1:memory=2Gi") back into the
// flag's syntax (entries joined with semicolons).
func dumpReservedMemory(v string) string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if i := strings.IndexByte(p, ':'); i > 0 && len(out) > 0 {
			if _, err := strconv.Atoi(p[:i]); err == nil {
				out = append(out, ";"+p)
				continue
			}
		}
		if len(out) > 0 {
			out = append(out, ","+p)
		} else {
			out = append(out, p)
		}
	}
	return strings.Join(out, "")
}

// parseReservedMemoryFlag reads one --reserved-memory value as
// ReservedMemoryVar.Set does.
func parseReservedMemoryFlag(s string) ([]MemoryReservation, error) {
	if s == "" {
		return nil, nil
	}
	var out []MemoryReservation
	for _, res := range strings.Split(s, ";") {
		parts := strings.Split(res, ":")
		if len(parts) != 2 {
			return nil, fmt.Errorf("the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got %s", res)
		}
		id, err := strconv.Atoi(parts[0])
		if err != nil {
			return nil, fmt.Errorf("failed to convert the NUMA node ID, expected integer, got %s", parts[0])
		}
		mr := MemoryReservation{NumaNode: int(int32(id)), Limits: map[string]string{}}
		for _, l := range strings.Split(parts[1], ",") {
			kv := strings.Split(l, "=")
			if len(kv) != 2 {
				return nil, fmt.Errorf("the reserved limit has incorrect value, expected type=quantity, got %s", l)
			}
			if kv[0] != "memory" && !strings.HasPrefix(kv[0], "hugepages-") {
				return nil, fmt.Errorf("memory type conversion error, unknown type: %q", kv[0])
			}
			if _, err := ParseQuantity(kv[1]); err != nil {
				return nil, fmt.Errorf("failed to parse the quantity: %s", kv[1])
			}
			mr.Limits[kv[0]] = kv[1]
		}
		out = append(out, mr)
	}
	return out, nil
}

// argsFromPairs turns installer flag maps and lists (kubeadm
// kubeletExtraArgs, Talos extraArgs, k3s kubelet-arg) into flag
// occurrences.
func argsFromPairs(names, values []string, lines []int) []flagArg {
	var out []flagArg
	for i, n := range names {
		n = strings.ReplaceAll(strings.TrimLeft(n, "-"), "_", "-")
		if _, ok := kubeletFlags[n]; !ok {
			continue
		}
		out = append(out, flagArg{Name: n, Value: values[i], HasValue: true, Line: lines[i]})
	}
	return out
}
