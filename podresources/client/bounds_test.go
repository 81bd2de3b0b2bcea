package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

// An answer over the bounds is refused before it is unmarshalled, over
// real gRPC, with an error that says what to do.
func TestAnswerBounds(t *testing.T) {
	wide := &podresources.Snapshot{Pods: []podresources.PodResources{{Name: "wide", Namespace: "n"}}}
	for i := range 11 {
		wide.Pods[0].Containers = append(wide.Pods[0].Containers, podresources.ContainerResources{Name: fmt.Sprintf("c%d", i)})
	}
	tests := []struct {
		name    string
		snap    *podresources.Snapshot
		opts    []client.Option
		get     bool
		wantErr string
	}{
		{name: "at the pod cap", snap: podresourcestest.Generate(100), opts: []client.Option{client.WithMaxPods(100)}},
		{name: "over the pod cap", snap: podresourcestest.Generate(101), opts: []client.Option{client.WithMaxPods(100)},
			wantErr: "the answer names more than 100 pods"},
		{name: "over the default cap", snap: podresourcestest.Generate(podresources.MaxPods + 1),
			wantErr: fmt.Sprintf("more than %d pods", podresources.MaxPods)},
		{name: "containers in a Get answer", snap: wide, opts: []client.Option{client.WithMaxPods(1)}, get: true,
			wantErr: "the answer names more than 10 containers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, serve(t, tt.snap).Socket(), tt.opts...)
			var err error
			var n int
			if tt.get {
				var p *podresources.PodResources
				p, err = c.Get(context.Background(), "n", "wide")
				if p != nil {
					n = 1
				}
			} else {
				var pods []podresources.PodResources
				pods, err = c.List(context.Background())
				n = len(pods)
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, len(tt.snap.Pods), n)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, podresources.ErrTooLarge)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "raise WithMaxPods")
		})
	}
}

// Options that would unbound the client are refused by Dial.
func TestDialRefusesUnboundedOptions(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	tests := []struct {
		name    string
		opt     client.Option
		wantErr string
	}{
		{name: "message size zero", opt: client.WithMaxMessageSize(0), wantErr: "client.WithMaxMessageSize(0)"},
		{name: "message size over the limit", opt: client.WithMaxMessageSize(client.MaxMessageSizeLimit + 1), wantErr: "give 1 byte to 67108864"},
		{name: "no pods", opt: client.WithMaxPods(0), wantErr: "client.WithMaxPods(0)"},
		{name: "no connect timeout", opt: client.WithConnectTimeout(0), wantErr: "client.WithConnectTimeout(0s)"},
		{name: "negative call timeout", opt: client.WithCallTimeout(-1), wantErr: "client.WithCallTimeout(-1ns)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := client.Dial(context.Background(), s.Socket(), tt.opt)
			if c != nil {
				require.NoError(t, c.Close())
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
