package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunEmptyEvidence(t *testing.T) {
	rep, err := Run(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, rep.Schema, "schema")
	assert.Empty(t, rep.Findings, "findings")
	assert.False(t, rep.HasErrors(), "the report has errors")
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	// Empty lists are written as [], never null, so consumers can iterate.
	assert.Contains(t, b.String(), `"findings": []`, "empty findings")
	assert.Contains(t, b.String(), `"evidence": []`, "empty evidence")
	b.Reset()
	require.NoError(t, rep.WriteText(&b))
	if !strings.Contains(b.String(), "no findings (no evidence given)") {
		t.Errorf("text = %s", b.String())
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, &evidence.Set{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunOrdersBySeverity(t *testing.T) {
	ev := &evidence.Set{}
	require.NoError(t, ev.SetKubeletConfig("c.yaml", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\nmemoryManagerPolicy: static\n")))
	require.NoError(t, ev.AddPods("p.yaml", []byte(`{"kind":"Pod","metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"500m","memory":"1Gi"}}}]}}`)))
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	got := strings.Join(codes(rep), ",")
	assert.Equal(t, "PolicyNameCase,FractionalCPUGuaranteed", got, "codes")
	assert.Equal(t, 1, rep.Summary.Errors, "errors in the summary")
	assert.Equal(t, 1, rep.Summary.Warnings, "warnings in the summary")
	require.Len(t, rep.Findings, 2, "findings")
	require.NotEmpty(t, rep.Findings[1].Evidence, "evidence of finding 1")
	if ref := rep.Findings[1].Evidence[0]; ref.String() != "p.yaml#/spec/containers/0/resources/requests/cpu" {
		t.Errorf("ref = %s", ref)
	}
}

// TestJSONSchemaStable pins the documented field names of the JSON report.
func TestJSONSchemaStable(t *testing.T) {
	rep := runScenario(t, "testdata/tae-gpu-taken-restricted")
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	var doc struct {
		Schema   string `json:"schema"`
		Findings []map[string]json.RawMessage
		Summary  map[string]int
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	f := doc.Findings[0]
	for _, k := range []string{"code", "severity", "title", "explanation", "evidence", "remedy", "pod", "topologyAffinityError"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding has no %q field", k)
		}
	}
	var tae map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(f["topologyAffinityError"], &tae))
	for _, k := range []string{"cause", "policy", "scope", "container", "resources", "loggedHints", "loggedBestHint"} {
		if _, ok := tae[k]; !ok {
			t.Errorf("topologyAffinityError has no %q field", k)
		}
	}
	assert.Equal(t, `"insufficient-resources"`, string(tae["cause"]), "cause")
	assert.Equal(t, 1, doc.Summary["errors"], "errors in the summary")
}

func TestSourcesFromDirAndLoadErrors(t *testing.T) {
	s, err := evidence.SourcesFromDir("testdata/completed-job-pod-holds-cpus")
	require.NoError(t, err)
	assert.NotEmpty(t, s.StateDir, "state directory")
	assert.NotEmpty(t, s.PodResources, "PodResources file")
	assert.Len(t, s.Pods, 1, "pod files")
	if _, err := evidence.SourcesFromDir("testdata/nope"); err == nil {
		t.Error("no error for a missing directory")
	}
	// Unreadable sources are listed as refused, with the reason; evidence.Load goes on.
	ev, err := evidence.Load(evidence.Sources{Logs: []string{"testdata/nope.log"}, StateDir: "testdata/logs"})
	require.NoError(t, err)
	require.Len(t, ev.Items(), 2, "evidence items")
	assert.Equal(t, "refused", ev.Items()[0].Status, "status of the missing log")
	assert.Contains(t, ev.Items()[0].Error, "testdata/nope.log", "the error names the log")
	assert.Equal(t, "refused", ev.Items()[1].Status, "status of the state directory")
	assert.Contains(t, ev.Items()[1].Error, "/var/lib/kubelet", "the error says where the state files are")
}

func TestSimulationDisagreesWithLog(t *testing.T) {
	// The log claims the best hint {0,1 non-preferred}, but merging these
	// hints under single-numa-node gives {any non-preferred}.
	lines := []string{
		`I1129 10:00:00.000000 1 topology_manager.go:192] "Creating topology manager with policy per scope" topologyPolicyName="single-numa-node" topologyScopeName="container" topologyPolicyOptions={"PreferClosestNUMA":false,"MaxAllowableNUMANodes":8}`,
		`I1129 10:00:00.000001 1 scope_container.go:93] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":3,"Preferred":true}]} pod="ns/p" containerName="c"`,
		`I1129 10:00:00.000002 1 scope_container.go:57] "Best TopologyHint" bestHint={"NUMANodeAffinity":3,"Preferred":false} pod="ns/p" containerName="c"`,
		`I1129 10:00:00.000003 1 allocation_manager.go:660] "Pod admission denied" podUID="u" pod="ns/p" reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"`,
	}
	var ev evidence.Set
	require.NoError(t, ev.AddLog("k.log", []byte(strings.Join(lines, "\n"))))
	rep, err := Run(context.Background(), &ev)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings, "findings")
	a := rep.Findings[0].TopologyAffinityError
	require.NotNil(t, a, "TopologyAffinityError analysis")
	if assert.NotNil(t, a.Agree, "agree") {
		assert.False(t, *a.Agree, "the simulation agrees with the log")
	}
	if assert.NotNil(t, a.SimulatedBestHint, "simulated best hint") {
		assert.Nil(t, a.SimulatedBestHint.NUMANodes, "nodes of the simulated best hint")
	}
	if assert.NotNil(t, a.SimulatedAdmit, "simulated admit") {
		assert.False(t, *a.SimulatedAdmit, "simulated admit")
	}
	if !strings.Contains(rep.Findings[0].Explanation, "do not match single-numa-node") {
		t.Errorf("explanation = %s", rep.Findings[0].Explanation)
	}
}

// TestSimulatedHintsMatchLoggedHints recomputes the troubleshooting page's
// hints from its state files and compares them with the kubelet's log lines.
func TestSimulatedHintsMatchLoggedHints(t *testing.T) {
	t.Chdir("testdata/troubleshooting-page")
	src, err := evidence.SourcesFromDir(".")
	require.NoError(t, err)
	ev, err := evidence.Load(src)
	require.NoError(t, err)
	d := &diagnosis{ev: ev, report: &Report{}}
	adm, err := d.simulateAdmission(ev.Pods[0], "single-numa-node", "container")
	require.NoError(t, err, "simulation")
	require.NotNil(t, adm, "simulation")
	if adm.Admit {
		t.Fatal("the model admits the pod")
	}
	sim := fromTopomgr(adm.Steps[0])
	logged := ev.Logs[0].Attempts[0].Containers[0]
	// Without a device checkpoint topomgr runs no device provider; the
	// kubelet's logged {} for it is "no preference" and changes nothing.
	compared := 0
	for _, sp := range sim.Providers {
		for _, lp := range logged.Providers {
			if sp.Provider == lp.Provider {
				compared++
				if got, want := providerText(sp), providerText(lp); got != want {
					t.Errorf("%s: computed %s, logged %s", sp.Provider, got, want)
				}
			}
		}
	}
	if compared != 2 {
		t.Errorf("compared %d providers, want cpu and memory", compared)
	}
	if sim.BestHint.String() != logged.BestHint.String() {
		t.Errorf("best: computed %s, logged %s", sim.BestHint, logged.BestHint)
	}
}
