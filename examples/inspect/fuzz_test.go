package main

import (
	"bytes"
	"testing"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// FuzzReport renders any decodable input in every human format, with and
// without a topology: the report never panics, always starts with the
// verdict line and stays bounded.
func FuzzReport(f *testing.F) {
	f.Add(sample)
	m, err := topomgr.ParseMachine([]byte(`{"num_cores":4,"num_sockets":1,"topology":[` +
		`{"node_id":0,"memory":1073741824,"cores":[{"core_id":0,"socket_id":0,"thread_ids":[0,1]}]},` +
		`{"node_id":1,"memory":1073741824,"cores":[{"core_id":2,"socket_id":0,"thread_ids":[2,3]}]}]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			file, err := statefile.Decode(data, statefile.Options{Name: "state"})
			for _, machine := range []*topomgr.Machine{nil, m} {
				o := options{verdictOf: "kubelet v1.37.2", machine: machine}
				r := newReport("state", "state", file, err, &o, false)
				for _, format := range []cliout.Format{cliout.Text, cliout.Wide, cliout.Markdown} {
					var out bytes.Buffer
					p := newPrinter(&out, format)
					r.human(p, &o)
					if p.err != nil {
						t.Fatalf("%s: %v", format, p.err)
					}
					first, _, _ := bytes.Cut(out.Bytes(), []byte("\n"))
					if !bytes.Contains(first, []byte("state")) || !(bytes.Contains(first, []byte("✓")) || bytes.Contains(first, []byte("✗")) || bytes.Contains(first, []byte("⚠"))) {
						t.Fatalf("%s: the first line is not the verdict: %q", format, first)
					}
					if format != cliout.Wide && out.Len() > 64<<10+16*len(data) {
						t.Fatalf("%s: %d bytes of report for %d bytes of input", format, out.Len(), len(data))
					}
				}
			}
		})
	})
}
