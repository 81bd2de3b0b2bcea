package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holderRowsOf is the text of the holder rows of a table (NUMA | pod |
// container | resource | amount), one line per row, "…" rows included.
func holderRowsOf(selector string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%q)].map((r) => [...r.cells].map((c) => c.textContent).join(' | ')).join('\n')`, selector+` tbody tr`)
}

// TestPlaygroundShowsHolders checks that the page says who holds what per
// NUMA node, for every kind of checkpoint, in the file cards and in the
// NUMA view, from the engine's holders (internal/holdings, the model
// inspect prints).
func TestPlaygroundShowsHolders(t *testing.T) {
	ctx, url := servedBrowser(t)
	tab := uxPage(t, ctx, url+"/")

	t.Run("the upstream sample's pod holds 150 GiB on NUMA 0 and 1", func(t *testing.T) {
		loadExample(t, tab, "troubleshooting")
		card := `[data-testid=file-result][data-kind=memory] [data-testid=holders-table]`
		assert.Equal(t, "0,1 | fa9bdd38… | guaranteed | memory | 150.00 GiB", evalString(t, tab, holderRowsOf(card)))
		assert.Equal(t, "fa9bdd38-6df9-4cf9-aa67-8c4814da37a8", evalString(t, tab, `document.querySelector('`+card+` [data-testid=holder]').dataset.pod`))
		// In the NUMA view, on both nodes of the group.
		for _, node := range []string{"0", "1"} {
			assert.Equal(t, "0,1 | fa9bdd38… | guaranteed | memory | 150.00 GiB",
				evalString(t, tab, holderRowsOf(`[data-testid=numa-node][data-node="`+node+`"] [data-testid=node-holders-table]`)), "NUMA node %s", node)
		}
	})

	t.Run("a cpu example shows containers and CPU ids", func(t *testing.T) {
		loadExample(t, tab, "cpu-none")
		rows := evalString(t, tab, holderRowsOf(`[data-testid=file-result][data-kind=cpu] [data-testid=holders-table]`))
		assert.Contains(t, rows, "– | – | shared pool (defaultCpuSet) | cpu | ")
		note := evalString(t, tab, `[...document.querySelectorAll('[data-testid=file-result][data-kind=cpu] [data-testid=holders-note]')].map((p) => p.textContent).join('\n')`)
		assert.Contains(t, note, "add the node's machine info")
	})

	t.Run("a corrupt cpu_manager_state shows what it records, marked refused", func(t *testing.T) {
		loadExample(t, tab, "corrupt-cpu")
		rows := evalString(t, tab, holderRowsOf(`[data-testid=file-result][data-kind=cpu] [data-testid=holders-table]`))
		assert.Contains(t, rows, "| app | cpu | 2-5", "the recorded assignment")
		assert.Contains(t, rows, "shared pool (defaultCpuSet) | cpu | 0-1,6-15", "the recorded shared pool")
		note := evalString(t, tab, `[...document.querySelectorAll('[data-testid=file-result][data-kind=cpu] [data-testid=holders-note]')].map((p) => p.textContent).join('\n')`)
		assert.Contains(t, note, "the kubelet refuses to start with it", "the rows are what the file records, not what the kubelet loads")
	})

	t.Run("with machine info, each container's CPUs are on their NUMA node", func(t *testing.T) {
		loadExample(t, tab, "troubleshooting-page")
		rows := evalString(t, tab, holderRowsOf(`[data-testid=file-result][data-kind=cpu] [data-testid=holders-table]`))
		assert.Equal(t, "0 | fa9bdd38… | guaranteed | cpu | 2-5\n0 | – | shared pool (defaultCpuSet) | cpu | 0-1,6-23\n1 | – | shared pool (defaultCpuSet) | cpu | 24-47", rows)
		assert.Equal(t, 0, evalInt(t, tab, `document.querySelectorAll('[data-testid=file-result][data-kind=cpu] [data-testid=holders-note]').length`), "no note once CPUs are placed")
		node0 := evalString(t, tab, holderRowsOf(`[data-testid=numa-node][data-node="0"] [data-testid=node-holders-table]`))
		assert.Contains(t, node0, "0 | fa9bdd38… | guaranteed | cpu | 2-5")
		assert.Contains(t, node0, "0,1 | fa9bdd38… | guaranteed | memory | 150.00 GiB")
		assert.NotContains(t, evalString(t, tab, holderRowsOf(`[data-testid=numa-node][data-node="1"] [data-testid=node-holders-table]`)), "2-5")
	})

	t.Run("a device example shows devices per NUMA node", func(t *testing.T) {
		loadExample(t, tab, "device-checkpoint")
		rows := evalString(t, tab, holderRowsOf(`[data-testid=file-result][data-kind=device] [data-testid=holders-table]`))
		assert.Equal(t, "0 | 6c2b54e4… | app | nvidia.com/gpu | GPU-0\n1 | 6c2b54e4… | app | nvidia.com/gpu | GPU-2\nnone | 6c2b54e4… | sidecar | example.com/fpga | fpga-0", rows)
		assert.Equal(t, "0 | 6c2b54e4… | app | nvidia.com/gpu | GPU-0", evalString(t, tab, holderRowsOf(`[data-testid=numa-node][data-node="0"] [data-testid=node-holders-table]`)))
		// The node card lists each device once: in its holders table.
		assert.Equal(t, 0, evalInt(t, tab, `document.querySelectorAll('[data-testid=numa-node][data-node="0"] .devs li').length`))
	})

	t.Run("DRA claims, which record no NUMA node", func(t *testing.T) {
		data, err := os.ReadFile("../statefile/testdata/kubelet/dra/crc32-random-2.json")
		require.NoError(t, err)
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`state.lastInspect = null; renderAll()`), paste(string(data))))
		waitFor(t, tab, "the DRA state", settledResult+` && document.querySelector('[data-testid=file-result][data-kind=dra] [data-testid=holders-table]')`)
		assert.Equal(t, "– | 118cc357… | claim default/claim-0 | dra | gpu.example.com/node-1/dev-0, gpu.example.com/node-1/dev-1\n– | 8855ce89… | claim default/claim-1 | dra | gpu.example.com/node-2/dev-0, gpu.example.com/node-2/dev-1",
			evalString(t, tab, holderRowsOf(`[data-testid=file-result][data-kind=dra] [data-testid=holders-table]`)))
		assert.Contains(t, evalString(t, tab, `document.querySelector('[data-testid=file-result][data-kind=dra] [data-testid=holders-note]').textContent`), "records no NUMA node")
	})

	t.Run("at most 30 rows per NUMA node, then … N more", func(t *testing.T) {
		// 40 containers on each of 8 NUMA nodes
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`state.lastInspect = null; renderAll()`), paste(bigMemoryState(t, 320))))
		waitFor(t, tab, "320 holders", settledResult+` && document.querySelectorAll('[data-testid=holders-more]').length > 0`)
		card := `[data-testid=file-result][data-kind=memory] [data-testid=holders-table]`
		assert.Equal(t, 8*31, evalInt(t, tab, `document.querySelectorAll('`+card+` tbody tr').length`), "30 rows and a … row per NUMA node")
		assert.Equal(t, strings.Repeat("… 10 more\n", 8), evalString(t, tab, `[...document.querySelectorAll('`+card+` [data-testid=holders-more]')].map((r) => r.cells[1].textContent + '\n').join('')`))
		node := `[data-testid=numa-node][data-node="3"] [data-testid=node-holders-table]`
		assert.Equal(t, 31, evalInt(t, tab, `document.querySelectorAll('`+node+` tbody tr').length`), "NUMA node 3: 30 rows and the … row")
		assert.Equal(t, "3 | … 10 more", evalString(t, tab, holderRowsOf(node)+`.split('\n').pop()`))
	})

	t.Run("the tables reflow at 390 and 320 px", func(t *testing.T) {
		for _, id := range []string{"troubleshooting-page", "device-checkpoint"} {
			loadExample(t, tab, id)
			require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details[data-testid=file-result]').forEach((d) => { d.open = true; })`)))
			for _, w := range []int64{390, 320} {
				require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(w, 800)))
				assert.Equal(t, fmt.Sprintf("%d/%d", w, w), evalString(t, tab, `document.documentElement.scrollWidth + '/' + document.documentElement.clientWidth`), "example %s at %d px", id, w)
			}
			require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)))
		}
		shot(t, tab, "holders.png", "[data-testid=holders]")
	})

	t.Run("zh-CN", func(t *testing.T) {
		require.NoError(t, chromedp.Do(tab, selectOption("#lang", "zh-CN")))
		waitFor(t, tab, "the page in zh-CN", `document.documentElement.lang === 'zh-CN'`)
		assert.Equal(t, "谁占用了什么（按 NUMA 节点）", evalString(t, tab, `document.querySelector('[data-testid=holders] .caption').textContent`))
		require.NoError(t, chromedp.Do(tab, selectOption("#lang", "en")))
	})
}
