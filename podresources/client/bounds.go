package client

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/numascope/numascope/podresources"
)

// Bounds on one answer. The message size limit bounds the bytes, but not
// what they decode to: a 13 MB List answer of 1M empty pods took 554 MB to
// unmarshal. The client counts an answer's pods, containers and values on
// the wire, without decoding it, and refuses one over the bounds.
const (
	// MaxMessageSizeLimit is the largest WithMaxMessageSize accepts.
	MaxMessageSizeLimit = 64 << 20
	// valuesPerPod and containersPerPod scale the other bounds from the cap
	// on pods: a pod with 3 containers, each with CPUs, memory and a device
	// on one NUMA node, takes about 30 values.
	valuesPerPod     = 50
	containersPerPod = 10
	// maxWireDepth bounds nesting; the deepest answer nests 6 messages.
	maxWireDepth = 16
)

// tooLargeMarker starts the codec's error, which reaches the client inside
// a gRPC status, so that the client can tell it apart.
const tooLargeMarker = "numascope bounds: "

// boundedCodec is the proto codec with a check of the answer's size in
// pods, containers and values before it is unmarshalled.
type boundedCodec struct {
	base    encoding.CodecV2
	maxPods int
}

func newBoundedCodec(maxPods int) *boundedCodec {
	return &boundedCodec{base: encoding.GetCodecV2("proto"), maxPods: maxPods}
}

func (c *boundedCodec) Name() string { return c.base.Name() }

func (c *boundedCodec) Marshal(v any) (mem.BufferSlice, error) { return c.base.Marshal(v) }

func (c *boundedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return c.base.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	ct := counter{maxPods: c.maxPods, maxContainers: c.maxPods * containersPerPod, maxValues: c.maxPods * valuesPerPod}
	if err := ct.walk(b, m.ProtoReflect().Descriptor(), 0); err != nil {
		return err
	}
	return proto.Unmarshal(b, m)
}

type counter struct {
	pods, containers, values          int
	maxPods, maxContainers, maxValues int
}

// walk counts the messages, strings and scalars of a message on the wire.
// Malformed data is left to proto.Unmarshal, which reports it.
func (c *counter) walk(b []byte, md protoreflect.MessageDescriptor, depth int) error {
	if depth > maxWireDepth {
		return fmt.Errorf("%sthe answer nests deeper than %d messages", tooLargeMarker, maxWireDepth)
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		fd := md.Fields().ByNumber(num)
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil
			}
			b = b[n:]
			if err := c.add(1); err != nil {
				return err
			}
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		switch {
		case fd != nil && fd.Kind() == protoreflect.MessageKind:
			sub := fd.Message()
			switch sub.FullName() {
			case "v1.PodResources":
				if c.pods++; c.pods > c.maxPods {
					return fmt.Errorf("%sthe answer names more than %d pods", tooLargeMarker, c.maxPods)
				}
			case "v1.ContainerResources":
				if c.containers++; c.containers > c.maxContainers {
					return fmt.Errorf("%sthe answer names more than %d containers", tooLargeMarker, c.maxContainers)
				}
			}
			if err := c.add(1); err != nil {
				return err
			}
			if err := c.walk(v, sub, depth+1); err != nil {
				return err
			}
		case fd != nil && fd.IsList() && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind:
			// A packed list of numbers (cpu_ids).
			k := 0
			for len(v) > 0 {
				_, n := protowire.ConsumeVarint(v)
				if n < 0 {
					break
				}
				v = v[n:]
				k++
			}
			if err := c.add(k); err != nil {
				return err
			}
		default:
			if err := c.add(1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *counter) add(n int) error {
	if c.values += n; c.values > c.maxValues {
		return fmt.Errorf("%sthe answer holds more than %d values", tooLargeMarker, c.maxValues)
	}
	return nil
}

// boundsError returns the error of an answer the codec refused, or nil.
func (c *Client) boundsError(method string, err error) error {
	msg := err.Error()
	i := strings.Index(msg, tooLargeMarker)
	if i < 0 {
		return nil
	}
	what := msg[i+len(tooLargeMarker):]
	return also(fmt.Errorf("%w: the %s answer from %s was refused before decoding: %s (the bounds follow client.WithMaxPods, now %d): a node runs at most a few hundred pods; is this the kubelet's socket? If the node really runs more, raise WithMaxPods",
		podresources.ErrTooLarge, method, c.path, what, c.opts.maxPods), err)
}
