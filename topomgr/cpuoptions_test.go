package topomgr

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/statefile"
)

func TestNewCPUPolicyOptions(t *testing.T) {
	alpha := DefaultFeatureGates()
	alpha.CPUManagerPolicyAlphaOptions = true
	noBeta := DefaultFeatureGates()
	noBeta.CPUManagerPolicyBetaOptions = false
	for _, tc := range []struct {
		name    string
		options map[string]string
		gates   FeatureGates
		want    cpuPolicyOptions
		err     string
	}{
		{name: "none", gates: DefaultFeatureGates()},
		{name: "GA options", options: map[string]string{cpuFullPCPUsOnly: "true", cpuStrictReservation: "1", cpuPreferAlignByUncoreCache: "false"}, gates: DefaultFeatureGates(),
			want: cpuPolicyOptions{FullPhysicalCPUsOnly: true, StrictCPUReservation: true}},
		{name: "beta on by default", options: map[string]string{cpuDistributeAcrossNUMA: "true"}, gates: DefaultFeatureGates(), want: cpuPolicyOptions{DistributeCPUsAcrossNUMA: true}},
		{name: "beta gate off", options: map[string]string{cpuDistributeAcrossNUMA: "true"}, gates: noBeta, err: `CPU Manager Policy Beta-level Options not enabled, but option "distribute-cpus-across-numa" provided`},
		{name: "alpha gate off", options: map[string]string{cpuAlignBySocket: "true"}, gates: DefaultFeatureGates(), err: `CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided`},
		{name: "alpha gate on", options: map[string]string{cpuAlignBySocket: "true", cpuDistributeAcrossCores: "false"}, gates: alpha, want: cpuPolicyOptions{AlignBySocket: true}},
		{name: "unknown", options: map[string]string{"full-pcpu-only": "true"}, gates: alpha, err: `unknown CPU Manager Policy option: "full-pcpu-only"`},
		{name: "bad value", options: map[string]string{cpuFullPCPUsOnly: "yes"}, gates: alpha, err: `bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax`},
		{name: "conflict", options: map[string]string{cpuFullPCPUsOnly: "true", cpuDistributeAcrossCores: "true"}, gates: alpha, err: "static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time"},
		{name: "conflict uncore numa", options: map[string]string{cpuPreferAlignByUncoreCache: "true", cpuDistributeAcrossNUMA: "true"}, gates: alpha, err: "static policy options prefer-align-cpus-by-uncorecache and distribute-cpus-across-numa can not be used at the same time"},
	} {
		got, err := newCPUPolicyOptions(tc.options, tc.gates)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Empty(t, cmp.Diff(tc.want, got), tc.name)
	}
}

// twoSocketSMT: 2 sockets, 2 NUMA nodes each, 2 cores of 2 threads per
// NUMA node (CPU n and n+8 are siblings).
func twoSocketSMT() *Machine {
	m := &Machine{Format: "test"}
	for n := 0; n < 4; n++ {
		m.Nodes = append(m.Nodes, NUMANode{ID: n})
	}
	for k := 0; k < 8; k++ {
		numa := k / 2
		m.CPUs = append(m.CPUs, CPU{ID: k, Core: k, Socket: numa / 2, NUMA: numa})
	}
	for k := 0; k < 8; k++ {
		numa := k / 2
		m.CPUs = append(m.CPUs, CPU{ID: k + 8, Core: k, Socket: numa / 2, NUMA: numa})
	}
	return m
}

func TestCPUProviderOptions(t *testing.T) {
	m := twoSocketSMT()
	all := m.AllCPUs()
	alpha := DefaultFeatureGates()
	alpha.CPUManagerPolicyAlphaOptions = true
	st := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: all}

	// align-by-socket: 3 CPUs fit on one NUMA node; a mask within one
	// socket ({0,1}, {2,3}) is preferred too, one across sockets is not.
	p, err := newStaticCPUProvider(m, st, cpuset.New(), alpha, map[string]string{cpuAlignBySocket: "true"}, PolicyRestricted)
	require.NoError(t, err)
	preferred := map[string]bool{}
	for _, h := range p.generate(p.available(), cpuset.New(), 3) {
		preferred[h.NUMANodeAffinity.List()] = h.Preferred
	}
	assert.Empty(t, cmp.Diff(map[string]bool{"0": true, "1": true, "2": true, "3": true, "0,1": true, "2,3": true, "0,2": false, "1,2": false, "0,3": false, "1,3": false,
		"0,1,2": false, "0,1,3": false, "0,2,3": false, "1,2,3": false, "0,1,2,3": false}, preferred), "align-by-socket hints")
	p, err = newStaticCPUProvider(m, st, cpuset.New(), alpha, nil, PolicyRestricted)
	require.NoError(t, err)
	for _, h := range p.generate(p.available(), cpuset.New(), 3) {
		assert.Equal(t, h.NUMANodeAffinity.Count() == 1, h.Preferred, "without align-by-socket: %v", h)
	}

	// Refusals at start.
	_, err = newStaticCPUProvider(m, st, cpuset.New(), alpha, map[string]string{cpuAlignBySocket: "true"}, PolicySingleNumaNode)
	assert.ErrorContains(t, err, "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket policy option")
	_, err = newStaticCPUProvider(m, &statefile.CPUState{PolicyName: "static", DefaultCPUSet: all}, cpuset.New(0), alpha, map[string]string{cpuStrictReservation: "true"}, PolicyRestricted)
	assert.ErrorContains(t, err, `some of strictly reserved cpus: "0" are present in defaultCpuSet: "0-15"`)
	_, err = newStaticCPUProvider(m, &statefile.CPUState{PolicyName: "static", DefaultCPUSet: all.Difference(cpuset.New(0))}, cpuset.New(0), alpha, nil, PolicyRestricted)
	assert.ErrorContains(t, err, `not all reserved cpus: "0" are present in defaultCpuSet: "1-15"`)

	// strict-cpu-reservation on a fresh state leaves the reserved CPUs out.
	p, err = newStaticCPUProvider(m, &statefile.CPUState{PolicyName: "static"}, cpuset.New(0, 8), alpha, map[string]string{cpuStrictReservation: "true"}, PolicyRestricted)
	require.NoError(t, err)
	assert.Equal(t, "1-7,9-15", p.def.String(), "fresh strict state")

	// full-pcpus-only: reserved CPU 0 takes its sibling 8 out of the
	// physical count.
	p, err = newStaticCPUProvider(m, st, cpuset.New(0), alpha, map[string]string{cpuFullPCPUsOnly: "true"}, PolicyRestricted)
	require.NoError(t, err)
	assert.EqualError(t, p.enforceSMTAlignment(3), "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2")
	assert.EqualError(t, p.enforceSMTAlignment(16), "SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 14, requested CPUs = 16, CPUs per core = 2")
	assert.NoError(t, p.enforceSMTAlignment(14))
	assert.Equal(t, errorSMTAlignment, smtAlignmentError{}.Type())
}
