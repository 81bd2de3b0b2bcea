package examples_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is one untrusted input given to one example the way a user would,
// and what numascope must do with it: end with a non-zero exit code and a
// message that names the input, within the memory bound.
type hostile struct {
	name    string
	example string
	// args may use {{dir}} (the test's temporary directory, with the files
	// made by hostileFiles) and {{fifo}}.
	args []string
	// want is a substring of stdout+stderr: the input named, or what is wrong.
	want []string
}

// maxRSS is the memory bound every hostile input must stay under.
const maxRSS = 512 << 20

// hangGuard ends a run that hangs. It is an upper bound that keeps CI from
// stalling, far above the time each run takes, not a measurement: the
// closing notes of the bounded-inputs work give the times.
const hangGuard = 90 * time.Second

var hostiles = []hostile{
	{name: "cpu state with 64 ranges of 2^20 CPUs", example: "inspect", args: []string{"{{dir}}/wide-cpu-state"}, want: []string{"wide-cpu-state", "defaultCpuSet"}},
	{name: "cpu state with a range to the largest int", example: "inspect", args: []string{"{{dir}}/maxint-cpu-state"}, want: []string{"maxint-cpu-state"}},
	{name: "state file that is a FIFO", example: "inspect", args: []string{"{{fifo}}"}, want: []string{"FIFO"}},
	{name: "state file that is /dev/zero", example: "inspect", args: []string{"/dev/zero"}, want: []string{"/dev/zero"}},
	{name: "diagnose: wide cpu state", example: "diagnose", args: []string{"--state", "{{dir}}/wide-cpu-state"}, want: []string{"wide-cpu-state"}},
	{name: "diagnose: reservedSystemCPUs 0-400000000", example: "diagnose", args: []string{"--kubelet-config", "{{dir}}/reserved-config.yaml", "--state", "{{dir}}/good-cpu-state", "--pod", "{{dir}}/pod.yaml", "--topology", "{{dir}}/machine-info.json"}, want: []string{"reservedSystemCPUs"}},
	{name: "diagnose: machine-info thread id 2^63-1", example: "diagnose", args: []string{"--topology", "{{dir}}/maxint-machine-info.json"}, want: []string{"maxint-machine-info.json"}},
	{name: "diagnose: --log /dev/zero", example: "diagnose", args: []string{"--log", "/dev/zero"}, want: []string{"--log", "/dev/zero"}},
	{name: "diagnose: --log /dev/urandom", example: "diagnose", args: []string{"--log", "/dev/urandom"}, want: []string{"/dev/urandom"}},
	{name: "diagnose: --log FIFO", example: "diagnose", args: []string{"--log", "{{fifo}}"}, want: []string{"FIFO"}},
	{name: "diagnose: 20 MB JSON array as --pod", example: "diagnose", args: []string{"--pod", "{{dir}}/array.json"}, want: []string{"array.json"}},
	{name: "diagnose: 20 MB JSON array as --events", example: "diagnose", args: []string{"--events", "{{dir}}/array.json"}, want: []string{"array.json"}},
	{name: "diagnose: --dir with a FIFO", example: "diagnose", args: []string{"--dir", "{{dir}}/with-fifo"}, want: []string{"FIFO"}},
	{name: "admit: --reserved-cpus 0-400000000", example: "admit", args: []string{"--pod", "{{dir}}/pod.yaml", "--state-dir", "{{dir}}/node", "--topology", "{{dir}}/machine-info.json", "--policy", "single-numa-node", "--reserved-cpus", "0-400000000"}, want: []string{"0-400000000"}},
	{name: "admit: --hints /dev/zero", example: "admit", args: []string{"--hints", "/dev/zero"}, want: []string{"/dev/zero"}},
	{name: "admit: --pod FIFO", example: "admit", args: []string{"--pod", "{{fifo}}", "--state-dir", "{{dir}}/node", "--topology", "{{dir}}/machine-info.json", "--policy", "single-numa-node"}, want: []string{"FIFO"}},
	{name: "podresources: --from /dev/zero", example: "podresources", args: []string{"--from", "/dev/zero"}, want: []string{"/dev/zero"}},
	{name: "podresources: --qos FIFO", example: "podresources", args: []string{"--from", "podresources/testdata/offline/numascope", "--qos", "{{fifo}}"}, want: []string{"FIFO"}},
	{name: "agent: state dir with a wide cpu state", example: "agent", args: []string{"--once", "--state-dir", "{{dir}}/node-wide", "--sysfs", "none", "--socket", "none"}, want: []string{"cpu_manager_state"}},
	{name: "cpu state with one 64 KiB pod key over 4,000 containers", example: "inspect", args: []string{"{{dir}}/longkey-cpu-state"}, want: []string{"longkey-cpu-state", "bytes)"}},
	{name: "diagnose: cpu state with one 64 KiB pod key", example: "diagnose", args: []string{"--state", "{{dir}}/longkey-cpu-state"}, want: []string{"longkey-cpu-state"}},
	{name: "diagnose: cut cpu state with one 200 KiB pod key over 80,000 containers", example: "diagnose", args: []string{"--state", "{{dir}}/repair-cpu-state"}, want: []string{"repair-cpu-state", "trailing comma"}},
	{name: "agent: state dir with one 64 KiB pod key", example: "agent", args: []string{"--once", "--state-dir", "{{dir}}/node-longkey", "--sysfs", "none", "--socket", "none"}, want: []string{"cpu_manager_state"}},
	{name: "agent: state dir whose cpu state is a FIFO", example: "agent", args: []string{"--once", "--state-dir", "{{dir}}/node-fifo", "--sysfs", "none", "--socket", "none"}, want: []string{"FIFO"}},
}

// hostileFiles writes the inputs the table names into dir.
func hostileFiles(t *testing.T, dir string) (fifo string) {
	t.Helper()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
	ranges := make([]string, 64)
	for i := range ranges {
		ranges[i] = fmt.Sprintf("%d-%d", i<<20, (i+1)<<20-1)
	}
	wide := withKubeletChecksum(t, fmt.Sprintf(`{"policyName":"static","defaultCpuSet":%q,"entries":{},"checksum":1}`, strings.Join(ranges, ",")))
	write("wide-cpu-state", wide)
	write("node-wide/cpu_manager_state", wide)
	write("maxint-cpu-state", withKubeletChecksum(t, `{"policyName":"static","defaultCpuSet":"0-9223372036854775807","entries":{},"checksum":1}`))
	write("good-cpu-state", `{"policyName":"static","defaultCpuSet":"0-3","entries":{},"checksum":1}`)
	write("node/cpu_manager_state", `{"policyName":"static","defaultCpuSet":"0-3","entries":{},"checksum":1}`)
	write("reserved-config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\ntopologyManagerPolicy: single-numa-node\nreservedSystemCPUs: \"0-400000000\"\n")
	write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n  - name: c\n    resources:\n      limits: {cpu: \"2\", memory: 1Gi}\n")
	machine := func(thread string) string {
		return `{"num_cores":4,"num_sockets":1,"topology":[{"node_id":0,"memory":1073741824,"distances":[10],"cores":[{"core_id":0,"socket_id":0,"thread_ids":[0,1]},{"core_id":1,"socket_id":0,"thread_ids":[2,` + thread + `]}]}]}`
	}
	write("machine-info.json", machine("3"))
	write("maxint-machine-info.json", machine("9223372036854775807"))
	// One pod key of 64 KiB holding 4,000 containers: every problem about
	// it once copied the whole key (2.7 GiB for inspect).
	var long strings.Builder
	fmt.Fprintf(&long, `{"policyName":"static","defaultCpuSet":"0-3","entries":{%q:{`, strings.Repeat("p", 64<<10))
	for i := range 4000 {
		if i > 0 {
			long.WriteString(",")
		}
		fmt.Fprintf(&long, `"c%d":"4"`, i)
	}
	long.WriteString(`}},"checksum":1}`)
	write("longkey-cpu-state", long.String())
	write("node-longkey/cpu_manager_state", long.String())
	// The same shape, larger and with a trailing comma, so the reader
	// repairs it: the repair and every reference to a container once
	// copied the pod key per container (17 s for 1.2 MB).
	long.Reset()
	fmt.Fprintf(&long, `{"policyName":"static","defaultCpuSet":"0-3","entries":{%q:{`, strings.Repeat("p", 200<<10))
	for i := range 80000 {
		fmt.Fprintf(&long, `"c%d":"4",`, i)
	}
	long.WriteString(`}},"checksum":1}`)
	write("repair-cpu-state", long.String())
	var arr strings.Builder
	arr.WriteString("[")
	for arr.Len() < 20<<20 {
		arr.WriteString("{},")
	}
	arr.WriteString("{}]")
	write("array.json", arr.String())

	fifo = filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "with-fifo"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "with-fifo", "kubelet.log"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node-fifo"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "node-fifo", "cpu_manager_state"), 0o600))
	return fifo
}

// TestHostileInputs gives each example the untrusted inputs that used to
// hang numascope or exhaust its memory, and demands a clear refusal: a
// non-zero exit code, a message naming the input, and a peak RSS under
// 512 MiB.
func TestHostileInputs(t *testing.T) {
	bin := binaries(t)
	dir := t.TempDir()
	if keep := os.Getenv("NUMASCOPE_HOSTILE_DIR"); keep != "" {
		dir = keep // keep the inputs, to measure them outside the test
	}
	fifo := hostileFiles(t, dir)
	for _, h := range hostiles {
		t.Run(h.name, func(t *testing.T) {
			args := make([]string, len(h.args))
			for i, a := range h.args {
				a = strings.ReplaceAll(a, "{{dir}}", dir)
				args[i] = strings.ReplaceAll(a, "{{fifo}}", fifo)
			}
			guard := hangGuard
			if v, err := time.ParseDuration(os.Getenv("NUMASCOPE_HANG_GUARD")); err == nil {
				guard = v // shorter, to measure a tree where inputs still hang
			}
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, h.example), args...)
			cmd.Dir = root
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			shown := fmt.Sprintf("go run ./examples/%s %s", h.example, strings.Join(args, " "))
			require.NoError(t, ctx.Err(), "%s did not end within %s: it hangs on this input (peak RSS %s)", shown, guard, peak(cmd))
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "%s: exit 0 on a hostile input (%v); output:\n%.2000s", shown, err, out.String())
			assert.NotZero(t, exit.ExitCode(), shown)
			for _, w := range h.want {
				assert.Contains(t, out.String(), w, "%s: the message does not name %q", shown, w)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok { // Maxrss is in KiB on Linux
				assert.Less(t, ru.Maxrss*1024, int64(maxRSS), "%s: peak RSS %d MiB", shown, ru.Maxrss/1024)
				t.Logf("%s: exit %d, %s, peak RSS %d MiB", shown, exit.ExitCode(), took.Round(10*time.Millisecond), ru.Maxrss/1024)
			}
		})
	}
}

// peak returns a finished command's peak RSS for a message.
func peak(cmd *exec.Cmd) string {
	if cmd.ProcessState == nil {
		return "unknown"
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return fmt.Sprintf("%d MiB", ru.Maxrss/1024)
	}
	return "unknown"
}

// withKubeletChecksum replaces the "checksum":1 of a cpu v2 state with the
// checksum the kubelet computes for it, so that the kubelet (and numascope)
// go on to read the CPU sets instead of stopping at a bad checksum.
func withKubeletChecksum(t *testing.T, state string) string {
	t.Helper()
	v, err := statefile.Verify([]byte(state), statefile.Options{})
	require.NoError(t, err)
	for _, l := range v.Checksum.Layouts {
		if l.Name == "v2" {
			return strings.Replace(state, `"checksum":1}`, fmt.Sprintf(`"checksum":%d}`, l.Computed), 1)
		}
	}
	require.FailNow(t, "no v2 checksum layout", "state: %.100s", state)
	return ""
}
