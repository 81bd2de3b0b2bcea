package statefile

import (
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// FuzzAllocResp holds checkAllocResp to protobuf-go's proto.Unmarshal of the
// device plugin API's ContainerAllocateResponse, as the kubelet calls it.
func FuzzAllocResp(f *testing.F) {
	good, err := proto.Marshal(&pluginapi.ContainerAllocateResponse{
		Envs:        map[string]string{"A": "B"},
		Mounts:      []*pluginapi.Mount{{ContainerPath: "/c", HostPath: "/h", ReadOnly: true}},
		Devices:     []*pluginapi.DeviceSpec{{ContainerPath: "/dev/x", HostPath: "/dev/y", Permissions: "rw"}},
		Annotations: map[string]string{"k": "v"},
		CdiDevices:  []*pluginapi.CDIDevice{{Name: "vendor.com/gpu=0"}},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x02, 0x0a, 0xff})             // truncated map entry
	f.Add([]byte{0x0a, 0x04, 0x0a, 0x02, 0xc3, 0x28}) // invalid UTF-8 key
	f.Add([]byte{0x08, 0x01})                         // envs as a varint: unknown field
	f.Add([]byte{0x0b, 0x0c})                         // group 1
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Run(t, func() {
			want := proto.Unmarshal(b, &pluginapi.ContainerAllocateResponse{})
			got := checkAllocResp(b)
			require.Equal(t, want == nil, got == nil, "checkAllocResp(%x) = %v, proto.Unmarshal: %v", b, got, want)
		})
	})
}
