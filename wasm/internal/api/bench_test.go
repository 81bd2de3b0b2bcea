package api

import (
	"encoding/json"
	"testing"
)

func benchCall(b *testing.B, method string, req any) {
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Call(method, body)
	}
}

func exampleFiles(b *testing.B, id string) []InputFile {
	list, err := Examples()
	if err != nil {
		b.Fatal(err)
	}
	for _, ex := range list.Examples {
		if ex.ID == id {
			return ex.Files
		}
	}
	b.Fatalf("no example %s", id)
	return nil
}

func BenchmarkInspectTroubleshootingSample(b *testing.B) {
	benchCall(b, "inspect", InspectRequest{Files: exampleFiles(b, "troubleshooting")})
}

func BenchmarkInspectWholeEvidence(b *testing.B) {
	benchCall(b, "inspect", InspectRequest{Files: exampleFiles(b, "troubleshooting-page")})
}

func BenchmarkDiagnoseWholeEvidence(b *testing.B) {
	benchCall(b, "diagnose", DiagnoseRequest{Files: exampleFiles(b, "troubleshooting-page")})
}

func BenchmarkMerge(b *testing.B) {
	benchCall(b, "merge", json.RawMessage(`{"numaNodes":[0,1,2,3],"policy":"restricted","providers":[{"cpu":[{"numaAffinity":[0],"preferred":true},{"numaAffinity":[0,1],"preferred":false}]},{"memory":[{"numaAffinity":[1],"preferred":true}]}]}`))
}
