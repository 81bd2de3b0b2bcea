package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence/catalog"
	"github.com/numascope/numascope/statefile"
)

// TestCodesDiagnoseKnows checks the codes the table uses against
// diagnose.Codes(): each is there, the ones the table marks as diagnose's
// are diagnose's own and the families the table defines are the
// catalogue's, and every finding row's severity is one the code is
// reported with.
func TestCodesDiagnoseKnows(t *testing.T) {
	require.NoError(t, catalog.ClassesErr())
	known := map[string]diagnose.CodeInfo{}
	for _, c := range diagnose.Codes() {
		known[c.Name] = c
	}
	for _, c := range catalog.Codes() {
		d, ok := known[c.Name]
		if !assert.True(t, ok, "the table's code %s is not in diagnose.Codes()", c.Name) {
			continue
		}
		if c.Diagnose {
			assert.False(t, d.Catalogue, "%s is marked as a diagnose code but diagnose.Codes() says the catalogue defines it", c.Name)
		} else {
			assert.True(t, d.Catalogue, "%s is a diagnose code: mark it diagnose (or mark it Catalogue in diagnose.Codes())", c.Name)
		}
	}
	for _, e := range catalog.Entries() {
		cl, ok := catalog.Classify(e.ID)
		if !ok || cl.Kind != catalog.ClassFinding {
			continue
		}
		sev := statefile.Severity(cl.Severity)
		if sev == "" {
			sev = statefile.SeverityWarning // as diagnose reports a row without one
		}
		if d, ok := known[cl.Code]; ok {
			assert.Contains(t, d.Severities, sev, "row %s: %s is not reported as %s in diagnose.Codes()", e.ID, cl.Code, sev)
		}
	}
}
