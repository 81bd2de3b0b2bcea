package topomgr

import (
	"strings"
	"testing"
)

// BenchmarkParseMachineLarge reads 1-2 MiB inputs built to stress each
// reader: a line of colons (sysfs listing splitting), an unclosed %+v
// struct, 131072 lscpu -e rows and numactl lines, deep lstopo indentation.
func BenchmarkParseMachineLarge(b *testing.B) {
	for name, in := range map[string]string{
		"colons":      "/a/" + strings.Repeat(":", 1<<20),
		"struct":      "Machine: {" + strings.Repeat("A ", 1<<19),
		"lscpu-e":     "CPU NODE SOCKET CORE\n" + strings.Repeat("1 0 0 0\n", 1<<17),
		"numactl":     strings.Repeat("node 0 cpus: 1\n", 1<<17),
		"lstopo-deep": "NUMANode L#0 (P#0)\n" + strings.Repeat(" ", 1<<20) + "PU L#0\n",
	} {
		b.Run(name, func(b *testing.B) {
			var err error
			for b.Loop() {
				_, err = ParseMachine([]byte(in))
			}
			b.ReportMetric(float64(len(in)), "bytes")
			if err == nil {
				b.Log("read") // an input read as a machine is fine too: the figure is its time
			}
		})
	}
}
