package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlaygroundDrawsSummarisedHolders checks that the page draws a
// 10,000-container memory_manager_state from the engine's summary of its
// holders (FileView.holdersOmitted) exactly as it draws the whole model:
// the same rows, "… N more" counts, short pod UIDs and pods table.
func TestPlaygroundDrawsSummarisedHolders(t *testing.T) {
	ctx, url := servedBrowser(t)
	tab := uxPage(t, ctx, url+"/")

	big := bigMemoryState(t, 10000)
	f, err := statefile.Decode([]byte(big), statefile.Options{Name: "memory_manager_state"})
	require.NoError(t, err)
	whole, err := json.Marshal(holdings.Build(f, nil))
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(tab, paste(big)))
	waitFor(t, tab, "the 10,000 holders", settledResult+` && document.querySelectorAll('[data-testid=holders-more]').length > 0`)
	require.Equal(t, 1, evalInt(t, tab, `state.lastInspect.result.files[0].holdersOmitted ? 1 : 0`), "the engine summarised the holders")
	card := `[data-testid=file-result][data-kind=memory] [data-testid=holders-table]`
	assert.Equal(t, 8*31, evalInt(t, tab, `document.querySelectorAll('`+card+` tbody tr').length`), "30 rows and a … row per NUMA node")
	assert.Equal(t, strings.Repeat("… 1220 more\n", 8), evalString(t, tab, `[...document.querySelectorAll('`+card+` [data-testid=holders-more]')].map((r) => r.cells[1].textContent + '\n').join('')`))
	assert.Equal(t, "3 | … 1220 more", evalString(t, tab, holderRowsOf(`[data-testid=numa-node][data-node="3"] [data-testid=node-holders-table]`)+`.split('\n').pop()`))
	assert.Contains(t, evalString(t, tab, `document.querySelector('[data-testid=rows-hidden]').textContent`), "9500 more rows")

	drawn := `JSON.stringify([...document.querySelectorAll('[data-testid=result], #numa-groups, #pods')].map((e) => e.innerText))`
	summary := evalString(t, tab, drawn)
	require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const f = state.lastInspect.result.files[0]; f.holders = %s; delete f.holdersOmitted; renderAll(); })()`, whole))))
	if summary != evalString(t, tab, drawn) {
		t.Errorf("the page draws the summary otherwise than the whole model")
	}
}
