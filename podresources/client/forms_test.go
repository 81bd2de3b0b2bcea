package client_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/internal/protoconv"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

var update = flag.Bool("update", false, "rewrite podresources/testdata/offline from the real marshallers")

// form is one way other tools save PodResources answers.
type form struct {
	marshal                    func(any) ([]byte, error)
	listName, allocName, getOf string
}

func protoJSON(opts protojson.MarshalOptions) func(any) ([]byte, error) {
	return func(m any) ([]byte, error) { return opts.Marshal(m.(proto.Message)) }
}

var forms = map[string]form{
	// protojson with its camelCase names and int64 as strings.
	"protojson": {protoJSON(protojson.MarshalOptions{Multiline: true, Indent: "  "}), "list.json", "allocatable.json", "get-shop-db.json"},
	// protojson with the .proto field names.
	"protonames": {protoJSON(protojson.MarshalOptions{Multiline: true, Indent: "  ", UseProtoNames: true}), "list.json", "allocatable.json", "get-shop-db.json"},
	// encoding/json of the generated Go types, as the resource-topology-exporter
	// saves them for its fake:// client: snake_case, and NUMA node 0 is {}.
	"rte": {func(m any) ([]byte, error) { return json.MarshalIndent(m, "", "  ") }, "list.json", "get_allocatable_resources.json", "get.json"},
	// numascope's own form.
	"numascope": {func(m any) ([]byte, error) { return json.MarshalIndent(m, "", "  ") }, "list.json", "", "get-shop-db.json"},
}

func writeForm(t *testing.T, dir, name string, f form, sample *podresources.Snapshot) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(file string, v any) {
		data, err := f.marshal(v)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), append(data, '\n'), 0o644))
	}
	if name == "numascope" {
		write(f.listName, sample)
		write(f.getOf, sample.Pods[1])
		return
	}
	list := &v1.ListPodResourcesResponse{}
	for i := range sample.Pods {
		list.PodResources = append(list.PodResources, protoconv.ToPod(&sample.Pods[i]))
	}
	write(f.listName, list)
	write(f.allocName, protoconv.ToAllocatable(sample.Allocatable))
	write(f.getOf, &v1.GetPodResourcesResponse{PodResources: protoconv.ToPod(&sample.Pods[1])})
}

// TestOfflineFormsMatchTheWire saves the sample the way other tools do, with
// the real marshallers, and checks that LoadDir reads every form back to what
// the client gets over the socket.
func TestOfflineFormsMatchTheWire(t *testing.T) {
	sample := podresourcestest.Sample()
	for name, f := range forms {
		t.Run(name, func(t *testing.T) {
			dirs := []string{filepath.Join("..", "testdata", "offline", name)}
			if *update {
				writeForm(t, dirs[0], name, f, sample)
			}
			fresh := t.TempDir()
			writeForm(t, fresh, name, f, sample)
			dirs = append(dirs, fresh)
			for _, dir := range dirs {
				got, err := podresources.LoadDir(dir)
				require.NoError(t, err)
				opts := []cmp.Option{equateEmpty}
				if name != "numascope" {
					opts = append(opts, noQOS)
				}
				assert.Empty(t, cmp.Diff(sample, got, opts...), "LoadDir(%s) (-want +got)", dir)
			}
			if name == "rte" {
				data, err := os.ReadFile(filepath.Join(fresh, "list.json"))
				require.NoError(t, err)
				assert.Contains(t, string(data), "{}", "encoding/json of the generated types no longer drops NUMA id 0; the {} case is untested")
			}
		})
	}
}

// TestDecodeMatchesConversion checks the JSON loaders against the wire
// conversion for a large generated answer.
func TestDecodeMatchesConversion(t *testing.T) {
	snap := podresourcestest.Generate(500)
	list := &v1.ListPodResourcesResponse{}
	for i := range snap.Pods {
		list.PodResources = append(list.PodResources, protoconv.ToPod(&snap.Pods[i]))
	}
	want, err := protoconv.Pods(list.PodResources)
	require.NoError(t, err)
	for name, f := range forms {
		if name == "numascope" {
			continue
		}
		data, err := f.marshal(list)
		require.NoError(t, err)
		got, err := podresources.Decode(data)
		require.NoError(t, err, "%s", name)
		assert.Empty(t, cmp.Diff(want, got.Pods, equateEmpty), "%s (-conversion +decode)", name)
	}
}
