package legacy

import (
	"testing"

	"github.com/numascope/numascope/internal/conformance/legacy/verdicts"
)

// TestReleaseVerdicts records (with -update-verdicts) or checks this
// release's verdict on every golden checkpoint; restore_test.go has this
// release's restore calls.
func TestReleaseVerdicts(t *testing.T) { verdicts.Check(t, release, restore) }
