package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunEmptyEvidence(t *testing.T) {
	rep, err := Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != SchemaVersion || len(rep.Findings) != 0 || rep.HasErrors() {
		t.Errorf("report = %+v", rep)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	// Empty lists are written as [], never null, so consumers can iterate.
	if !strings.Contains(b.String(), `"findings": []`) || !strings.Contains(b.String(), `"evidence": []`) {
		t.Errorf("json = %s", b.String())
	}
	b.Reset()
	require.NoError(t, rep.WriteText(&b))
	if !strings.Contains(b.String(), "no findings (no evidence given)") {
		t.Errorf("text = %s", b.String())
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, &Evidence{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunOrdersBySeverity(t *testing.T) {
	ev := &Evidence{}
	if err := ev.SetKubeletConfig("c.yaml", []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\nmemoryManagerPolicy: static\n")); err != nil {
		t.Fatal(err)
	}
	if err := ev.AddPods("p.yaml", []byte(`{"kind":"Pod","metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"500m","memory":"1Gi"}}}]}}`)); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(codes(rep), ",")
	if got != "PolicyNameCase,FractionalCPUGuaranteed" || rep.Summary.Errors != 1 || rep.Summary.Warnings != 1 {
		t.Errorf("codes = %s summary = %+v", got, rep.Summary)
	}
	if ref := rep.Findings[1].Evidence[0]; ref.String() != "p.yaml#/spec/containers/0/resources/requests/cpu" {
		t.Errorf("ref = %s", ref)
	}
}

// TestJSONSchemaStable pins the documented field names of the JSON report.
func TestJSONSchemaStable(t *testing.T) {
	rep := runScenario(t, "testdata/tae-gpu-taken-restricted")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Findings []map[string]json.RawMessage
		Summary  map[string]int
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
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
	if string(tae["cause"]) != `"insufficient-resources"` || doc.Summary["errors"] != 1 {
		t.Errorf("cause = %s summary = %v", tae["cause"], doc.Summary)
	}
}

func TestSourcesFromDirAndLoadErrors(t *testing.T) {
	s, err := SourcesFromDir("testdata/completed-job-pod-holds-cpus")
	if err != nil {
		t.Fatal(err)
	}
	if s.StateDir == "" || s.PodResources == "" || len(s.Pods) != 1 {
		t.Errorf("sources = %+v", s)
	}
	if _, err := SourcesFromDir("testdata/nope"); err == nil {
		t.Error("no error for a missing directory")
	}
	if _, err := Load(Sources{Logs: []string{"testdata/nope.log"}}); err == nil || !strings.Contains(err.Error(), "testdata/nope.log") {
		t.Errorf("err = %v", err)
	}
	if _, err := Load(Sources{StateDir: "testdata/logs"}); err == nil || !strings.Contains(err.Error(), "/var/lib/kubelet") {
		t.Errorf("err = %v", err)
	}
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
	var ev Evidence
	if err := ev.AddLog("k.log", []byte(strings.Join(lines, "\n"))); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), &ev)
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Findings[0].TopologyAffinityError
	if a == nil || a.Agree == nil || *a.Agree || a.SimulatedBestHint == nil || a.SimulatedBestHint.NUMANodes != nil || *a.SimulatedAdmit {
		t.Fatalf("analysis = %+v", a)
	}
	if !strings.Contains(rep.Findings[0].Explanation, "do not match single-numa-node") {
		t.Errorf("explanation = %s", rep.Findings[0].Explanation)
	}
}

// TestSimulatedHintsMatchLoggedHints recomputes the troubleshooting page's
// hints from its state files and compares them with the kubelet's log lines.
func TestSimulatedHintsMatchLoggedHints(t *testing.T) {
	t.Chdir("testdata/troubleshooting-page")
	src, err := SourcesFromDir(".")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	d := &diagnosis{ev: ev, report: &Report{}}
	adm, err := d.simulateAdmission(ev.Pods[0], "single-numa-node", "container")
	if err != nil || adm == nil {
		t.Fatalf("simulation: %v %v", adm, err)
	}
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
