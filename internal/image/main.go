// Command image builds the numascope agent's container image without a
// container daemon: one layer holding the static agent binary as /agent
// on an empty base, run as a non-root user (the DaemonSet asks for user 0
// itself), written as an OCI image layout in a tar file, which podman,
// skopeo and crane read (oci-archive:FILE) and push to a registry.
//
//	go -C internal/image run . -agent dist/agent -arch amd64 -out numascope-agent.oci.tar
//
// The image is reproducible: the layer's file has fixed modes and owner
// and the time given (-time, else 2000-01-01), the config's created time
// is that time, and the tar of the layout is written in a fixed order with
// fixed headers, so one agent binary always gives the same bytes.
// internal/release runs it for each Linux target.
//
// It is a module of its own: go-containerregistry's dependencies stay out
// of the SDK's go.mod.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: 0 when the image is written, 1 when it could not be,
// 2 for wrong flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	agent := fs.String("agent", "", "the agent `BINARY` (built for linux and -arch, CGO_ENABLED=0)")
	out := fs.String("out", "", "write the OCI layout tar to `FILE` (must not exist)")
	fs.StringVar(&o.Arch, "arch", "amd64", "the image's `ARCH`: amd64, arm64, ppc64le or s390x")
	fs.StringVar(&o.Version, "version", "", "the `VERSION` in the image's labels")
	fs.StringVar(&o.Revision, "revision", "", "the `COMMIT` in the image's labels")
	when := fs.String("time", "", "the `RFC3339` time of the layer's file and the config (default 2000-01-01T00:00:00Z)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "image: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q: everything is given with flags (-h)", fs.Arg(0))
	case *agent == "":
		return usage("-agent BINARY is required: the agent built for linux/%s", o.Arch)
	case *out == "":
		return usage("-out FILE is required: where the OCI layout tar goes")
	}
	o.Time = epoch
	if *when != "" {
		t, err := time.Parse(time.RFC3339, *when)
		if err != nil {
			return usage("-time %q: give an RFC3339 time such as 2026-12-02T20:06:00Z", *when)
		}
		o.Time = t.UTC()
	}
	if !archs[o.Arch] {
		return usage("-arch %q: give amd64, arm64, ppc64le or s390x", o.Arch)
	}
	if ctx.Err() != nil {
		return 1
	}
	digest, err := Write(*agent, *out, o)
	if err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	fmt.Fprintf(stdout, "image: wrote %s (linux/%s, %s)\n", *out, o.Arch, digest)
	return 0
}
