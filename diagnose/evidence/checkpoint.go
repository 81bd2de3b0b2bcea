package evidence

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/numascope/numascope/internal/yamljson"
	"github.com/numascope/numascope/statefile"
)

// reDataString is a checkpoint whose Data member is a string.
var reDataString = regexp.MustCompile(`\A\s*\{\s*"Data"\s*:\s*"`)

// CheckpointKind is the kind of kubelet checkpoint the start of data is,
// as far as the members it names tell before it is decoded: the one kind
// whose required members (the members without which the door cannot read
// a checkpoint of the kind) all appear in the first 64 KiB, in a text
// statefile.Looks takes for a checkpoint. It is "" when they fit no kind
// or more than one (a memory checkpoint with a defaultCpuSet in it), and
// for a DRA checkpoint, which requires none. It decides nothing:
// statefile.Decode does. It lets a caller name a paste after its kind and
// pick the configured policy of that kind before the one decode.
func CheckpointKind(data []byte) statefile.Kind {
	head := data[:min(len(data), sniffHead)]
	if _, ok := statefile.Looks(head); !ok || reDataString.Match(head) {
		return "" // Data holding a string: a DRA checkpoint, or a data section of escaped JSON
	}
	var kind statefile.Kind
	for _, k := range statefile.Kinds() {
		req := requiredFields[k]
		if len(req) == 0 {
			continue
		}
		all := true
		for _, name := range req {
			all = all && bytes.Contains(head, []byte(`"`+name+`"`))
		}
		if !all {
			continue
		}
		if kind != "" {
			return ""
		}
		kind = k
	}
	return kind
}

// MayBeCheckpoint reports whether data, which is no JSON statefile.Decode
// reads, may still be a kubelet checkpoint someone changed:
// statefile.Looks finds a checkpoint's member in its first 64 KiB as they
// are, or read as YAML (a checkpoint converted by yq, or typed by hand:
// `policyName: static`). A caller then shows the decoder's error instead
// of calling the text no evidence at all; prose, a log or a table is not
// taken for a checkpoint because it names a member in a sentence.
func MayBeCheckpoint(data []byte) bool {
	head := data[:min(len(data), sniffHead)]
	if _, ok := statefile.Looks(head); ok {
		return true
	}
	if len(head) < len(data) {
		// a cut head is read up to its last whole line
		if i := bytes.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i]
		}
	}
	js, err := yamljson.ToJSON(head, "checkpoint")
	if err != nil {
		return false
	}
	_, ok := statefile.Looks(js)
	return ok
}

// StateFile is a checkpoint file the kubelet keeps in a directory: its
// kind, its path, and what os.Stat says of it.
type StateFile struct {
	Kind statefile.Kind
	Path string
	// Info is what os.Stat returned; nil when Err is set.
	Info fs.FileInfo
	// Err is os.Stat's error (never fs.ErrNotExist: an absent file is
	// not listed).
	Err error
}

// StateFiles lists the checkpoint files the kubelet keeps in dir that are
// there, in the order the kubelet starts their managers: under its root
// directory (/var/lib/kubelet, its --root-dir) cpu_manager_state,
// memory_manager_state, device-plugins/kubelet_internal_checkpoint and
// dra_manager_state; under its device-plugins directory
// kubelet_internal_checkpoint. These names are the only ones looked up.
// Each is os.Stat'ed and none is opened, so that a caller refuses a FIFO, a
// device or a link to one by its name (Info.Mode().IsRegular()) before
// reading anything.
func StateFiles(dir string) []StateFile {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	inDevicePlugins := filepath.Base(abs) == filepath.Dir(statefile.KindDevice.PathIn(""))
	var out []StateFile
	for _, k := range statefile.Kinds() {
		p := k.PathIn(dir)
		if inDevicePlugins && k == statefile.KindDevice {
			p = filepath.Join(dir, k.FileName())
		}
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			out = append(out, StateFile{Kind: k, Path: p, Err: err})
		default:
			out = append(out, StateFile{Kind: k, Path: p, Info: st})
		}
	}
	return out
}
