package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// eraAttempt is what an old-era log must yield for one admission.
type eraAttempt struct {
	Pod, UID, Scope, Reason, Message string
	// Containers: "name: provider resource=hints...; best=hint aligned"
	Containers []string
}

func summarizeAttempt(a AdmissionAttempt) eraAttempt {
	out := eraAttempt{Pod: a.Pod, UID: a.PodUID, Scope: a.Scope, Reason: a.Reason, Message: a.Message}
	for _, c := range a.Containers {
		var parts []string
		for _, p := range c.Providers {
			s := p.Provider
			switch {
			case p.NoPreference && p.EmptyMap:
				s += " {}"
			case p.NoPreference:
				s += " none"
			}
			if p.Indistinct {
				s += "?"
			}
			for _, r := range p.Resources {
				var hs []string
				for _, h := range r.Hints {
					hs = append(hs, h.String())
				}
				flag := ""
				switch {
				case r.Impossible:
					flag = "impossible"
				case r.NoPreference:
					flag = "nopref"
				}
				if r.Indistinct {
					flag += "?"
				}
				s += " " + r.Resource + "=" + strings.Join(hs, "") + flag
			}
			parts = append(parts, s)
		}
		best := "-"
		if c.BestHint != nil {
			best = c.BestHint.String()
		}
		out.Containers = append(out.Containers, fmt.Sprintf("%s: %s; best=%s aligned=%v", c.Container, strings.Join(parts, " | "), best, c.Aligned))
	}
	return out
}

// TestParseLogEras reads fixtures written from the kubelet's own format
// strings of each era (see the comment at the top of each file) and checks
// the admissions, the release the log implies and the wrapper.
func TestParseLogEras(t *testing.T) {
	tests := []struct {
		file     string
		release  string
		wrapper  string
		nodes    []string
		attempts []eraAttempt
		warning  string
	}{
		{
			file: "kubelet-1.16-journal.log", release: "1.16-1.17", wrapper: "journald-short", nodes: []string{"wrk-numa-07"},
			attempts: []eraAttempt{
				{Pod: "dpdk-fwd", UID: "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13", Scope: "container",
					Containers: []string{"fwd: cpu cpu={0 preferred}{0,1 non-preferred}; best={0 preferred} aligned=true"}},
				{Pod: "telco/dpdk-big", UID: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", Scope: "container", Reason: "Topology Affinity Error",
					Message:    "Resources cannot be allocated with Topology Locality",
					Containers: []string{"fwd: cpu cpu={0,1 preferred}; best={0,1 preferred} aligned=false"}},
			},
		},
		{
			file: "kubelet-1.17-plain.log", release: "1.17", wrapper: "plain",
			attempts: []eraAttempt{
				{Pod: "ml/trainer", UID: "0d5c6e1a-1111-4222-8333-944455556666", Scope: "container", Reason: "Topology Affinity Error",
					Message: "Resources cannot be allocated with Topology Locality",
					// The CPU manager's own line is not counted twice.
					Containers: []string{"cuda: device nvidia.com/gpu={1 preferred}{0,1 non-preferred} | cpu cpu={0 preferred}{0,1 non-preferred}; best={0,1 non-preferred} aligned=false"}},
			},
		},
		{
			file: "kubelet-1.18-journal.log", release: "1.18-1.19", wrapper: "journald-short", nodes: []string{"wrk-numa-09"},
			warning: "2 hint lines (first at line 8) come from a kubelet before 1.28",
			attempts: []eraAttempt{
				// "[]" is settled by the "no preference ... with resource" line; node 2 alone prints "100".
				{Pod: "dpdk-fwd-6f9c7d8b4-kx2lq", UID: "3f1c9a2e-7b44-4d1e-9c0a-5e2b8d7f6a13", Scope: "container",
					Containers: []string{"fwd: device openshift.io/sriov_a=nopref | cpu cpu={2 preferred}{0,2 non-preferred}{1,2 non-preferred}{2,3 non-preferred}; best={2 preferred} aligned=true"}},
				{Pod: "telco/dpdk-fwd-6f9c7d8b4-zz9q1", UID: "5b2e0c1d-0000-4000-8000-00000000abcd", Scope: "container", Reason: "TopologyAffinityError",
					Message:    "Resources cannot be allocated with Topology locality",
					Containers: []string{"fwd: cpu cpu=impossible?; best={0,1,2,3 non-preferred} aligned=false"}},
			},
		},
		{
			file: "kubelet-1.20-pod-scope.log", release: "1.20", wrapper: "journald-precise", nodes: []string{"wrk-numa-07"},
			warning: "1 hint lines (first at line 10) come from a kubelet before 1.28",
			attempts: []eraAttempt{
				{Pod: "web/twin", UID: "77777777-0000-4000-8000-000000000006", Scope: "pod", Reason: "TopologyAffinityError",
					Message:    "Resources cannot be allocated with Topology locality",
					Containers: []string{": device none? | cpu cpu={0,1 preferred}; best={any non-preferred} aligned=false"}},
				{Pod: "web/solo", UID: "88888888-0000-4000-8000-000000000007", Scope: "pod",
					Containers: []string{": cpu cpu={0 preferred}{1 preferred}{0,1 non-preferred}; best={0 preferred} aligned=true"}},
			},
		},
		{
			file: "kubelet-1.25-plusv.log", release: "1.21-1.26", wrapper: "journald-short", nodes: []string{"wrk-numa-07"},
			warning: "2 hint lines (first at line 8) come from a kubelet before 1.28",
			attempts: []eraAttempt{
				// NUMANodeAffinity:10 is binary: node 1, never nodes 1 and 3.
				{Pod: "telco/dpdk-fwd", Scope: "container", Reason: "TopologyAffinityError", Message: "Resources cannot be allocated with Topology locality",
					Containers: []string{"fwd: device none? | cpu cpu={0 preferred}{1 preferred}{0,1 non-preferred} | memory hugepages-1Gi=impossible memory={1 preferred}{0,1 non-preferred}; best={1 non-preferred} aligned=false"}},
				{Pod: "telco/other", Scope: "container", Containers: []string{"c: cpu cpu={any preferred}; best=- aligned=false"}},
			},
		},
		{
			file: "kubelet-1.20-talos-json.log", release: "1.20", wrapper: "node-prefix", nodes: []string{"10.5.0.12", "10.5.0.13"},
			warning: "the lines come from 2 nodes",
			attempts: []eraAttempt{
				// The other node's admit line does not end this node's admission.
				{Pod: "data/ingest", UID: "12121212-0000-4000-8000-000000000001", Scope: "container",
					Containers: []string{"app: cpu cpu={1 preferred}{0,1 non-preferred}; best={1 preferred} aligned=true"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			k := mustParseLogFile(t, tt.file)
			var got []eraAttempt
			for _, a := range k.Attempts {
				got = append(got, summarizeAttempt(a))
			}
			if diff := cmp.Diff(tt.attempts, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.release, k.release().String(), "release; evidence %v", k.Release.Evidence)
			assert.NotEmpty(t, k.Release.Evidence, "release evidence")
			assert.Equal(t, tt.wrapper, k.Wrapper, "wrapper")
			assert.Equal(t, tt.nodes, k.Nodes, "nodes")
			if tt.warning == "" {
				assert.Empty(t, k.Warnings, "warnings")
			} else if assert.NotEmpty(t, k.Warnings, "warnings") {
				assert.Contains(t, k.Warnings[0], tt.warning, "warning")
			}
		})
	}
}
