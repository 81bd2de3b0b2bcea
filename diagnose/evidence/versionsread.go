package evidence

import (
	"errors"

	"github.com/numascope/numascope/statefile"
)

// stateInput is what a checkpoint was decoded from, kept so that its
// verdict can be given again for the kubelet release of the evidence.

// keepStateInput records the bytes and options of a checkpoint whose
// verdict is the kubelet's (the node's file or an intact copy); verdict is
// false for a repaired or redacted copy, whose verdict stays withheld.
func (e *Set) keepStateInput(f *statefile.File, data []byte, opts statefile.Options, verdict bool) {
	if !verdict {
		return
	}
	if e.stateInputs == nil {
		e.stateInputs = map[*statefile.File]StateInput{}
	}
	e.stateInputs[f] = StateInput{Data: data, Options: opts}
}

// SetKubeletVersion names the release of the node's kubelet ("1.30",
// "v1.30.4"; 1.28 to 1.37): the verdicts on the checkpoint files are then
// that release's. Without it, Run uses the release the evidence shows when
// it shows exactly one (a "Kubelet version" log line, for example), else
// the newest. It returns an error for a version numascope does not know.
func (e *Set) SetKubeletVersion(version string) error {
	// statefile checks the version before it looks at the bytes
	if _, err := statefile.Decode([]byte(`{}`), statefile.Options{Kind: statefile.KindCPU, KubeletVersion: version}); err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			return inner // without Decode's file-name prefix
		}
		return err
	}
	e.kubeletVersion = version
	return nil
}
