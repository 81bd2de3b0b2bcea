package statefile

import (
	"bytes"
	"fmt"
)

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

// Verify decides only what kubelet v1.37.2's restore path decides for data:
// the format, the checksum and whether the kubelet accepts it. It skips the
// problem analysis of Decode, so it is the check to use on large files.
//
// Verify allocates next to nothing. On a v3/v4 file of 64 KiB or more, and
// with GOMAXPROCS above 1, it unescapes and hashes the data section on a
// second goroutine while it reads the part already done; it returns only
// after that goroutine has finished.
func Verify(data []byte, opts Options) (v *Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%s: internal error while verifying (please report it): %v", opts.Name, r)
		}
	}()
	// Both fast paths check the whole file; the order only saves time: a
	// "data" member means the v4/v3 layout. The kubelet writes it with
	// dataChecksum last, so a file without that near its end is looked at
	// as a spew-layout file first.
	if opts.Kind == KindCPU || opts.Kind == KindMemory {
		k := -1
		if bytes.Contains(data[max(0, len(data)-64):], []byte(`"dataChecksum":`)) {
			k = bytes.Index(data, dataKey)
		}
		if k >= 0 {
			if v, ok := verifyFastAt(data, opts, k); ok {
				return v, nil
			}
		}
		if int64(len(data)) <= maxSize(opts) {
			if v, ok := verifyFastSpew(data, opts); ok {
				return v, nil
			}
		}
		if k < 0 {
			if v, ok := verifyFast(data, opts); ok {
				return v, nil
			}
		}
	}
	if opts.Kind != KindCPU && opts.Kind != KindMemory {
		f, err := Decode(data, opts)
		if err != nil {
			return nil, err
		}
		return &Verdict{Kind: f.Kind, Format: f.Format, Checksum: f.Checksum, KubeletAccepts: f.KubeletAccepts, OnReject: f.OnReject, Reason: f.Reason}, nil
	}
	limit := opts.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes > %d)", opts.Name, ErrTooLarge, len(data), limit)
	}
	if err := checkSyntax(data); err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Name, err)
	}
	f := &File{Name: opts.Name, Kind: opts.Kind}
	if opts.Kind == KindCPU {
		r := restoreCPU(data)
		err := r.err
		if err == nil {
			policy := opts.Policy
			if policy == "" {
				policy = r.data.PolicyName
			}
			err = cpuValidate(policy, &r.data)
		}
		f.Format, f.Checksum = r.fileFormat(), r.checksum
		if err != nil {
			f.Reason = kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", err, f.Name))
		}
	} else {
		r := restoreMemory(data)
		err := r.err
		if err == nil && opts.Policy != "" && opts.Policy != r.data.PolicyName {
			err = fmt.Errorf("[memorymanager] configured policy %q differs from state checkpoint policy %q", opts.Policy, r.data.PolicyName)
		}
		f.Format, f.Checksum = r.format, r.checksum
		if err != nil {
			f.Reason = kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the memory manager checkpoint file %q before restarting Kubelet", err, f.Name))
		}
	}
	v = &Verdict{Kind: f.Kind, Format: f.Format, Checksum: f.Checksum, KubeletAccepts: f.Reason == "", Reason: f.Reason}
	if !v.KubeletAccepts {
		v.OnReject = RefusesToStart
	}
	return v, nil
}

func maxSize(opts Options) int64 {
	if opts.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return opts.MaxSize
}
