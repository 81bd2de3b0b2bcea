package nodebundle

import (
	"bytes"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// FuzzRead: any pod log is read without a panic and within the budget; a
// bundle that is accepted has only clean relative paths, each once, and
// writes back to a line that reads to the same bundle.
func FuzzRead(f *testing.F) {
	var ok bytes.Buffer
	if err := Write(&ok, &Bundle{Node: "n", Files: []File{{Path: "cpu_manager_state", Data: []byte("{}")}}}); err != nil {
		f.Fatal(err)
	}
	f.Add(ok.Bytes())
	f.Add([]byte(`{"level":"INFO"}` + "\n" + ok.String()))
	f.Add([]byte(`{"schema":"numascope.bundle/v1","files":[{"path":"../x","data":""}]}`))
	f.Fuzz(func(t *testing.T, log []byte) {
		fuzzbudget.Run(t, func() {
			b, err := Read(bytes.NewReader(log), "log")
			if err != nil {
				if !strings.HasPrefix(err.Error(), "log") {
					t.Fatalf("the error does not name the log: %v", err)
				}
				return
			}
			seen := map[string]bool{}
			for _, f := range b.Files {
				if CheckPath(f.Path) != nil || seen[f.Path] {
					t.Fatalf("accepted path %q", f.Path)
				}
				seen[f.Path] = true
			}
			var again bytes.Buffer
			if err := Write(&again, b); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(&again, "again"); err != nil {
				t.Fatalf("a bundle read back does not read again: %v", err)
			}
		})
	})
}
