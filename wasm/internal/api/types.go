package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// InputFile is one pasted or dropped file.
type InputFile struct {
	Name    string `json:"name"`
	Content string `json:"content"`
	// ContentRef, when set, names the content by its place (1-based) in
	// the contents CallContents was given instead of carrying it: the
	// browser glue passes large pastes that way, so they are not escaped
	// into the request's JSON and scanned again.
	ContentRef int `json:"contentRef,omitempty"`
}

// UnmarshalJSON reads a file strictly and resolves its ContentRef.
func (f *InputFile) UnmarshalJSON(b []byte) error {
	type plain InputFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	if p.ContentRef != 0 {
		if p.Content != "" {
			return fmt.Errorf("file %q has both content and contentRef", p.Name)
		}
		if p.ContentRef < 1 || p.ContentRef > len(sideContents) {
			return fmt.Errorf("file %q: contentRef %d names no content (%d given)", p.Name, p.ContentRef, len(sideContents))
		}
		p.Content, p.ContentRef = sideContents[p.ContentRef-1], 0
	}
	*f = InputFile(p)
	return nil
}

// head is the start of content the door's looks read (evidence.SniffKind,
// CheckpointKind and MayBeCheckpoint look at the first 64 KiB; one byte
// more tells them it is cut), so that a 10 MB paste is not copied to be
// recognised.
func head(content string) []byte {
	return []byte(content[:min(len(content), 64<<10+1)])
}
