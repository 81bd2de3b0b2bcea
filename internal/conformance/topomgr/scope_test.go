package topomgr

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	ns "github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/require"
)

// script is what a fake provider answers and which allocations fail.
type script struct {
	name      string
	container map[string]ns.ProviderHints
	pod       ns.ProviderHints
	failOn    map[string]error
}

type typedErr struct{}

func (typedErr) Error() string { return "SMT Alignment Error: test" }
func (typedErr) Type() string  { return "SMTAlignmentError" }

// kubeletProvider plays a script for the kubelet's scopes.
type kubeletProvider struct {
	s     *script
	calls *[]string
}

func (p kubeletProvider) GetTopologyHints(_ klog.Logger, _ *v1.Pod, c *v1.Container, _ lifecycle.Operation) map[string][]tm.TopologyHint {
	return kProviders([]ns.ProviderHints{p.s.container[c.Name]})[0]
}
func (p kubeletProvider) GetPodTopologyHints(klog.Logger, *v1.Pod, lifecycle.Operation) map[string][]tm.TopologyHint {
	return kProviders([]ns.ProviderHints{p.s.pod})[0]
}
func (p kubeletProvider) AllocatePod(klog.Logger, *v1.Pod, lifecycle.Operation) error { return nil }
func (p kubeletProvider) Allocate(_ context.Context, _ *v1.Pod, c *v1.Container, _ lifecycle.Operation) error {
	*p.calls = append(*p.calls, p.s.name+"/"+c.Name)
	return p.s.failOn[c.Name]
}

// numascopeProvider plays the same script for numascope's scopes.
type numascopeProvider struct {
	s     *script
	calls *[]string
}

func (p numascopeProvider) Name() string { return p.s.name }
func (p numascopeProvider) GetTopologyHints(_ *ns.Pod, c *ns.Container) ns.ProviderHints {
	return p.s.container[c.Name]
}
func (p numascopeProvider) GetPodTopologyHints(*ns.Pod) ns.ProviderHints { return p.s.pod }
func (p numascopeProvider) Allocate(_ *ns.Pod, c *ns.Container, _ ns.Store) error {
	*p.calls = append(*p.calls, p.s.name+"/"+c.Name)
	return p.s.failOn[c.Name]
}

func randomHints(r *rand.Rand, ids []int) ns.ProviderHints {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return ns.ProviderHints{}
	}
	ph := ns.ProviderHints{}
	for k := 1 + r.IntN(2); k > 0; k-- {
		name := fmt.Sprintf("res%d", r.IntN(3))
		switch r.IntN(8) {
		case 0:
			ph[name] = nil
			continue
		case 1:
			ph[name] = []ns.TopologyHint{}
			continue
		}
		var hints []ns.TopologyHint
		for j := 1 + r.IntN(4); j > 0; j-- {
			var m ns.BitMask
			for _, id := range ids {
				if r.IntN(2) == 0 {
					m |= 1 << uint(id)
				}
			}
			if r.IntN(10) == 0 {
				hints = append(hints, ns.AnyNUMAHint(r.IntN(2) == 0))
			} else {
				hints = append(hints, ns.NewHint(m, r.IntN(3) != 0))
			}
		}
		ph[name] = hints
	}
	return ph
}

// TestScopesAgree admits random pods through the kubelet's Topology Manager
// and numascope's with the same scripted providers, and compares the
// admission result, the stored affinity of every container and the order
// of the Allocate calls.
func TestScopesAgree(t *testing.T) {
	scopeCases(t, rand.New(rand.NewPCG(7, 9)), ns.DefaultFeatureGates())
}

// TestScopesAgreePodLevelResources repeats the comparison with the
// PodLevelResourceManagers gate on (beta, off by default in 1.37) and pods
// that set spec.resources, which take the pod-level admission paths.
func TestScopesAgreePodLevelResources(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.PodLevelResourceManagers, true)
	gates := ns.DefaultFeatureGates()
	gates.PodLevelResourceManagers = true
	scopeCases(t, rand.New(rand.NewPCG(17, 19)), gates)
}

func scopeCases(t *testing.T, r *rand.Rand, gates ns.FeatureGates) {
	cases := 3000
	if testing.Short() {
		cases = 1000
	}
	outcomes := map[string]int{}
	for i := 0; i < cases; i++ {
		n := 1 + r.IntN(4)
		var nodes []ns.NUMANode
		var ids []int
		for j := 0; j < n; j++ {
			nodes = append(nodes, ns.NUMANode{ID: j})
			ids = append(ids, j)
		}
		policy := []string{ns.PolicyNone, ns.PolicyBestEffort, ns.PolicyRestricted, ns.PolicySingleNumaNode}[r.IntN(4)]
		scope := []string{ns.ScopeContainer, ns.ScopePod}[r.IntN(2)]

		kpod := &v1.Pod{}
		kpod.Name, kpod.Namespace, kpod.UID = fmt.Sprintf("pod%d", i), "default", types.UID(fmt.Sprintf("uid-%d", i))
		npod := &ns.Pod{Name: kpod.Name, Namespace: kpod.Namespace, UID: string(kpod.UID)}
		if gates.PodLevelResourceManagers && r.IntN(2) == 0 {
			kpod.Spec.Resources = &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}}
			npod.Resources = &ns.Resources{Limits: map[string]string{"cpu": "4"}}
		}
		var names []string
		always := v1.ContainerRestartPolicyAlways
		for j := r.IntN(3); j > 0; j-- {
			c := v1.Container{Name: fmt.Sprintf("init%d", j)}
			nc := ns.Container{Name: c.Name}
			if r.IntN(2) == 0 {
				c.RestartPolicy = &always
				nc.RestartPolicy = "Always"
			}
			kpod.Spec.InitContainers = append(kpod.Spec.InitContainers, c)
			npod.InitContainers = append(npod.InitContainers, nc)
			names = append(names, c.Name)
		}
		for j := 1 + r.IntN(3); j > 0; j-- {
			c := v1.Container{Name: fmt.Sprintf("app%d", j), Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}
			kpod.Spec.Containers = append(kpod.Spec.Containers, c)
			npod.Containers = append(npod.Containers, ns.Container{Name: c.Name, Resources: ns.Resources{Requests: map[string]string{"cpu": "1"}}})
			names = append(names, c.Name)
		}
		km, kerr := tm.NewManager(discard, cadvisorNodes(nodes), policy, scope, nil)
		nm, nerr := ns.NewManager(nodes, policy, scope, nil, gates)
		require.NoError(t, kerr, "the kubelet's NewManager")
		require.NoError(t, nerr, "numascope's NewManager")
		var kcalls, ncalls []string
		for p := r.IntN(4); p > 0; p-- {
			s := &script{name: fmt.Sprintf("p%d", p), container: map[string]ns.ProviderHints{}, pod: randomHints(r, ids), failOn: map[string]error{}}
			for _, c := range names {
				s.container[c] = randomHints(r, ids)
				switch r.IntN(20) {
				case 0:
					s.failOn[c] = errors.New("not enough cpus available to satisfy request")
				case 1:
					s.failOn[c] = typedErr{}
				}
			}
			km.AddHintProvider(discard, kubeletProvider{s, &kcalls})
			nm.AddHintProvider(numascopeProvider{s, &ncalls})
		}
		kres := km.Admit(klog.NewContext(context.Background(), discard), &lifecycle.PodAdmitAttributes{Pod: kpod, Operation: lifecycle.AddOperation})
		nres := nm.Admit(npod)
		require.Equal(t, kres.Admit, nres.Admit, "case %d (%s/%s): admit, kubelet and numascope", i, policy, scope)
		require.Equal(t, kres.Reason, nres.Reason, "case %d (%s/%s): reason, kubelet and numascope", i, policy, scope)
		require.Equal(t, kres.Message, nres.Message, "case %d (%s/%s): message, kubelet and numascope", i, policy, scope)
		require.Equal(t, strings.Join(kcalls, ","), strings.Join(ncalls, ","), "case %d (%s/%s): Allocate calls, kubelet and numascope", i, policy, scope)
		for _, c := range names {
			kh := nsHint(km.GetAffinity(discard, string(kpod.UID), c))
			nh := nm.GetAffinity(npod.UID, c)
			require.True(t, kh.IsEqual(nh), "case %d (%s/%s): container %s affinity: kubelet %v, numascope %v", i, policy, scope, c, kh, nh)
		}
		key := fmt.Sprintf("%s/%v/%s", scope, kres.Admit, kres.Reason)
		if strings.HasPrefix(kres.Message, "Pod Scope") {
			key += "/pod-level"
		}
		outcomes[key]++
	}
	t.Logf("%d admissions agree: %v", cases, outcomes)
}

// TestNewManagerAgrees compares configuration validation: node limits,
// options, unknown policies and scopes.
func TestNewManagerAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	errs := 0
	for i := 0; i < 2000; i++ {
		var nodes []ns.NUMANode
		n := 1 + r.IntN(12)
		withDist := r.IntN(2) == 0
		for j := 0; j < n; j++ {
			node := ns.NUMANode{ID: j}
			if withDist {
				node.Distances = make([]uint64, n)
				for k := range node.Distances {
					node.Distances[k] = 20
				}
				node.Distances[j] = 10
			}
			nodes = append(nodes, node)
		}
		policy := []string{"none", "best-effort", "restricted", "single-numa-node", "bogus", ""}[r.IntN(6)]
		scope := []string{"container", "pod", "none", "bogus"}[r.IntN(4)]
		options := map[string]string{}
		if r.IntN(2) == 0 {
			options[ns.MaxAllowableNUMANodes] = []string{"8", "9", "12", "7", "0", "abc", "1e3"}[r.IntN(7)]
		}
		if r.IntN(2) == 0 {
			options[ns.PreferClosestNUMANodes] = []string{"true", "false", "maybe"}[r.IntN(3)]
		}
		if r.IntN(8) == 0 {
			options["frobnicate"] = "1"
		}
		_, kerr := tm.NewManager(discard, cadvisorNodes(nodes), policy, scope, options)
		_, nerr := ns.NewManager(nodes, policy, scope, options)
		require.Equal(t, kerr == nil, nerr == nil, "policy %q scope %q options %v nodes %d dist %v: accepted by the kubelet (%v) and by numascope (%v)", policy, scope, options, n, withDist, kerr, nerr)
		if kerr != nil {
			errs++
			// The kubelet checks options in random map order; compare when
			// only one option can fail.
			if len(options) <= 1 {
				require.True(t, strings.HasPrefix(nerr.Error(), strings.TrimSuffix(kerr.Error(), "\"")), "policy %q scope %q options %v: kubelet %q, numascope %q", policy, scope, options, kerr, nerr)
			}
		}
	}
	t.Logf("2000 configurations agree, %d rejected", errs)
}
