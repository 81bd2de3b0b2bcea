package statefile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseVerdicts checks numascope's verdict under Options.KubeletVersion
// on every golden file against the verdict each older release's own restore
// code gave (testdata/kubelet/verdicts-<release>.json, written by the modules
// in internal/conformance/legacy), for that release and for the releases
// whose restore code is the same.
func TestReleaseVerdicts(t *testing.T) {
	lists, err := filepath.Glob(filepath.Join("testdata", "kubelet", "verdicts-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, lists, "no verdicts-<release>.json in testdata/kubelet")
	// the releases each proven release stands for: their restore code,
	// checksum layouts and error texts are the same (see release.go)
	sameAs := map[string][]string{
		"v1.28.0": {"1.28", "v1.29.9"},
		"v1.30.0": {"1.30"},
		"v1.31.0": {"1.31", "1.32", "v1.33.1"},
		"v1.34.0": {"1.34", "v1.35.2"},
		"v1.36.0": {"1.36"},
	}
	names := map[Kind]string{KindCPU: "/var/lib/kubelet/cpu_manager_state", KindMemory: "/var/lib/kubelet/memory_manager_state",
		KindDevice: "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint", KindDRA: "/var/lib/kubelet/dra_manager_state"}
	for _, list := range lists {
		raw, err := os.ReadFile(list)
		require.NoError(t, err)
		var m struct {
			Kubelet string `json:"kubelet"`
			Cases   []struct {
				File           string `json:"file"`
				Kind           Kind   `json:"kind"`
				Policy         string `json:"policy"`
				KubeletAccepts bool   `json:"kubeletAccepts"`
				OnReject       string `json:"onReject"`
				KubeletError   string `json:"kubeletError"`
			} `json:"cases"`
		}
		require.NoError(t, json.Unmarshal(raw, &m), list)
		versions, ok := sameAs[m.Kubelet]
		require.True(t, ok, "%s: no release list for kubelet %s", list, m.Kubelet)
		require.NotEmpty(t, m.Cases, list)
		for _, version := range append([]string{m.Kubelet}, versions...) {
			for _, c := range m.Cases {
				t.Run(version+"/"+c.File, func(t *testing.T) {
					data, err := os.ReadFile(filepath.Join("testdata", "kubelet", filepath.FromSlash(c.File)))
					require.NoError(t, err)
					f, err := Decode(data, Options{Name: names[c.Kind], Policy: c.Policy, Kind: c.Kind, KubeletVersion: version})
					if err != nil {
						assert.False(t, c.KubeletAccepts, "kubelet %s accepts, numascope cannot decode: %v", m.Kubelet, err)
						return
					}
					assert.Equal(t, c.KubeletAccepts, f.KubeletAccepts, "KubeletAccepts (kubelet %s: %q, numascope: %q)", m.Kubelet, c.KubeletError, f.Reason)
					assert.Equal(t, c.OnReject, f.OnReject, "OnReject")
					assert.Equal(t, c.KubeletError, f.Reason, "reason: kubelet %s's, numascope's", m.Kubelet)
				})
			}
		}
	}
}

func TestParseKubeletVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want kubeletRelease
		err  string
	}{
		{in: "", want: 37},
		{in: "1.30", want: 30},
		{in: "v1.30", want: 30},
		{in: "v1.30.4", want: 30},
		{in: " 1.28.0 ", want: 28},
		{in: "v1.33.5-gke.1308000", want: 33},
		{in: "v1.31.2+k3s1", want: 31},
		{in: "Kubernetes v1.37.2", want: 37},
		{in: "1.27", err: `kubelet version "1.27" is outside the supported range; numascope knows the restore code of kubelet 1.28 to 1.37`},
		{in: "v1.38.0", err: `kubelet version "v1.38.0" is outside the supported range`},
		{in: "2.30", err: `kubelet version "2.30" is outside the supported range`},
		{in: "1.99999999999999999999", err: `is outside the supported range`},
		{in: "latest", err: `kubelet version "latest" is not a version; numascope knows the restore code of kubelet 1.28 to 1.37: give the node's kubelet version as X.Y`},
		{in: "1", err: `kubelet version "1" is not a version`},
		{in: "1.30.x", err: `kubelet version "1.30.x" is not a version`},
		{in: strings.Repeat("1", 100), err: `is not a version`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseKubeletVersion(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDecodeKubeletVersion shows the verdicts that differ between releases
// on files the kubelet's own code wrote, and that Decode names a bad version.
func TestDecodeKubeletVersion(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "kubelet", name))
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name, file, version string
		policy              string
		kind                Kind
		accepts             bool
		checksumValid       bool
		onReject            string
		reason              string
		problem             string
	}{
		{name: "dra spew file of a 1.30 kubelet, read by 1.30", file: "dra/legacy-v1.30.0-dra-spew-handles-0.json", kind: KindDRA, version: "1.30", accepts: true, checksumValid: true,
			problem: "kubelet 1.30 accepts this file; kubelet 1.37 would refuse it"},
		{name: "same file, newest kubelet", file: "dra/legacy-v1.30.0-dra-spew-handles-0.json", kind: KindDRA, version: "", onReject: RefusesToStart,
			reason: "create ResourceClaim cache: GetOrCreate() on checkpoint state: failed to get checkpoint dra_manager_state: checkpoint is corrupted"},
		{name: "same file, 1.29 hashes handles without structuredData", file: "dra/legacy-v1.30.0-dra-spew-handles-0.json", kind: KindDRA, version: "v1.29.3", onReject: RefusesToStart,
			reason: "failed to create claimInfo cache: error calling GetOrCreate() on checkpoint state: failed to get checkpoint dra_manager_state: checkpoint is corrupted"},
		{name: "device v1 file, read by 1.30", file: "device/legacy-v1.30.0-device-v1-0.json", kind: KindDevice, version: "1.30", accepts: true, checksumValid: true},
		{name: "device v1 file, read by 1.31", file: "device/legacy-v1.30.0-device-v1-0.json", kind: KindDevice, version: "1.31", onReject: DiscardsData,
			reason: "json: cannot unmarshal array into Go struct field PodDevicesEntry.Data.PodDeviceEntries.DeviceIDs of type checkpoint.DevicesPerNUMA"},
		{name: "cpu v4 file, read by 1.35 (the outer v2 copy)", file: "cpu/v4-static.json", kind: KindCPU, version: "1.35", accepts: true, checksumValid: true},
		{name: "cpu v3 file, read by 1.35", file: "cpu/v3-static.json", kind: KindCPU, version: "1.35", onReject: RefusesToStart,
			reason:  `could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file "cpu_manager_state" before restarting Kubelet`,
			problem: "kubelet 1.35 refuses to start with this file"},
		// A v4 file with only data and dataChecksum: releases before the v4
		// reader read no policy name and a zero checksum (skipped), and
		// compare the empty policy with the configured one, which is never
		// empty: the kubelet refuses to start under either policy.
		{name: "cpu v4 data-only file, read by 1.35, policy not given", checksumValid: true, file: "../release/cpu-v4-data-only-none.json", kind: KindCPU, version: "1.35", onReject: RefusesToStart,
			reason:  `could not restore state from checkpoint: configured policy "none" differs from state checkpoint policy "", please drain this node and delete the CPU manager checkpoint file "cpu_manager_state" before restarting Kubelet`,
			problem: `the verdict assumes the kubelet's default, "none" (with "static" the kubelet refuses the file the same way)`},
		{name: "cpu v4 data-only file, read by 1.28 under static", checksumValid: true, file: "../release/cpu-v4-data-only-static.json", kind: KindCPU, version: "1.28", policy: "static", onReject: RefusesToStart,
			reason: `could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "", please drain this node and delete the CPU manager checkpoint file "cpu_manager_state" before restarting Kubelet`},
		{name: "cpu v4 data-only file, read by 1.36 (v2 reader, then v1)", checksumValid: true, file: "../release/cpu-v4-data-only-static.json", kind: KindCPU, version: "1.36", onReject: RefusesToStart,
			reason: `could not restore state from checkpoint: configured policy "none" differs from state checkpoint policy "", please drain this node and delete the CPU manager checkpoint file "cpu_manager_state" before restarting Kubelet`},
		{name: "memory v3 data-only file, read by 1.36 (a zero checksum skipped)", file: "../release/memory-v3-data-only.json", kind: KindMemory, version: "1.36", checksumValid: true, onReject: RefusesToStart,
			reason:  `could not restore state from checkpoint: [memorymanager] configured policy "None" differs from state checkpoint policy "", please drain this node and delete the memory manager checkpoint file "memory_manager_state" before restarting Kubelet`,
			problem: `the verdict assumes the kubelet's default, "None" (with "Static" the kubelet refuses the file the same way)`},
		{name: "memory v3 data-only file, read by 1.35 (the zero checksum verified)", file: "../release/memory-v3-data-only.json", kind: KindMemory, version: "1.35", onReject: RefusesToStart,
			reason: `could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the memory manager checkpoint file "memory_manager_state" before restarting Kubelet`},
		{name: "cpu v4 data-only file, newest kubelet reads v4", file: "../release/cpu-v4-data-only-static.json", kind: KindCPU, version: "", accepts: true, checksumValid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := map[Kind]string{KindCPU: "cpu_manager_state", KindMemory: "memory_manager_state", KindDRA: "dra_manager_state", KindDevice: "kubelet_internal_checkpoint"}[tc.kind]
			f, err := Decode(read(tc.file), Options{Name: name, Kind: tc.kind, KubeletVersion: tc.version, Policy: tc.policy})
			require.NoError(t, err)
			assert.Equal(t, tc.accepts, f.KubeletAccepts, "KubeletAccepts (reason %q)", f.Reason)
			assert.Equal(t, tc.onReject, f.OnReject)
			assert.Equal(t, tc.reason, f.Reason)
			assert.Equal(t, tc.checksumValid, f.Checksum.Valid, "Checksum.Valid")
			v, err := Verify(read(tc.file), Options{Name: name, Kind: tc.kind, KubeletVersion: tc.version, Policy: tc.policy})
			require.NoError(t, err)
			assert.Equal(t, Verdict{Kind: f.Kind, Format: f.Format, Checksum: f.Checksum, KubeletAccepts: f.KubeletAccepts, OnReject: f.OnReject, Reason: f.Reason}, *v, "Verify is Decode's verdict")
			if tc.problem != "" {
				var msgs []string
				for _, p := range f.Problems {
					msgs = append(msgs, p.Message)
				}
				assert.Contains(t, strings.Join(msgs, "\n"), tc.problem)
			}
			if tc.accepts {
				for _, p := range f.Problems {
					assert.NotEqual(t, SeverityError, p.Severity, "an accepted file keeps an error: %s", p.Message)
				}
			}
		})
	}
	_, err := Decode(read("cpu/v2-static.json"), Options{Name: "cpu_manager_state", KubeletVersion: "1.27"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cpu_manager_state: kubelet version "1.27" is outside the supported range`)
}

// FuzzDecodeKubeletVersion checks that Decode under every known release
// never fails where it succeeds for the newest, and that each verdict is
// self-consistent.
func FuzzDecodeKubeletVersion(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.RunWith(t, decodes(2+newestKubeletMinor-oldestKubeletMinor), func() {
			newest, err := Decode(data, Options{Name: "fuzz"})
			if err != nil {
				return
			}
			for minor := oldestKubeletMinor; minor <= newestKubeletMinor; minor++ {
				file, err := Decode(data, Options{Name: "fuzz", KubeletVersion: "1." + strconv.Itoa(minor)})
				require.NoError(t, err, "kubelet 1.%d", minor)
				require.Equal(t, newest.Kind, file.Kind)
				if file.KubeletAccepts {
					require.Empty(t, file.OnReject, "1.%d: an accepted file has no OnReject", minor)
					require.Empty(t, file.Reason, "1.%d: an accepted file has no Reason", minor)
				} else {
					require.Contains(t, []string{RefusesToStart, DiscardsData}, file.OnReject, "1.%d", minor)
					require.NotEmpty(t, file.Reason, "1.%d: a rejected file has the kubelet's reason", minor)
				}
				if minor == newestKubeletMinor {
					require.Equal(t, newest.KubeletAccepts, file.KubeletAccepts)
					require.Equal(t, newest.Reason, file.Reason)
				}
			}
		})
	})
}
