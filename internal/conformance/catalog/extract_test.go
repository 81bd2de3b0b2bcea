package catalog

import (
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// got is what a test compares of a found text.
type got struct {
	Kind, Level string
	V           int
	Form        string
	Format      string
	Keys        []string
	Reason      string
	Errs        []int
	Dynamic     bool
	Func, Call  string
}

func gotOf(fs []found) []got {
	var out []got
	for _, f := range fs {
		out = append(out, got{Kind: f.Kind, Level: f.Level, V: f.V, Form: f.Form, Format: f.Format, Keys: f.Keys,
			Reason: f.Reason, Errs: f.Errs, Dynamic: f.Dynamic, Func: f.Func, Call: f.Call})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Format < out[j].Format })
	return out
}

// kubeletSource is a k8s.io/kubernetes tree holding the given files, plus
// pkg/kubelet/events and pkg/kubelet/lifecycle as the snippets import them.
func kubeletSource(files map[string]string) Source {
	fsys := fstest.MapFS{
		"pkg/kubelet/events/event.go": {Data: []byte(`package events

const (
	FailedPrepareDynamicResources = "FailedPrepareDynamicResources"
	prefix                        = "Failed"
	FailedAllocate                = prefix + "Allocate"
)
`)},
		"pkg/kubelet/lifecycle/interfaces.go": {Data: []byte(`package lifecycle

type PodAdmitResult struct {
	Admit   bool
	Reason  string
	Message string
}
`)},
	}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	return Source{Path: Kubernetes, Version: "v1.37.2", FS: fsys}
}

const header = `package cpumanager

import (
	"context"
	"errors"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/events"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

var _, _, _, _, _, _ = context.TODO, errors.New, fmt.Sprint, os.Exit, v1.EventTypeWarning, events.FailedAllocate
var _ lifecycle.PodAdmitResult
`

func extractOne(t *testing.T, body string) ([]got, []Unresolved) {
	t.Helper()
	src := kubeletSource(map[string]string{"pkg/kubelet/cm/cpumanager/x.go": header + body})
	fs, un, errs := Extract([]Source{src}, []Scope{{Module: Kubernetes, Dir: "pkg/kubelet/cm/cpumanager"}})
	require.Empty(t, errs)
	return gotOf(fs), un
}

func TestExtractCallForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []got
	}{
		{"klog printf with an error operand", `func f(what string, err error) { klog.Errorf("failed to %s: %v", what, err) }`,
			[]got{{Kind: "log", Level: "error", Form: "printf", Format: "failed to %s: %v", Errs: []int{1}, Func: "f", Call: "klog.Errorf"}}},
		{"klog V printf", `func f(n int) { klog.V(4).Infof("allocated %d CPUs", n) }`,
			[]got{{Kind: "log", Level: "info", V: 4, Form: "printf", Format: "allocated %d CPUs", Func: "f", Call: "klog.V.Infof"}}},
		{"klog warning and fatal", `func f(p string) { klog.Warningf("[cpumanager] no state for %q", p); klog.Fatalf("Failed to start ContainerManager %v", p) }`,
			[]got{
				{Kind: "log", Level: "fatal", Form: "printf", Format: "Failed to start ContainerManager %v", Func: "f", Call: "klog.Fatalf"},
				{Kind: "log", Level: "warning", Form: "printf", Format: "[cpumanager] no state for %q", Func: "f", Call: "klog.Warningf"},
			}},
		{"klog print form joins operands as fmt.Sprint does", `func f(err error, n int) { klog.Error("unable to read: ", err); klog.Info(n, n, " CPUs") }`,
			[]got{
				{Kind: "log", Level: "info", Form: "printf", Format: "%v %v CPUs", Func: "f", Call: "klog.Info"},
				{Kind: "log", Level: "error", Form: "printf", Format: "unable to read: %v", Errs: []int{0}, Func: "f", Call: "klog.Error"},
			}},
		{"klog println form", `func f(x int) { klog.Infoln("state", x) }`,
			[]got{{Kind: "log", Level: "info", Form: "printf", Format: "state %v", Func: "f", Call: "klog.Infoln"}}},
		{"structured InfoS keys", `func f(pod, name string) { klog.InfoS("Topology Admit Handler", "pod", pod, "containerName", name) }`,
			[]got{{Kind: "log", Level: "info", Form: "structured", Format: "Topology Admit Handler", Keys: []string{"pod", "containerName"}, Func: "f", Call: "klog.InfoS"}}},
		{"structured ErrorS logs err first", `func f(err error) { klog.ErrorS(err, "Failed to start ContainerManager", "node", "n1") }`,
			[]got{{Kind: "log", Level: "error", Form: "structured", Format: "Failed to start ContainerManager", Keys: []string{"err", "node"}, Func: "f", Call: "klog.ErrorS"}}},
		{"ErrorS with a nil error has no err key", `func f() { klog.ErrorS(nil, "Static policy invalid") }`,
			[]got{{Kind: "log", Level: "error", Form: "structured", Format: "Static policy invalid", Func: "f", Call: "klog.ErrorS"}}},
		{"a structured message with % is escaped", `func f() { klog.InfoS("100% reserved") }`,
			[]got{{Kind: "log", Level: "info", Form: "structured", Format: "100%% reserved", Func: "f", Call: "klog.InfoS"}}},
		{"a local Verbose value", `func f(s string) { if klogV := klog.V(5); klogV.Enabled() { klogV.InfoS("state", "s", s) } }`,
			[]got{{Kind: "log", Level: "info", V: 5, Form: "structured", Format: "state", Keys: []string{"s"}, Func: "f", Call: "klog.V.InfoS"}}},
		{"logr from the context, V added up", `func f(ctx context.Context) { logger := klog.FromContext(ctx).V(1); logger.V(2).Info("Hint Provider has no preference", "resource", "cpu") }`,
			[]got{{Kind: "log", Level: "info", V: 3, Form: "structured", Format: "Hint Provider has no preference", Keys: []string{"resource"}, Func: "f", Call: "logger.V.Info"}}},
		{"a logger parameter and field", `type manager struct{ log klog.Logger }
func (m *manager) f(lg klog.Logger, err error) { lg.Info("Starting"); m.log.Error(err, "Failed to restore state") }`,
			[]got{
				{Kind: "log", Level: "error", Form: "structured", Format: "Failed to restore state", Keys: []string{"err"}, Func: "(*manager).f", Call: "logger.Error"},
				{Kind: "log", Level: "info", Form: "structured", Format: "Starting", Func: "(*manager).f", Call: "logger.Info"},
			}},
		{"a computed key is ?", `func f(k string) { klog.InfoS("x y z", k, 1, "b", 2) }`,
			[]got{{Kind: "log", Level: "info", Form: "structured", Format: "x y z", Keys: []string{"?", "b"}, Func: "f", Call: "klog.InfoS"}}},
		{"fmt.Errorf with %w", `func f(path string, err error) error { return fmt.Errorf("could not restore state from checkpoint %q: %w", path, err) }`,
			[]got{{Kind: "error", Level: "error", Form: "printf", Format: "could not restore state from checkpoint %q: %w", Errs: []int{1}, Func: "f", Call: "fmt.Errorf"}}},
		{"errors.New and a package error var", `var ErrCorrupt = errors.New("checkpoint is corrupted")
func f() error { return errors.New("unknown policy") }`,
			[]got{
				{Kind: "error", Level: "error", Form: "printf", Format: "checkpoint is corrupted", Func: "var ErrCorrupt", Call: "errors.New"},
				{Kind: "error", Level: "error", Form: "printf", Format: "unknown policy", Func: "f", Call: "errors.New"},
			}},
		{"stderr printing drops the newline", `func f(err error) { fmt.Fprintf(os.Stderr, "Error: %v\n", err) }`,
			[]got{{Kind: "log", Level: "error", Form: "printf", Format: "Error: %v", Errs: []int{0}, Func: "f", Call: "fmt.Fprintf(os.Stderr)"}}},
		{"a run-time format keeps its constant part", `func f(s, x string) { klog.Errorf("cannot " + s + " now %s", x) }`,
			[]got{{Kind: "log", Level: "error", Form: "printf", Format: "cannot %v now %s", Dynamic: true, Func: "f", Call: "klog.Errorf"}}},
		{"a message built in a local", `func f(n int) { message := fmt.Sprintf("needs %d CPUs", n); klog.Warning(message) }`,
			[]got{{Kind: "log", Level: "warning", Form: "printf", Format: "needs %d CPUs", Func: "f", Call: "klog.Warning"}}},
		{"locals by scope: the use sees its own declaration", `func f(a bool) {
	if a { msg := "first text here"; klog.InfoS(msg); return }
	msg := "second text here"
	klog.InfoS(msg)
}`,
			[]got{
				{Kind: "log", Level: "info", Form: "structured", Format: "first text here", Func: "f", Call: "klog.InfoS"},
				{Kind: "log", Level: "info", Form: "structured", Format: "second text here", Func: "f", Call: "klog.InfoS"},
			}},
		{"a local assigned in branches gives every text", `func f(a bool) { msg := "default text"; if a { msg = "other text" }; klog.InfoS(msg) }`,
			[]got{
				{Kind: "log", Level: "info", Form: "structured", Format: "default text", Func: "f", Call: "klog.InfoS"},
				{Kind: "log", Level: "info", Form: "structured", Format: "other text", Func: "f", Call: "klog.InfoS"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := extractOne(t, tc.body)
			assert.Empty(t, cmp.Diff(tc.want, fs))
		})
	}
}

func TestExtractConstants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"const concatenation across files", map[string]string{
			"pkg/kubelet/cm/cpumanager/a.go": "package cpumanager\n\nconst logPrefix = \"[cpumanager] \"\nconst stateFile = \"cpu_manager_state\"\n",
			"pkg/kubelet/cm/cpumanager/b.go": "package cpumanager\n\nimport \"k8s.io/klog/v2\"\n\nfunc f(err error) { klog.Errorf(logPrefix+\"could not read %s: %v\", stateFile, err) }\n",
		}, []string{"[cpumanager] could not read %s: %v"}},
		{"typed constants and conversions", map[string]string{
			"pkg/kubelet/cm/cpumanager/a.go": "package cpumanager\n\nimport \"errors\"\n\ntype policyName string\n\nconst PolicyStatic policyName = \"static\"\n\nfunc f() error { return errors.New(\"policy \" + string(PolicyStatic) + \" unknown\") }\n",
		}, []string{"policy static unknown"}},
		{"an exported constant of another kubelet package", map[string]string{
			"pkg/kubelet/cm/cpumanager/a.go": "package cpumanager\n\nimport (\n\t\"errors\"\n\n\tkc \"k8s.io/kubernetes/pkg/kubelet/events\"\n)\n\nfunc f() error { return errors.New(kc.FailedAllocate + \" devices\") }\n",
		}, []string{"FailedAllocate devices"}},
		{"the V level from a constant", map[string]string{
			"pkg/kubelet/cm/cpumanager/a.go": "package cpumanager\n\nimport \"k8s.io/klog/v2\"\n\nconst debug = klog.Level(4)\n\nfunc f() { klog.V(debug).InfoS(\"verbose text\") }\n",
		}, []string{"verbose text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := kubeletSource(tc.files)
			fs, _, errs := Extract([]Source{src}, []Scope{{Module: Kubernetes, Dir: "pkg/kubelet/cm/cpumanager"}})
			require.Empty(t, errs)
			var formats []string
			for _, f := range fs {
				formats = append(formats, f.Format)
			}
			assert.Equal(t, tc.want, formats)
		})
	}
}

func TestExtractEventsAndAdmission(t *testing.T) {
	body := `type recorderType interface{ Eventf(o any, t, r, f string, a ...any); Event(o any, t, r, m string) }

type TopologyAffinityError struct{}

const ErrorTopologyAffinity = "TopologyAffinityError"

func (e TopologyAffinityError) Error() string { return "Resources cannot be allocated with Topology locality" }
func (e TopologyAffinityError) Type() string  { return ErrorTopologyAffinity }

type unexpected struct{ Err error }

func (e *unexpected) Error() string { return fmt.Sprintf("Allocate failed due to %v, which is unexpected", e.Err) }

func f(recorder recorderType, pod any, err error) {
	recorder.Eventf(pod, v1.EventTypeWarning, events.FailedPrepareDynamicResources, "Failed to prepare dynamic resources: %v", err)
	recorder.Event(pod, v1.EventTypeNormal, "SuccessfulNodeAllocatableEnforcement", "Updated Node Allocatable limit across pods")
}

func admit(fit bool, kind int, err error) lifecycle.PodAdmitResult {
	if fit {
		return lifecycle.PodAdmitResult{Admit: true}
	}
	if err != nil {
		message := fmt.Sprintf("Update plugin resources failed due to %v, which is unexpected.", err)
		return lifecycle.PodAdmitResult{Admit: false, Reason: "UnexpectedAdmissionError", Message: message}
	}
	var reason, message string
	switch kind {
	case 1:
		reason = "OutOfcpu"
		message = "Node didn't have enough resource: cpu"
	default:
		reason = "UnexpectedPredicateFailureType"
		message = fmt.Sprintf("GeneralPredicates failed due to %v, which is unexpected.", kind)
	}
	return lifecycle.PodAdmitResult{Admit: false, Reason: reason, Message: message}
}

func reject(reason, message string) v1.PodStatus {
	return v1.PodStatus{Reason: reason, Message: "Pod was rejected: " + message}
}
`
	fs, _ := extractOne(t, body)
	want := []got{
		{Kind: "error", Level: "error", Form: "printf", Format: "Allocate failed due to %v, which is unexpected", Errs: []int{0}, Func: "(*unexpected).Error", Call: "Error()"},
		{Kind: "event", Level: "warning", Form: "printf", Format: "Failed to prepare dynamic resources: %v", Reason: "FailedPrepareDynamicResources", Errs: []int{0}, Func: "f", Call: "recorder.Eventf"},
		{Kind: "admit", Level: "error", Form: "printf", Format: "GeneralPredicates failed due to %v, which is unexpected.", Reason: "UnexpectedPredicateFailureType", Func: "admit", Call: "PodAdmitResult"},
		{Kind: "admit", Level: "error", Form: "printf", Format: "Node didn't have enough resource: cpu", Reason: "OutOfcpu", Func: "admit", Call: "PodAdmitResult"},
		{Kind: "admit", Level: "error", Form: "printf", Format: "Pod was rejected: %v", Reason: "?", Errs: []int{0}, Dynamic: true, Func: "reject", Call: "PodAdmitResult"},
		{Kind: "error", Level: "error", Form: "printf", Format: "Resources cannot be allocated with Topology locality", Func: "TopologyAffinityError.Error", Call: "Error()"},
		{Kind: "admit", Level: "error", Form: "printf", Format: "Resources cannot be allocated with Topology locality", Reason: "TopologyAffinityError", Func: "TopologyAffinityError.Error", Call: "Type()+Error()"},
		{Kind: "admit", Level: "error", Form: "printf", Format: "Update plugin resources failed due to %v, which is unexpected.", Reason: "UnexpectedAdmissionError", Errs: []int{0}, Func: "admit", Call: "PodAdmitResult"},
		{Kind: "event", Level: "info", Form: "printf", Format: "Updated Node Allocatable limit across pods", Reason: "SuccessfulNodeAllocatableEnforcement", Func: "f", Call: "recorder.Event"},
	}
	assert.Empty(t, cmp.Diff(want, fs))
}

func TestExtractUnresolvedAndWrappers(t *testing.T) {
	fs, un := extractOne(t, `func f(err error) { klog.Fatal(err); klog.ErrorS(err, err.Error()) }`)
	assert.Empty(t, fs)
	require.Len(t, un, 2)
	assert.Equal(t, Unresolved{Manager: "cpumanager", File: "pkg/kubelet/cm/cpumanager/x.go", Func: "f", Call: "klog.Fatal", Why: "the text is one run-time value"}, un[0])

	pflag := Source{Path: Pflag, Version: "v1.0.5", FS: fstest.MapFS{"flag.go": {Data: []byte(`package pflag

import "fmt"

type FlagSet struct{}

func (f *FlagSet) failf(format string, a ...interface{}) error {
	err := fmt.Errorf(format, a...)
	return err
}

func (f *FlagSet) parse(s, name, value string, err error) error {
	if s == "" {
		return f.failf("bad flag syntax: %s", s)
	}
	return fmt.Errorf("invalid argument %q for %q flag: %v", value, name, err)
}
`)}}}
	found, _, errs := Extract([]Source{pflag}, []Scope{{Module: Pflag, Dir: ".", Manager: "pflag"}})
	require.Empty(t, errs)
	assert.Empty(t, cmp.Diff([]got{
		{Kind: "flag", Level: "error", Form: "printf", Format: "bad flag syntax: %s", Func: "(*FlagSet).parse", Call: "failf"},
		{Kind: "flag", Level: "error", Form: "printf", Format: "invalid argument %q for %q flag: %v", Errs: []int{2}, Func: "(*FlagSet).parse", Call: "fmt.Errorf"},
	}, gotOf(found)))
	for _, f := range found {
		assert.Equal(t, "github.com/spf13/pflag/flag.go", f.File)
	}
}

func TestExtractScopes(t *testing.T) {
	src := kubeletSource(map[string]string{
		"pkg/kubelet/cm/cpumanager/linux.go":           header + `func a() { klog.InfoS("on linux") }`,
		"pkg/kubelet/cm/cpumanager/x_windows.go":       header + `func b() { klog.InfoS("on windows") }`,
		"pkg/kubelet/cm/cpumanager/tagged.go":          "//go:build windows\n\n" + header + `func c() { klog.InfoS("tagged windows") }`,
		"pkg/kubelet/cm/cpumanager/default.go":         "//go:build !providerless\n\n" + header + `func d() { klog.InfoS("default build") }`,
		"pkg/kubelet/cm/cpumanager/x_test.go":          header + `func e() { klog.InfoS("a test") }`,
		"pkg/kubelet/cm/cpumanager/fake_manager.go":    header + `func g() { klog.InfoS("a fake") }`,
		"pkg/kubelet/cm/cpumanager/testing/t.go":       header + `func h() { klog.InfoS("test double") }`,
		"pkg/kubelet/cm/topologymanager/policy.go":     strings.Replace(header, "package cpumanager", "package topologymanager", 1) + `func i() { klog.InfoS("topology text") }`,
		"pkg/kubelet/kubelet.go":                       strings.Replace(header, "package cpumanager", "package kubelet", 1) + `func NewMainKubelet() { klog.InfoS("kept") }` + "\n" + `func other() { klog.InfoS("left out") }`,
		"pkg/kubelet/cm/container_manager_linux.go":    strings.Replace(header, "package cpumanager", "package cm", 1) + `func j(err error) error { return fmt.Errorf("start cpu manager error: %w", err) }`,
		"pkg/kubelet/checkpointmanager/errors/errs.go": "package errors\n\nimport \"errors\"\n\nvar ErrCorruptCheckpoint = errors.New(\"checkpoint is corrupted\")\n",
	})
	fs, _, errs := Extract([]Source{src}, []Scope{
		{Module: Kubernetes, Dir: "pkg/kubelet/cm", Tree: true},
		{Module: Kubernetes, Dir: "pkg/kubelet/checkpointmanager", Tree: true},
		{Module: Kubernetes, Dir: "pkg/kubelet", Files: []string{"kubelet.go"}, Funcs: []string{"NewMainKubelet"}, Manager: "kubelet"},
	})
	require.Empty(t, errs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Manager+": "+f.Format)
	}
	sort.Strings(got)
	assert.Equal(t, []string{
		"checkpointmanager: checkpoint is corrupted",
		"containermanager: start cpu manager error: %w",
		"cpumanager: default build",
		"cpumanager: on linux",
		"kubelet: kept",
		"topologymanager: topology text",
	}, got)
}
