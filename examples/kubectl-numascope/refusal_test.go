package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

func TestHostPathRefusal(t *testing.T) {
	const kubelet = `MountVolume.SetUp failed for volume "state-dra" : hostPath type check failed, /var/lib/kubelet/dra_manager_state is not a file, unable to determine its type: stat /var/lib/kubelet/dra_manager_state: no such file or directory`
	for _, tc := range []struct {
		name, msg      string
		volume, detail string
		ok             bool
	}{
		{"the kubelet's words for a missing file", kubelet, "state-dra",
			"hostPath type check failed, /var/lib/kubelet/dra_manager_state is not a file, unable to determine its type: stat /var/lib/kubelet/dra_manager_state: no such file or directory", true},
		{"a file that is a directory", `MountVolume.SetUp failed for volume "state-cpu" : hostPath type check failed: /var/lib/kubelet/cpu_manager_state is not a file, it's a Directory`,
			"state-cpu", "hostPath type check failed: /var/lib/kubelet/cpu_manager_state is not a file, it's a Directory", true},
		{"another mount failure", `MountVolume.SetUp failed for volume "state-cpu" : mount failed: exit status 32`, "", "", false},
		{"no volume", `hostPath type check failed`, "", "", false},
		{"an empty name", `for volume "" : hostPath type check failed`, "", "", false},
		{"no closing quote", `for volume "state-cpu : hostPath type check failed`, "", "", false},
		{"words cut to the bound", `for volume "v" : hostPath type check failed ` + strings.Repeat("é", 1000), "v",
			"hostPath type check failed " + strings.Repeat("é", (maxRefusal-len("hostPath type check failed "))/2) + "...", true},
	} {
		v, d, ok := hostPathRefusal(tc.msg)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.volume, v, tc.name)
		assert.Equal(t, tc.detail, d, tc.name)
	}
}

// FuzzHostPathRefusal: any event message (an event is anyone's to write
// who may create events in the namespace) is read without a panic, within
// the budget, to a bounded, valid quote.
func FuzzHostPathRefusal(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzHostPathRefusal.
	f.Fuzz(func(t *testing.T, msg string) {
		fuzzbudget.Run(t, func() {
			v, d, ok := hostPathRefusal(msg)
			if !ok {
				return
			}
			assert.NotEmpty(t, v)
			assert.NotContains(t, v, `"`)
			assert.LessOrEqual(t, len(d), maxRefusal+len("..."))
			if utf8.ValidString(msg) {
				assert.True(t, utf8.ValidString(d), "%q", d)
			}
		})
	})
}
