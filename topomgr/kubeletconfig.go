package topomgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/yamljson"
)

// KubeletConfig is the part of a KubeletConfiguration (the kubelet's
// config.yaml, /configz, a wrapper that carries one, or the kubelet's
// command-line flags) that decides resource alignment. Fields the source
// does not set hold the kubelet's defaults; Set tells explicit values from
// defaults.
type KubeletConfig struct {
	TopologyManagerPolicy        string              `json:"topologyManagerPolicy"`
	TopologyManagerScope         string              `json:"topologyManagerScope"`
	TopologyManagerPolicyOptions map[string]string   `json:"topologyManagerPolicyOptions,omitempty"`
	CPUManagerPolicy             string              `json:"cpuManagerPolicy"`
	CPUManagerPolicyOptions      map[string]string   `json:"cpuManagerPolicyOptions,omitempty"`
	MemoryManagerPolicy          string              `json:"memoryManagerPolicy"`
	ReservedSystemCPUs           string              `json:"reservedSystemCPUs,omitempty"`
	ReservedMemory               []MemoryReservation `json:"reservedMemory,omitempty"`
	SystemReserved               map[string]string   `json:"systemReserved,omitempty"`
	KubeReserved                 map[string]string   `json:"kubeReserved,omitempty"`
	EvictionHard                 map[string]string   `json:"evictionHard,omitempty"`
	FeatureGates                 map[string]bool     `json:"featureGates,omitempty"`

	// Evidence: where the configuration was read and what it says itself.

	// Source is the file it was read from (set by the caller); layered
	// sources are joined with ", " (SourceOf names the one of a field).
	Source string `json:"source,omitempty"`
	// Format is the form it was read in: "file" (a KubeletConfiguration),
	// "configz", "configmap", "openshift-kubeletconfig", "talos", "k3s",
	// "kubeadm", "kind", "nodeadm", or command-line flags: "flags", "ps", "cmdline",
	// "systemd", "env-file", "flag-dump". Layered sources join theirs
	// with "+".
	Format string `json:"format,omitempty"`
	// Configz is set when the document was /configz output.
	Configz bool `json:"configz,omitempty"`
	// ConfigFile is the path the command line's --config names.
	ConfigFile string `json:"configFile,omitempty"`
	// KubeletRefuses is the kubelet's own error when it would not start
	// with this source (a file without kind/apiVersion as its --config, a
	// flag value its flag parsing refuses); "" when it would start.
	KubeletRefuses string `json:"kubeletRefuses,omitempty"`
	// Set lists the fields the source sets, sorted (for a file, every
	// top-level key; for flags, the fields they set).
	Set []string `json:"set"`
	// Lines maps each field to its line in the source (1-based).
	Lines map[string]int `json:"lines,omitempty"`
	// Warnings are what the kubelet accepts but ignores or reads otherwise
	// than a reader might expect (a key in another case, a repeated flag,
	// a value a later source overrides), each with its position.
	Warnings []string `json:"warnings,omitempty"`

	fromFlags   bool              // read from a command line: Layer applies flag precedence
	fieldSource map[string]string // field -> Source, after Layer
	tagged      bool              // Warnings start with their source's name (after Layer)
}

// MemoryReservation is one reservedMemory entry.
type MemoryReservation struct {
	NumaNode int               `json:"numaNode"`
	Limits   map[string]string `json:"limits"`
}

// The kubelet's defaults (v1beta1 defaulting) for the fields KubeletConfig reads.
const (
	DefaultTopologyManagerPolicy = PolicyNone
	DefaultTopologyManagerScope  = ScopeContainer
	defaultCPUManagerPolicy      = "none"
	defaultMemoryManagerPolicy   = "None"
)

// kubeletConfigAPIVersion is the apiVersion the kubelet reads its
// configuration file in.
const kubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1"

// kubeletConfigFields are the fields KubeletConfig reads, as the kubelet
// spells them.
var kubeletConfigFields = []string{"topologyManagerPolicy", "topologyManagerScope", "topologyManagerPolicyOptions",
	"cpuManagerPolicy", "cpuManagerPolicyOptions", "memoryManagerPolicy", "reservedSystemCPUs", "reservedMemory",
	"systemReserved", "kubeReserved", "evictionHard", "featureGates"}

// errNotKubeletConfig is the refusal of a document that holds no kubelet
// configuration where one is carried.
var errNotKubeletConfig = errors.New("not a KubeletConfiguration: no recognised kubelet fields at any known wrapper path " +
	"(a KubeletConfiguration file, /configz output, an OpenShift KubeletConfig's spec.kubeletConfig, a Talos machine.kubelet, " +
	"k3s/RKE2 kubelet-arg, kubeadm's KubeletConfiguration document or kubeletExtraArgs, EKS nodeadm spec.kubelet; or the kubelet's --flags)")

// ParseKubeletConfig reads the kubelet's configuration from what people
// have of it, detected from content:
//   - a KubeletConfiguration in YAML or JSON, read as the kubelet's
//     DecodeKubeletConfiguration does: keys are case-sensitive (a key in
//     another case is ignored, with a warning), unset fields get the
//     kubelet's defaults, and every top-level field the kubelet knows
//     must hold the JSON its Go type accepts (kubeletConfigTable; errors
//     name the field with a JSON pointer). A file without kind or with
//     another apiVersion is read, and KubeletRefuses holds the kubelet's
//     error for it. Only the first YAML document is read, as the kubelet
//     reads it (a "..." or "---" line followed by more is a warning);
//   - the wrappers that carry one: /configz ({"kubeletconfig": ...}, or
//     "componentconfig" before 1.16), an OpenShift KubeletConfig
//     (spec.kubeletConfig), a Talos machine config (machine.kubelet
//     extraConfig and extraArgs), a k3s/RKE2 config (kubelet-arg), kubeadm
//     documents (the KubeletConfiguration document, and
//     nodeRegistration.kubeletExtraArgs as flags), a kind cluster's
//     kubeadmConfigPatches, an EKS nodeadm NodeConfig (spec.kubelet),
//     kubeadm's kubelet-config ConfigMap (data.kubelet), and a kubectl
//     List of any of these;
//   - the kubelet's command line in any pasted form (one line, \
//     continuations, ps output, /proc/PID/cmdline, systemctl cat kubelet,
//     kubeadm-flags.env, minikube --extra-config, the kubelet's FLAG: dump,
//     flags quoted in prose), read with pflag's rules.
//
// Flags are layered over configuration fields as the kubelet does (see
// Layer). Text with none of these is refused.
func ParseKubeletConfig(data []byte) (*KubeletConfig, error) {
	c, mapping, yamlErr, err := parseKubeletDocuments(data)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.setDefaults()
		c.capWarnings()
		return c, nil
	}
	fc, ferr := parseKubeletFlagText(data)
	if fc != nil {
		if yamlErr != nil && looksLikeConfigYAML(data) {
			fc.Warnings = append(fc.Warnings, fmt.Sprintf("the text also holds KubeletConfiguration fields that could not be read as YAML (%v): only the flags were read; pass the file and the flags as separate sources", yamlErr))
		}
		fc.capWarnings()
		return fc, nil
	}
	switch {
	case mapping != "":
		if mapping != "mapping" {
			return nil, fmt.Errorf("%w; %s", errNotKubeletConfig, mapping)
		}
		return nil, errNotKubeletConfig
	case yamlErr != nil && looksLikeConfigYAML(data):
		return nil, yamlErr
	case yamlErr != nil && strings.Contains(yamlErr.Error(), "YAML mapping"):
		return nil, fmt.Errorf("%w; %v", ferr, yamlErr)
	}
	return nil, ferr
}

// looksLikeConfigYAML reports text that names a field numascope reads as
// a YAML key, so a YAML error is the better answer than "no flags".
func looksLikeConfigYAML(data []byte) bool {
	s := string(data)
	for _, f := range kubeletConfigFields {
		if strings.Contains(s, f+":") || strings.Contains(s, `"`+f+`"`) {
			return true
		}
	}
	return false
}

// yamlDoc is one document of a YAML stream.
type yamlDoc struct {
	text  []byte
	first int // line of its first line, 1-based
}

var (
	docStartRE = regexp.MustCompile(`^---(\s.*)?$`)
	docEndRE   = regexp.MustCompile(`^\.\.\.\s*$`)
	elisionRE  = regexp.MustCompile(`^\s*(?:#\s*)?(?:\.\.\.|…|\[\.\.\.\]|<snip>|\(output trimmed\)|# \d+ more lines)\s*$`)
	// pasteNoiseRE are lines a paste adds around a document: Markdown
	// fences and the shell prompt of the command that printed it.
	pasteNoiseRE = regexp.MustCompile("^\\s*(?:```|~~~)|^\\s*(?:\\S*[$#]\\s+)?(?:sudo\\s+)?(?:cat|kubectl|oc|jq|talosctl|curl|less|more|head|tail|grep|crictl)\\s")
)

// splitDocuments splits a YAML stream at "---" lines and after "..."
// lines (document end markers).
func splitDocuments(data []byte) []yamlDoc {
	var docs []yamlDoc
	cur := yamlDoc{first: 1}
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		t := bytes.TrimRight(l, "\r")
		switch {
		case bytes.HasPrefix(t, []byte("---")) && docStartRE.Match(t):
			docs = append(docs, cur)
			cur = yamlDoc{first: i + 2}
		case bytes.HasPrefix(t, []byte("...")) && docEndRE.Match(t):
			docs = append(docs, cur)
			cur = yamlDoc{first: i + 2}
		default:
			cur.text = append(append(cur.text, t...), '\n')
		}
	}
	return append(docs, cur)
}

// blankDoc reports a document of only blank lines and comments.
func blankDoc(text []byte) bool {
	for _, l := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

// decodedDoc is a document decoded as a JSON object.
type decodedDoc struct {
	yamlDoc
	js  []byte
	top map[string]json.RawMessage
}

// decodeDoc decodes one document; elided lines ("...", "# ...", "<snip>"
// inside a mapping) that break it are dropped, with a warning.
func decodeDoc(d yamlDoc) (*decodedDoc, []string, error) {
	js, err := yamljson.ToJSON(d.text, "kubelet configuration")
	var warnings []string
	if err != nil {
		var kept [][]byte
		var dropped []string
		var noise []string
		quoted := false
		for i, l := range bytes.Split(d.text, []byte("\n")) {
			head := l[:min(len(l), 200)] // the patterns look at a line's start
			switch {
			case len(l) < 80 && elisionRE.Match(l):
				dropped = append(dropped, strconv.Itoa(d.first+i))
				continue
			case pasteNoiseRE.Match(head):
				noise = append(noise, strconv.Itoa(d.first+i))
				continue
			}
			if t := bytes.TrimLeft(l, " "); bytes.HasPrefix(t, []byte("> ")) || bytes.Equal(t, []byte(">")) {
				l = bytes.TrimPrefix(bytes.TrimPrefix(t, []byte(">")), []byte(" ")) // a quoted reply
				quoted = true
			}
			kept = append(kept, l)
		}
		if len(dropped) == 0 && len(noise) == 0 && !quoted {
			return nil, nil, err
		}
		if len(noise) > 0 {
			warnings = append(warnings, fmt.Sprintf("line %s: a Markdown fence or shell prompt around the document: skipped", strings.Join(noise, ", ")))
		}
		js2, err2 := yamljson.ToJSON(bytes.Join(kept, []byte("\n")), "kubelet configuration")
		if err2 != nil {
			return nil, nil, err
		}
		js = js2
		if len(dropped) > 0 {
			warnings = append(warnings, fmt.Sprintf("line %s: an elision (\"...\") inside the YAML: skipped; the kubelet cannot read a file with it (%v), and the settings left out of the paste are unknown", strings.Join(dropped, ", "), err))
		}
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(js, &top) != nil || top == nil {
		if t := bytes.TrimSpace(js); len(t) > 0 && t[0] == '[' {
			return nil, warnings, errors.New("kubelet configuration: a KubeletConfiguration is a YAML mapping, this is a list")
		}
		return nil, warnings, nil
	}
	return &decodedDoc{yamlDoc: d, js: js, top: top}, warnings, nil
}

// parseKubeletDocuments reads data as YAML/JSON documents. It returns the
// configuration when a document carries one; mapping tells that some
// document was a mapping ("mapping", or "a <kind> <apiVersion>"), so "no
// recognised fields" is the answer;
// yamlErr is the first YAML error; err is a configuration the kubelet
// refuses to read a value of.
func parseKubeletDocuments(data []byte) (c *KubeletConfig, mapping string, yamlErr, err error) {
	var docs []*decodedDoc
	var warnings []string
	firstContent := -1
	split := splitDocuments(data)
	decoded := 0
	for i, d := range split {
		if blankDoc(d.text) {
			continue
		}
		if decoded++; decoded > maxKubeadmDocs {
			warnings = append(warnings, fmt.Sprintf("line %d: more than %d YAML documents: the rest are not read", d.first, maxKubeadmDocs))
			break
		}
		if firstContent < 0 {
			firstContent = i
		}
		dd, w, err := decodeDoc(d)
		if err != nil {
			if yamlErr == nil {
				yamlErr = err
			}
			continue
		}
		warnings = append(warnings, w...)
		if dd != nil {
			docs = append(docs, dd)
		}
	}
	if len(docs) == 0 {
		return nil, "", yamlErr, nil
	}
	mapping = "mapping"
	if k := stringField(docs[0].top, "kind"); k != "" {
		mapping = fmt.Sprintf("/kind is %q (apiVersion %q)", k, stringField(docs[0].top, "apiVersion"))
	}
	// kubeadm reads every document; the kubelet reads the first.
	kubeadm := false
	for _, d := range docs {
		switch stringField(d.top, "kind") {
		case "InitConfiguration", "JoinConfiguration", "ClusterConfiguration":
			if strings.HasPrefix(stringField(d.top, "apiVersion"), "kubeadm.k8s.io/") || stringField(d.top, "apiVersion") == "" {
				kubeadm = true
			}
		}
	}
	if kubeadm {
		c, err := readKubeadmDocs(docs)
		if c != nil {
			c.Warnings = append(warnings, c.Warnings...)
		}
		return c, mapping, yamlErr, err
	}
	d := docs[0]
	c, err = readWrapped(d)
	if err != nil || c == nil {
		return nil, mapping, yamlErr, err
	}
	if firstContent >= 0 && len(split) > firstContent+1 {
		var after []string
		for _, later := range split[firstContent+1:] {
			if !blankDoc(later.text) {
				after = append(after, strconv.Itoa(later.first))
			}
		}
		if len(after) > 0 {
			warnings = append(warnings, fmt.Sprintf("line %s: more YAML after the first document's end (a \"---\" or \"...\" line): the kubelet reads only the first document of its file and ignores the rest, and so does numascope; if \"...\" marks text left out of the paste, remove it (or paste the whole file) to have the rest read", after[0]))
		}
	}
	c.Warnings = append(warnings, c.Warnings...)
	return c, mapping, yamlErr, nil
}

// readWrapped reads the configuration a single document carries, or nil.
func readWrapped(d *decodedDoc) (*KubeletConfig, error) {
	top := d.top
	kind, version := stringField(top, "kind"), stringField(top, "apiVersion")
	for _, key := range []string{"kubeletconfig", "componentconfig"} {
		if inner, ok := top[key]; ok && len(top) == 1 { // /configz output
			if !isObject(inner) {
				return nil, fmt.Errorf("/%s: want the configuration object of /configz output", key)
			}
			c, err := parseConfigObject(inner, "/"+key, d)
			if err != nil {
				return nil, err
			}
			c.Format, c.Configz = "configz", true
			return c, nil
		}
	}
	switch {
	case kind == "KubeletConfig" && (strings.HasPrefix(version, "machineconfiguration.openshift.io/") || version == ""):
		spec := objectMember(top, "spec")
		inner, ok := spec["kubeletConfig"]
		if !ok || !isObject(inner) {
			return nil, nil
		}
		c, err := parseConfigObject(inner, "/spec/kubeletConfig", d)
		if err != nil {
			return nil, err
		}
		c.Format = "openshift-kubeletconfig"
		return c, nil
	case kind == "NodeConfig":
		kub := objectMember(objectMember(top, "spec"), "kubelet")
		return readConfigAndFlags(d, "nodeadm", kub["config"], "/spec/kubelet/config", flagList(d, kub["flags"]))
	case kind == "Cluster" && strings.HasPrefix(version, "kind.x-k8s.io/"):
		return readKindCluster(d)
	case top["machine"] != nil && isObject(top["machine"]):
		kub := objectMember(objectMember(top, "machine"), "kubelet")
		return readConfigAndFlags(d, "talos", kub["extraConfig"], "/machine/kubelet/extraConfig", namedFlags(d, kub["extraArgs"]))
	case kind == "List" && version == "v1":
		return readList(d)
	case kind == "ConfigMap" && version == "v1":
		return readConfigMap(d)
	case top["kubelet-arg"] != nil:
		return readConfigAndFlags(d, "k3s", nil, "", pairList(d, top["kubelet-arg"]))
	}
	if kind != "" && kind != "KubeletConfiguration" {
		return nil, nil
	}
	if kind == "" && !strings.HasPrefix(version, "kubelet.config.k8s.io/") && !fragment(top) {
		return nil, nil
	}
	c, err := parseConfigObject(d.js, "", d)
	if err != nil {
		return nil, err
	}
	c.Format = "file"
	lead, _, _ := strings.Cut(string(bytes.TrimSpace(d.text)), "\n")
	lead = cutBytes([]byte(strings.TrimSpace(lead)))
	if !strings.HasSuffix(lead, "...") {
		lead += "..."
	}
	switch {
	case kind == "":
		c.KubeletRefuses = fmt.Sprintf("failed to decode: Object 'Kind' is missing in '%s'", lead)
	case version == "":
		c.KubeletRefuses = fmt.Sprintf("failed to decode: Object 'apiVersion' is missing in '%s'", lead)
	case version != kubeletConfigAPIVersion:
		c.KubeletRefuses = fmt.Sprintf("failed to decode: no kind \"KubeletConfiguration\" is registered for version %q in scheme \"pkg/runtime/scheme.go:111\"", version)
	}
	return c, nil
}

// readList reads the first item of a kubectl List (kubectl get ... -o
// yaml of several objects) that carries a configuration.
func readList(d *decodedDoc) (*KubeletConfig, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(d.js, &list) != nil {
		return nil, nil
	}
	for i, item := range list.Items {
		var top map[string]json.RawMessage
		if json.Unmarshal(item, &top) != nil || top == nil || stringField(top, "kind") == "List" {
			continue
		}
		c, err := readWrapped(&decodedDoc{yamlDoc: d.yamlDoc, js: item, top: top})
		if err != nil {
			return nil, fmt.Errorf("/items/%d%w", i, err)
		}
		if c != nil {
			if rest := len(list.Items) - i - 1; rest > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("/items/%d: read the first of %d items that carries a kubelet configuration; the %d after it are not read (pass the node's own one alone)", i, len(list.Items), rest))
			}
			return c, nil
		}
	}
	return nil, nil
}

// readConfigMap reads the KubeletConfiguration kubeadm keeps in the
// kube-system ConfigMap kubelet-config (data.kubelet, a YAML string).
func readConfigMap(d *decodedDoc) (*KubeletConfig, error) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if json.Unmarshal(d.js, &cm) != nil {
		return nil, nil
	}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := cm.Data[k]
		if k != "kubelet" && !strings.Contains(v, "KubeletConfiguration") {
			continue
		}
		inner := yamlDoc{text: []byte(v), first: lineFinder(d)(k+":") + 1}
		dd, _, err := decodeDoc(inner)
		if err != nil || dd == nil {
			continue
		}
		c, err := readWrapped(dd)
		if err != nil {
			return nil, fmt.Errorf("/data/%s%w", jsonptr.Escape(k), err)
		}
		if c != nil {
			c.Format = "configmap"
			return c, nil
		}
	}
	return nil, nil
}

// fragment reports a mapping without kind that is a piece of a
// KubeletConfiguration: it names a field numascope reads (in any case),
// or two fields the kubelet knows.
func fragment(top map[string]json.RawMessage) bool {
	known := 0
	for k := range top {
		if _, ok := kubeletConfigType(k); ok {
			known++
		}
		for _, f := range kubeletConfigFields {
			if strings.EqualFold(k, f) {
				return true
			}
		}
	}
	return known >= 2
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// objectMember returns the members of top[key] when it is an object.
func objectMember(top map[string]json.RawMessage, key string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if raw, ok := top[key]; ok && isObject(raw) {
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
	}
	return m
}

// readConfigAndFlags reads a wrapper with configuration fields (may be
// nil) and flags; flags win, as the kubelet layers them. Nil when it
// carries neither.
func readConfigAndFlags(d *decodedDoc, format string, obj json.RawMessage, prefix string, args []flagArg) (*KubeletConfig, error) {
	var c *KubeletConfig
	if obj != nil && isObject(obj) {
		fc, err := parseConfigObject(obj, prefix, d)
		if err != nil {
			return nil, err
		}
		c = fc
	}
	if len(args) > 0 {
		r := &flagReader{format: format}
		fc := &KubeletConfig{Format: format, fromFlags: true}
		r.apply(fc, args)
		fc.Warnings = append(fc.Warnings, r.warnings...)
		c = c.Layer(fc)
	}
	if c == nil || len(c.Set) == 0 && c.ConfigFile == "" && c.KubeletRefuses == "" {
		return nil, nil
	}
	c.Format, c.fromFlags = format, obj == nil
	return c, nil
}

// lineFinder returns a function that finds the line of d holding s,
// searching on from the last line it found (lists are read in order, so
// each line is looked at about once).
func lineFinder(d *decodedDoc) func(s string) int {
	lines := strings.Split(string(d.text), "\n")
	pos := 0
	return func(s string) int {
		for i := pos; i < len(lines); i++ {
			if strings.Contains(lines[i], s) {
				pos = i
				return d.first + i
			}
		}
		return 0
	}
}

// knownFlag reports a flag name (with or without dashes, _ for -) that
// numascope reads.
func knownFlag(n string) bool {
	_, ok := kubeletFlags[strings.ReplaceAll(strings.TrimLeft(n, "-"), "_", "-")]
	return ok
}

// flagList reads a list of "--name=value" strings (nodeadm spec.kubelet.flags).
func flagList(d *decodedDoc, raw json.RawMessage) []flagArg {
	var list []string
	if raw == nil || json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []flagArg
	r := &flagReader{}
	find := lineFinder(d)
	for _, s := range list {
		args := r.tokenArgs(s, 0, false)
		if len(args) > 0 {
			line := find(s)
			for i := range args {
				args[i].Line = line
			}
		}
		out = append(out, args...)
	}
	return out
}

// pairList reads a list of "name=value" strings (k3s kubelet-arg).
func pairList(d *decodedDoc, raw json.RawMessage) []flagArg {
	var list []string
	if raw == nil || json.Unmarshal(raw, &list) != nil {
		var one string // a single string is accepted too
		if raw == nil || json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []string{one}
	}
	var names, values []string
	var lines []int
	find := lineFinder(d)
	for _, s := range list {
		n, v, _ := strings.Cut(s, "=")
		if knownFlag(n) {
			names, values, lines = append(names, n), append(values, v), append(lines, find(s))
		}
	}
	return argsFromPairs(names, values, lines)
}

// namedFlags reads a map of flag names to values (Talos extraArgs, kubeadm
// v1beta3 kubeletExtraArgs), or kubeadm v1beta4's list of {name, value}.
func namedFlags(d *decodedDoc, raw json.RawMessage) []flagArg {
	if raw == nil {
		return nil
	}
	var names, values []string
	var lines []int
	find := lineFinder(d)
	var list []struct{ Name, Value string }
	if json.Unmarshal(raw, &list) == nil {
		for _, p := range list {
			if knownFlag(p.Name) {
				names, values, lines = append(names, p.Name), append(values, p.Value), append(lines, find(p.Name))
			}
		}
		return argsFromPairs(names, values, lines)
	}
	_ = eachMember(raw, func(k string, v json.RawMessage) error {
		if !knownFlag(k) {
			return nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			var many []string // Talos also takes a list of values
			if json.Unmarshal(v, &many) != nil {
				s = strings.Trim(string(v), `"`)
			} else {
				for _, x := range many {
					names, values, lines = append(names, k), append(values, x), append(lines, find(k))
				}
				return nil
			}
		}
		names, values, lines = append(names, k), append(values, s), append(lines, find(k))
		return nil
	})
	return argsFromPairs(names, values, lines)
}

// maxKubeadmDocs bounds the kubeadm documents read (each is layered).
const maxKubeadmDocs = 64

// readKubeadmDocs reads kubeadm's documents: the KubeletConfiguration
// document, then nodeRegistration.kubeletExtraArgs of the Init or Join
// configuration as flags over it.
func readKubeadmDocs(docs []*decodedDoc) (*KubeletConfig, error) {
	var c *KubeletConfig
	if len(docs) > maxKubeadmDocs {
		docs = docs[:maxKubeadmDocs]
	}
	for _, d := range docs {
		if stringField(d.top, "kind") == "KubeletConfiguration" {
			fc, err := parseConfigObject(d.js, "", d)
			if err != nil {
				return nil, err
			}
			c = c.Layer(fc)
		}
	}
	for _, d := range docs {
		switch stringField(d.top, "kind") {
		case "InitConfiguration", "JoinConfiguration":
			args := namedFlags(d, objectMember(d.top, "nodeRegistration")["kubeletExtraArgs"])
			if len(args) > 0 {
				r := &flagReader{format: "kubeadm"}
				fc := &KubeletConfig{Format: "kubeadm", fromFlags: true}
				r.apply(fc, args)
				fc.Warnings = append(fc.Warnings, r.warnings...)
				c = c.Layer(fc)
			}
		}
	}
	if c == nil {
		return nil, nil
	}
	c.Format = "kubeadm"
	return c, nil
}

// readKindCluster reads a kind cluster file: kubeadmConfigPatches are YAML
// strings of kubeadm documents, for the cluster and per node.
func readKindCluster(d *decodedDoc) (*KubeletConfig, error) {
	var patches []string
	var top struct {
		KubeadmConfigPatches []string `json:"kubeadmConfigPatches"`
		Nodes                []struct {
			Role                 string   `json:"role"`
			KubeadmConfigPatches []string `json:"kubeadmConfigPatches"`
		} `json:"nodes"`
	}
	if json.Unmarshal(d.js, &top) != nil {
		return nil, nil
	}
	patches = append(patches, top.KubeadmConfigPatches...)
	var roles []string
	for _, n := range top.Nodes {
		if len(n.KubeadmConfigPatches) > 0 {
			roles = append(roles, n.Role)
			if len(roles) == 1 {
				patches = append(patches, n.KubeadmConfigPatches...)
			}
		}
	}
	var docs []*decodedDoc
	for _, p := range patches {
		for _, sd := range splitDocuments([]byte(p)) {
			if blankDoc(sd.text) {
				continue
			}
			sd.first = d.first
			dd, _, err := decodeDoc(sd)
			if err != nil || dd == nil {
				continue
			}
			dd.text = d.text // positions are looked up in the cluster file
			docs = append(docs, dd)
		}
	}
	c, err := readKubeadmDocs(docs)
	if err != nil || c == nil {
		return nil, err
	}
	if len(roles) > 1 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d nodes carry kubeadmConfigPatches: read the cluster's and the first node's (role %s); pass the node in question alone if they differ", len(roles), roles[0]))
	}
	c.Format = "kind"
	return c, nil
}

// parseConfigObject reads the KubeletConfiguration fields of the JSON
// object obj (prefix is its JSON pointer in the document d).
func parseConfigObject(obj json.RawMessage, prefix string, d *decodedDoc) (*KubeletConfig, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%s: a KubeletConfiguration is a YAML mapping", prefix)
	}
	c := &KubeletConfig{}
	if err := checkKubeletTypes(obj, prefix); err != nil {
		return nil, err
	}
	str := func(key string, dst *string) error {
		raw, ok := top[key]
		if !ok || isNull(raw) {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s/%s: want a string", prefix, key)
		}
		return nil
	}
	strMap := func(key string, dst *map[string]string) error {
		raw, ok := top[key]
		if !ok || isNull(raw) {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s/%s: want a mapping of names to values", prefix, key)
		}
		*dst = map[string]string{}
		for k, v := range m {
			var s string
			if err := json.Unmarshal(v, &s); err != nil { // checkKubeletTypes refused it already
				return fmt.Errorf("%s/%s/%s: want a string", prefix, key, jsonptr.Escape(k))
			}
			(*dst)[k] = s
		}
		return nil
	}
	for _, err := range []error{
		str("topologyManagerPolicy", &c.TopologyManagerPolicy),
		str("topologyManagerScope", &c.TopologyManagerScope),
		str("cpuManagerPolicy", &c.CPUManagerPolicy),
		str("memoryManagerPolicy", &c.MemoryManagerPolicy),
		str("reservedSystemCPUs", &c.ReservedSystemCPUs),
		strMap("topologyManagerPolicyOptions", &c.TopologyManagerPolicyOptions),
		strMap("cpuManagerPolicyOptions", &c.CPUManagerPolicyOptions),
		strMap("systemReserved", &c.SystemReserved),
		strMap("kubeReserved", &c.KubeReserved),
		strMap("evictionHard", &c.EvictionHard),
	} {
		if err != nil {
			return nil, err
		}
	}
	if c.ReservedSystemCPUs != "" {
		if _, err := cpulist.Parse(c.ReservedSystemCPUs); err != nil {
			return nil, fmt.Errorf("reservedSystemCPUs %s: %w", quoteCut(c.ReservedSystemCPUs), err)
		}
	}
	if raw, ok := top["featureGates"]; ok && !isNull(raw) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%s/featureGates: want a mapping of gate names to true/false", prefix)
		}
		c.FeatureGates = map[string]bool{}
		for k, v := range m {
			var b bool
			if err := json.Unmarshal(v, &b); err != nil { // checkKubeletTypes refused it already
				return nil, fmt.Errorf("%s/featureGates/%s: want true or false, got %s", prefix, jsonptr.Escape(k), cutBytes(v))
			}
			c.FeatureGates[k] = b
		}
	}
	if raw, ok := top["reservedMemory"]; ok && !isNull(raw) {
		// Keys by exact case, as the kubelet's decoder reads them
		// (encoding/json would match NumaNode to numaNode).
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s/reservedMemory: want a list of {numaNode, limits}", prefix)
		}
		for i, r := range list {
			var node int32
			if v, ok := r["numaNode"]; ok {
				if err := json.Unmarshal(v, &node); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/numaNode: %s is not a NUMA node (an int32): the kubelet refuses to start", prefix, i, cutBytes(v))
				}
			} // a missing numaNode (or a null entry) is NUMA node 0, as the kubelet reads it
			var limits map[string]json.RawMessage
			if v, ok := r["limits"]; ok {
				if err := json.Unmarshal(v, &limits); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/limits: %s is not a mapping of resource names to quantities: the kubelet refuses to start", prefix, i, cutBytes(v))
				}
			}
			mr := MemoryReservation{NumaNode: int(node), Limits: map[string]string{}}
			for k, v := range limits {
				// As resource.Quantity's UnmarshalJSON: null is zero, quotes
				// are cut off (escapes are not decoded), spaces trimmed.
				s := string(v)
				if s == "null" {
					s = "0"
				} else if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
					s = s[1 : len(s)-1]
				}
				s = strings.TrimSpace(s)
				if _, err := ParseQuantity(s); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/limits/%s: %w", prefix, i, jsonptr.Escape(k), err)
				}
				mr.Limits[k] = s
			}
			c.ReservedMemory = append(c.ReservedMemory, mr)
		}
	}
	for k := range top {
		c.Set = append(c.Set, k)
		if _, known := kubeletConfigType(k); known {
			continue
		}
		cased := false
		for i := range kubeletConfigTable {
			if f := kubeletConfigTable[i].Name; strings.EqualFold(k, f) {
				cased = true
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s/%s: the kubelet's decoder is case-sensitive and ignores this key; write %s", prefix, jsonptr.Escape(k), f))
				break
			}
		}
		if !cased {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s/%s: not a KubeletConfiguration field: the kubelet ignores it (it logs \"Using lenient decoding as strict decoding failed\")", prefix, jsonptr.Escape(k)))
		}
	}
	sort.Strings(c.Set)
	sort.Strings(c.Warnings)
	if d != nil {
		c.Lines = fieldLines(d.text, c.Set, prefix != "", d.first)
	}
	return c, nil
}

// maxConfigWarnings bounds the warnings kept of one source.
const maxConfigWarnings = 50

// capWarnings keeps the first warnings and counts the rest.
func (c *KubeletConfig) capWarnings() {
	if n := len(c.Warnings); n > maxConfigWarnings {
		c.Warnings = append(c.Warnings[:maxConfigWarnings-1:maxConfigWarnings-1], fmt.Sprintf("and %d more warnings", n-maxConfigWarnings+1))
	}
}

func (c *KubeletConfig) setDefaults() {
	if c.TopologyManagerPolicy == "" {
		c.TopologyManagerPolicy = DefaultTopologyManagerPolicy
	}
	if c.TopologyManagerScope == "" {
		c.TopologyManagerScope = DefaultTopologyManagerScope
	}
	if c.CPUManagerPolicy == "" {
		c.CPUManagerPolicy = defaultCPUManagerPolicy
	}
	if c.MemoryManagerPolicy == "" {
		c.MemoryManagerPolicy = defaultMemoryManagerPolicy
	}
}

// IsSet reports whether the document sets the top-level field.
func (c *KubeletConfig) IsSet(field string) bool {
	i := sort.SearchStrings(c.Set, field)
	return i < len(c.Set) && c.Set[i] == field
}

// Line returns the line of a top-level field in the document, or 0.
func (c *KubeletConfig) Line(field string) int { return c.Lines[field] }

// EffectiveTopologyPolicy returns the topology manager policy; a nil
// configuration has the kubelet's default.
func (c *KubeletConfig) EffectiveTopologyPolicy() string {
	if c == nil || c.TopologyManagerPolicy == "" {
		return DefaultTopologyManagerPolicy
	}
	return c.TopologyManagerPolicy
}

// EffectiveTopologyScope returns the topology manager scope, defaulted.
func (c *KubeletConfig) EffectiveTopologyScope() string {
	if c == nil || c.TopologyManagerScope == "" {
		return DefaultTopologyManagerScope
	}
	return c.TopologyManagerScope
}

// EffectiveCPUManagerPolicy returns the CPU manager policy, defaulted.
func (c *KubeletConfig) EffectiveCPUManagerPolicy() string {
	if c == nil || c.CPUManagerPolicy == "" {
		return defaultCPUManagerPolicy
	}
	return c.CPUManagerPolicy
}

// EffectiveMemoryManagerPolicy returns the memory manager policy, defaulted.
func (c *KubeletConfig) EffectiveMemoryManagerPolicy() string {
	if c == nil || c.MemoryManagerPolicy == "" {
		return defaultMemoryManagerPolicy
	}
	return c.MemoryManagerPolicy
}

// Gates returns the default feature gates with the configuration's
// overrides for the gates topomgr models.
func (c *KubeletConfig) Gates() FeatureGates {
	g := DefaultFeatureGates()
	if c == nil {
		return g
	}
	if v, ok := c.FeatureGates["TopologyManagerPolicyAlphaOptions"]; ok {
		g.TopologyManagerPolicyAlphaOptions = v
	}
	if v, ok := c.FeatureGates["TopologyManagerPolicyBetaOptions"]; ok {
		g.TopologyManagerPolicyBetaOptions = v
	}
	if v, ok := c.FeatureGates["PodLevelResourceManagers"]; ok {
		g.PodLevelResourceManagers = v
	}
	if v, ok := c.FeatureGates[cpuManagerPolicyAlphaOptions]; ok {
		g.CPUManagerPolicyAlphaOptions = v
	}
	if v, ok := c.FeatureGates[cpuManagerPolicyBetaOptions]; ok {
		g.CPUManagerPolicyBetaOptions = v
	}
	return g
}

func stringField(top map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := top[key]; ok {
		if json.Unmarshal(raw, &s) != nil {
			s = strings.TrimSpace(string(raw))
		}
	}
	return s
}

// fieldLines finds the line of each key: a YAML line starting with the
// key and a colon, or the first `"key":` of a JSON document; top-level
// only unless nested. first is the line of data's first line.
func fieldLines(data []byte, keys []string, nested bool, first int) map[string]int {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	out := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := string(line)
		t := strings.TrimLeft(s, " \t{,")
		for _, q := range []string{`"`, `'`, ""} {
			if !strings.HasPrefix(t, q) {
				continue
			}
			rest := t[len(q):]
			k, _, ok := strings.Cut(rest, q+":")
			if q == "" {
				k, _, ok = strings.Cut(rest, ":")
			}
			if ok && want[k] && out[k] == 0 && (nested || len(s)-len(strings.TrimLeft(s, " \t")) == 0 || strings.HasPrefix(strings.TrimSpace(s), `"`)) {
				out[k] = first + i
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func cutBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// jsonKind is the JSON a Go type of the kubelet's configuration accepts.
type jsonKind uint8

const (
	kindString   jsonKind = iota + 1 // a JSON string
	kindBool                         // true or false
	kindInteger                      // a JSON integer in the range of an int of Bits (Unsigned: uint)
	kindNumber                       // any JSON number a float of Bits holds
	kindObject                       // a struct or a map; a map's values are Elem
	kindArray                        // a slice; its elements are Elem
	kindDuration                     // metav1.Duration: a string time.ParseDuration accepts
	kindQuantity                     // resource.Quantity: a string or number ParseQuantity accepts
)

// kubeletType is the JSON one field (or one map value or slice element) of
// the kubelet's KubeletConfiguration accepts, as encoding/json (the
// kubelet's sigs.k8s.io/json) decodes it into the field's Go type.
// kubeletField is one row of kubeletConfigTable: a table of static data,
// not a map, so that the browser engine carries no code to build it.
type kubeletField struct {
	Name string
	Type kubeletType
}

// kubeletConfigType finds a top-level KubeletConfiguration field by its
// exact JSON name.
func kubeletConfigType(name string) (*kubeletType, bool) {
	i := sort.Search(len(kubeletConfigTable), func(i int) bool { return kubeletConfigTable[i].Name >= name })
	if i < len(kubeletConfigTable) && kubeletConfigTable[i].Name == name {
		return &kubeletConfigTable[i].Type, true
	}
	return nil, false
}

type kubeletType struct {
	Kind jsonKind
	// Go is the Go type, as the kubelet's error names it (pointers removed).
	Go string
	// Pointer: the Go type is a pointer (null leaves it nil, even for a
	// Duration, whose UnmarshalJSON refuses null otherwise).
	Pointer bool
	// Bits and Unsigned give an integer's or float's range.
	Bits     int
	Unsigned bool
	// Elem describes a map's values and a slice's elements (nil for structs).
	Elem *kubeletType
}

// checkKubeletTypes checks each member of the configuration object obj
// (duplicates included, in order, as the kubelet's decoder sees them)
// against kubeletConfigTable: a value the field's Go type does not accept
// makes the kubelet refuse to start, in its strict and its lenient pass.
// Unknown keys are left alone (the lenient pass ignores them).
func checkKubeletTypes(obj []byte, prefix string) error {
	return eachMember(obj, func(key string, val json.RawMessage) error {
		t, ok := kubeletConfigType(key)
		if !ok {
			return nil
		}
		return t.check(val, prefix+"/"+jsonptr.Escape(key), key)
	})
}

// check checks val against t; path names it, field is the top-level field
// the kubelet's error names.
func (t *kubeletType) check(val json.RawMessage, path, field string) error {
	val = bytes.TrimSpace(val)
	if len(val) == 0 {
		return nil
	}
	refuse := func(what, reason string) error {
		return fmt.Errorf("%s: %s is not %s: the kubelet refuses to start (%q)", path, cutBytes(val), what, reason)
	}
	mismatch := func(what, value string) error {
		return refuse(what, fmt.Sprintf("json: cannot unmarshal %s into Go struct field KubeletConfiguration.%s of type %s", value, field, t.Go))
	}
	var got string
	switch val[0] {
	case 'n':
		if t.Kind == kindDuration && !t.Pointer {
			return refuse("a duration", `time: invalid duration ""`)
		}
		return nil // null leaves the field as it is
	case '"':
		got = "string"
	case 't', 'f':
		got = "bool"
	case '{':
		got = "object"
	case '[':
		got = "array"
	default:
		got = "number"
	}
	switch t.Kind {
	case kindString:
		if got != "string" {
			return mismatch("a string", got)
		}
	case kindBool:
		if got != "bool" {
			return mismatch("true or false", got)
		}
	case kindInteger:
		if got != "number" {
			return mismatch("an integer", got)
		}
		var err error
		if t.Unsigned {
			_, err = strconv.ParseUint(string(val), 10, t.Bits)
		} else {
			_, err = strconv.ParseInt(string(val), 10, t.Bits)
		}
		if err != nil {
			return mismatch(fmt.Sprintf("an integer that fits %s", t.Go), "number "+string(val))
		}
	case kindNumber:
		if got != "number" {
			return mismatch("a number", got)
		}
		if _, err := strconv.ParseFloat(string(val), t.Bits); err != nil {
			return mismatch(fmt.Sprintf("a number that fits %s", t.Go), "number "+string(val))
		}
	case kindDuration:
		if got != "string" {
			return refuse("a duration", fmt.Sprintf("json: cannot unmarshal %s into Go struct field KubeletConfiguration.%s of type string", got, field))
		}
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return refuse("a duration", err.Error())
		}
		if _, err := time.ParseDuration(s); err != nil {
			return refuse("a duration", err.Error())
		}
	case kindQuantity:
		s := string(val)
		if got == "string" {
			if err := json.Unmarshal(val, &s); err != nil {
				return refuse("a quantity", err.Error())
			}
		} else if got != "number" {
			return refuse("a quantity", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
		}
		if _, err := ParseQuantity(strings.TrimSpace(s)); err != nil {
			return refuse("a quantity", err.Error())
		}
	case kindObject:
		if got != "object" {
			return mismatch("a mapping", got)
		}
		if t.Elem != nil {
			return eachMember(val, func(key string, v json.RawMessage) error {
				return t.Elem.check(v, path+"/"+jsonptr.Escape(key), field)
			})
		}
	case kindArray:
		if got != "array" {
			return mismatch("a list", got)
		}
		if t.Elem != nil {
			return eachElement(val, func(i int, v json.RawMessage) error {
				return t.Elem.check(v, fmt.Sprintf("%s/%d", path, i), field)
			})
		}
	}
	return nil
}

// eachMember calls fn for each member of the JSON object obj, in order,
// duplicate keys included.
func eachMember(obj []byte, fn func(key string, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the callers refuse it themselves
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
	return nil
}

// eachElement calls fn for each element of the JSON array arr.
func eachElement(arr []byte, fn func(i int, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	for i := 0; dec.More(); i++ {
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		if err := fn(i, val); err != nil {
			return err
		}
	}
	return nil
}
