package topomgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/yamljson"
)

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
