package statefile

// Verdict is the kubelet's restore decision for a checkpoint, without the
// decoded state and the problem analysis of Decode.
type Verdict struct {
	Kind           Kind           `json:"kind"`
	Format         Format         `json:"format"`
	Checksum       ChecksumReport `json:"checksum"`
	KubeletAccepts bool           `json:"kubeletAccepts"`
	OnReject       string         `json:"onReject"`
	Reason         string         `json:"reason,omitempty"`
}

// Verify returns the part of Decode's answer that is the kubelet's restore
// decision (kubelet v1.37.2's, or that of Options.KubeletVersion): the
// format, the checksum and whether the kubelet accepts the file. It is a
// view of Decode, with the same errors.
func Verify(data []byte, opts Options) (*Verdict, error) {
	f, err := Decode(data, opts)
	if err != nil {
		return nil, err
	}
	return &Verdict{Kind: f.Kind, Format: f.Format, Checksum: f.Checksum, KubeletAccepts: f.KubeletAccepts, OnReject: f.OnReject, Reason: f.Reason}, nil
}

func maxSize(opts Options) int64 {
	if opts.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return opts.MaxSize
}
