package conformance

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// testPlugin is a minimal device plugin: it serves the device plugin API on
// a unix socket, registers with the kubelet's registration socket, sends
// its device list once over ListAndWatch and answers Allocate with one
// environment variable naming the devices. Its GetPreferredAllocation
// prefers the devices that must be included, then the others by ID, which
// makes the kubelet's choice within a group deterministic (the kubelet
// otherwise takes a set's first members in map order).
type testPlugin struct {
	pluginapi.UnimplementedDevicePluginServer
	resource string
	devices  []*pluginapi.Device
	socket   string
	srv      *grpc.Server
	stop     chan struct{}
	served   chan error
}

// startTestPlugin listens on dir/name and serves the device plugin API.
func startTestPlugin(dir, name, resource string, devices []*pluginapi.Device) (*testPlugin, error) {
	p := &testPlugin{resource: resource, devices: devices, socket: filepath.Join(dir, name), stop: make(chan struct{}), served: make(chan error, 1)}
	ln, err := net.Listen("unix", p.socket)
	if err != nil {
		return nil, fmt.Errorf("device plugin %s: %w", resource, err)
	}
	p.srv = grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(p.srv, p)
	go func() { p.served <- p.srv.Serve(ln) }()
	return p, nil
}

// register calls the kubelet's Register RPC on its registration socket.
func (p *testPlugin) register(ctx context.Context, kubeletSocket string) error {
	conn, err := grpc.NewClient("unix://"+kubeletSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = pluginapi.NewRegistrationClient(conn).Register(ctx, &pluginapi.RegisterRequest{
		Version:      pluginapi.Version,
		Endpoint:     filepath.Base(p.socket),
		ResourceName: p.resource,
		Options:      &pluginapi.DevicePluginOptions{GetPreferredAllocationAvailable: true},
	})
	if err != nil {
		return fmt.Errorf("register %s: %w", p.resource, err)
	}
	return nil
}

// close stops the plugin; Serve's error, if any, is returned.
func (p *testPlugin) close() error {
	close(p.stop)
	p.srv.Stop()
	if err := <-p.served; err != nil {
		return fmt.Errorf("device plugin %s: %w", p.resource, err)
	}
	return nil
}

func (p *testPlugin) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{GetPreferredAllocationAvailable: true}, nil
}

func (p *testPlugin) GetPreferredAllocation(_ context.Context, req *pluginapi.PreferredAllocationRequest) (*pluginapi.PreferredAllocationResponse, error) {
	resp := &pluginapi.PreferredAllocationResponse{}
	for _, c := range req.ContainerRequests {
		ids := slices.Sorted(slices.Values(c.MustIncludeDeviceIDs))
		for _, id := range slices.Sorted(slices.Values(c.AvailableDeviceIDs)) {
			if len(ids) < int(c.AllocationSize) && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerPreferredAllocationResponse{DeviceIDs: ids})
	}
	return resp, nil
}

func (p *testPlugin) ListAndWatch(_ *pluginapi.Empty, s grpc.ServerStreamingServer[pluginapi.ListAndWatchResponse]) error {
	if err := s.Send(&pluginapi.ListAndWatchResponse{Devices: p.devices}); err != nil {
		return err
	}
	select {
	case <-p.stop:
	case <-s.Context().Done():
	}
	return nil
}

func (p *testPlugin) Allocate(_ context.Context, req *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	resp := &pluginapi.AllocateResponse{}
	for _, c := range req.ContainerRequests {
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{
			Envs: map[string]string{"TEST_DEVICES": strings.Join(c.DevicesIds, ",")},
		})
	}
	return resp, nil
}

func (p *testPlugin) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	return &pluginapi.PreStartContainerResponse{}, nil
}
