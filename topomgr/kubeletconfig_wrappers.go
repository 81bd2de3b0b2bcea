package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/jsonptr"
)

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
