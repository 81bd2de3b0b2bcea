package api

// InputFile is one pasted or dropped file.
type InputFile struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}
