package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/numascope/numascope/internal/input"
)

// Options are what the image says besides the binary.
type Options struct {
	Arch              string
	Version, Revision string
	Time              time.Time
}

// epoch is the time of an image built without -time.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// archs are the architectures an image is built for: the Linux ones the
// release builds.
var archs = map[string]bool{"amd64": true, "arm64": true, "ppc64le": true, "s390x": true}

const (
	// maxAgent bounds the binary read into the layer.
	maxAgent = 256 << 20
	// User is the image's user: distroless' nonroot, as the Dockerfile's
	// base has it. The DaemonSet and the short-lived pod ask for user 0.
	User = "65532:65532"
	// Entrypoint is the agent, the layer's only file.
	Entrypoint = "/agent"
)

// Image is the agent's image for o: an empty base, one layer with the
// binary at /agent, the entrypoint, the user and the labels.
func Image(agent []byte, o Options) (v1.Image, error) {
	var layerTar bytes.Buffer
	tw := tar.NewWriter(&layerTar)
	hdr := &tar.Header{Name: Entrypoint[1:], Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(agent)), ModTime: o.Time, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(agent); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := layerTar.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.Time}, CreatedBy: "numascope internal/image: the agent binary as " + Entrypoint}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", o.Arch, v1.Time{Time: o.Time}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":  "numascope-agent",
		"org.opencontainers.image.source": "https://github.com/numascope/numascope",
	}
	if o.Version != "" {
		cf.Config.Labels["org.opencontainers.image.version"] = o.Version
	}
	if o.Revision != "" {
		cf.Config.Labels["org.opencontainers.image.revision"] = o.Revision
	}
	return mutate.ConfigFile(img, cf)
}

// Write builds the image of the agent binary at agentPath and writes it to
// out as a tar of an OCI image layout; it returns the manifest's digest.
func Write(agentPath, out string, o Options) (string, error) {
	agent, err := input.ReadFile(agentPath, "the agent binary", maxAgent)
	if err != nil {
		return "", err
	}
	img, err := Image(agent, o)
	if err != nil {
		return "", fmt.Errorf("building the image: %w", err)
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "numascope-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", err
	}
	ann := map[string]string{"org.opencontainers.image.ref.name": "numascope-agent"}
	if o.Version != "" {
		ann["org.opencontainers.image.ref.name"] = o.Version
	}
	if err := p.AppendImage(img, layout.WithPlatform(v1.Platform{OS: "linux", Architecture: o.Arch}), layout.WithAnnotations(ann)); err != nil {
		return "", fmt.Errorf("writing the OCI layout: %w", err)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("-out %s: %w", out, err)
	}
	err = tarDir(f, dir, o.Time)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return "", fmt.Errorf("writing %s: %w", out, err)
	}
	return digest.String(), nil
}

// tarDir writes the files under dir to w in name order, with fixed modes,
// owner and time: the same layout gives the same bytes.
func tarDir(w io.Writer, dir string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	tw := tar.NewWriter(w)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: n, ModTime: mtime, Format: tar.FormatPAX}
		switch {
		case fi.IsDir():
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, n+"/", 0o755
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			continue
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%s in the layout is not a regular file", n)
		}
		hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, fi.Size()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(tw, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	return tw.Close()
}
