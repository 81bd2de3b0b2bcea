package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// servedBrowser serves the site and starts a browser for a test, both
// stopped when it ends, and returns the browser's context and the site's URL.
func servedBrowser(t *testing.T) (context.Context, string) {
	t.Helper()
	exe := chromium(t)
	srv := httptest.NewServer(testSite(t).handler())
	t.Cleanup(srv.Close)
	ctx := startBrowser(t, exe, "127.0.0.1:9", 5*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	return ctx, srv.URL
}

// uxPage opens the playground in a fresh tab of a browser of its own, with
// a listener that keeps every numascope:marks event the page dispatches.
func uxPage(t *testing.T, ctx context.Context, url string) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url)))
	waitFor(t, tab, "the engine and its examples", `document.body.dataset.engine === 'ready' && state.examples.length > 0`)
	require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`window.__marks = []; document.querySelector('[data-testid=input]').addEventListener('numascope:marks', (e) => window.__marks.push(e.detail))`)))
	return tab
}

// settledResult is true when a run has drawn its whole answer.
const settledResult = `document.querySelector('[data-testid=result]').getAttribute('aria-busy') === 'false' && document.querySelector('[data-testid=file-result]')`

func loadExample(t *testing.T, tab context.Context, id string) {
	t.Helper()
	// Forget the last answer, so that the wait below sees this example's.
	require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`state.lastInspect = null; state.lastDiagnosis = null; renderAll()`), selectOption("#examples", id)))
	waitFor(t, tab, "example "+id, settledResult+` && (!state.examples.find((e) => e.id === '`+id+`').files || document.querySelectorAll('[data-testid=file-result]').length === state.examples.find((e) => e.id === '`+id+`').files.length)`)
}

// TestPlaygroundAnswersFirst drives the page as a reader of issue 15 did:
// the verdict banner, Findings that never contradict a file's card, the
// TopologyAffinityError table, evidence links, policies per kind, error
// positions, reflow on a phone and share links.
func TestPlaygroundAnswersFirst(t *testing.T) {
	ctx, url := servedBrowser(t)

	t.Run("an empty page claims nothing", func(t *testing.T) {
		tab := uxPage(t, ctx, url+"/")
		text := evalString(t, tab, `document.querySelector('[data-testid=result]').innerText + '\n' + document.querySelector('[data-testid=admit-result]').innerText`)
		assert.NotContains(t, text, "Admitted")
		assert.Equal(t, 0, evalInt(t, tab, `document.querySelectorAll('[data-testid=verdict-banner]').length`))
	})

	tab := uxPage(t, ctx, url+"/")
	loadExample(t, tab, "troubleshooting-page")

	t.Run("the banner gives the answer first", func(t *testing.T) {
		banner := evalString(t, tab, `document.querySelector('#result > :first-child[data-testid=verdict-banner]').innerText`)
		assert.Contains(t, banner, "✗")
		assert.Contains(t, banner, "Pod default/guaranteed was rejected: TopologyAffinityError")
		assert.Contains(t, banner, "1 error")
		assert.NotContains(t, banner, "(s)")
		assert.Equal(t, "error", evalString(t, tab, `document.querySelector('[data-testid=verdict-banner]').dataset.severity`))
		// Every file is one line until opened.
		assert.Equal(t, 0, evalInt(t, tab, `document.querySelectorAll('details[data-testid=file-result][open]').length`))
		assert.Equal(t, 7, evalInt(t, tab, `document.querySelectorAll('details[data-testid=file-result] > summary').length`))
		assert.Less(t, evalInt(t, tab, `Math.round(document.querySelector('[data-testid=verdict-banner]').getBoundingClientRect().bottom)`), 400, "the banner is above the fold")
		shot(t, tab, "verdict.png", "")
	})

	t.Run("the TopologyAffinityError finding has its requested/free/fits table", func(t *testing.T) {
		rows := evalString(t, tab, `[...document.querySelectorAll('[data-testid=finding][data-code=TopologyAffinityError] [data-testid=tae-table] tbody tr')].map((r) => r.dataset.resource + ' ' + r.dataset.fits + ' ' + r.cells[1].textContent + ' ' + r.cells[2].textContent + '/' + r.cells[3].textContent).join('\n')`)
		want := "cpu true NUMA node 0 2/19\ncpu true NUMA node 1 2/24\nmemory false NUMA node 0 50Gi/0\nmemory false NUMA node 1 50Gi/96.61Gi\nmemory true group [0 1] 50Gi/96.61Gi"
		assert.Equal(t, want, rows)
		remedy := evalString(t, tab, `document.querySelector('[data-testid=finding][data-code=TopologyAffinityError]').innerText`)
		assert.Contains(t, remedy, "the table")
		assert.NotContains(t, remedy, "go run")
	})

	t.Run("an evidence reference selects its tab and line", func(t *testing.T) {
		for _, tc := range []struct{ ref, file, line string }{
			{"kubelet.log:10", "kubelet.log", "TopologyAffinityError"},
			{"pod.yaml#/status/reason", "pod.yaml", "  reason: TopologyAffinityError"},
			{"kubelet-config.yaml#/topologyManagerPolicy", "kubelet-config.yaml", "topologyManagerPolicy: single-numa-node"},
		} {
			require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`[...document.querySelectorAll('[data-testid=finding][data-code=TopologyAffinityError] [data-testid=ref]')].find((a) => a.textContent === %q).click()`, tc.ref))))
			got := evalString(t, tab, `(() => { const ta = document.querySelector('[data-testid=input]'); const v = ta.value; const s = v.lastIndexOf('\n', ta.selectionStart - 1) + 1; const e = v.indexOf('\n', ta.selectionStart); return document.querySelector('[role=tab][aria-selected=true]').textContent.split(' · ')[0] + '|' + v.slice(s, e < 0 ? v.length : e) + '|' + (document.activeElement === ta); })()`)
			parts := strings.Split(got, "|")
			require.Len(t, parts, 3, got)
			assert.Equal(t, tc.file, parts[0], tc.ref)
			assert.Contains(t, parts[1], tc.line, tc.ref)
			assert.Equal(t, "true", parts[2], "%s: the text area has the focus", tc.ref)
		}
	})

	t.Run("policies per kind, from the kubelet-config tab", func(t *testing.T) {
		assert.Equal(t, "from kubelet-config: static|from kubelet-config: Static|single-numa-node",
			evalString(t, tab, `[document.querySelector('#cpu-policy').selectedOptions[0].textContent, document.querySelector('#memory-policy').selectedOptions[0].textContent, document.querySelector('#tm-policy').value].join('|')`))
		accepts := func() string {
			return evalString(t, tab, `['cpu', 'memory'].map((k) => k + '=' + document.querySelector('[data-testid=file-result][data-kind=' + k + '] [data-testid=checksum-verdict]').dataset.accepts).join(' ')`)
		}
		assert.Equal(t, "cpu=true memory=true", accepts())
		require.NoError(t, chromedp.Do(tab, selectOption("#cpu-policy", "none")))
		waitFor(t, tab, "the cpu file refused under none", `document.querySelector('[data-testid=file-result][data-kind=cpu] [data-testid=checksum-verdict][data-accepts=false]')`)
		assert.Equal(t, "cpu=false memory=true", accepts(), "a CPU policy never refuses the memory file")
		require.NoError(t, chromedp.Do(tab, selectOption("#cpu-policy", ""), selectOption("#memory-policy", "None")))
		waitFor(t, tab, "the memory file refused under None", `document.querySelector('[data-testid=file-result][data-kind=memory] [data-testid=checksum-verdict][data-accepts=false]')`)
		assert.Equal(t, "cpu=true memory=false", accepts(), "a memory policy never refuses the cpu file")
		require.NoError(t, chromedp.Do(tab, selectOption("#memory-policy", "")))
		waitFor(t, tab, "both accepted again", `document.querySelector('[data-testid=file-result][data-kind=memory] [data-testid=checksum-verdict][data-accepts=true]')`)
	})

	t.Run("share links keep the tab, language and theme", func(t *testing.T) {
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`selectFile(4)`), selectOption("#lang", "zh-CN"),
			chromedp.Evaluate[chromedp.Void](`applyTheme('dark'); updateShare()`)))
		waitFor(t, tab, "the share link", `(async () => document.querySelector('[data-testid=share-link]').href === location.href.split('#')[0] + await encodeShare(shareState()))()`)
		link := evalString(t, tab, `document.querySelector('[data-testid=share-link]').href`)
		require.NoError(t, chromedp.Do(tab, selectOption("#lang", "en"), chromedp.Evaluate[chromedp.Void](`applyTheme('auto')`)))
		other := uxPage(t, ctx, link)
		waitFor(t, other, "the shared view", settledResult)
		assert.Equal(t, "4|zh-CN|dark", evalString(t, other, `state.active + '|' + document.documentElement.lang + '|' + (document.documentElement.dataset.theme || '')`))
	})

	t.Run("a broken share link says so and opens an empty page", func(t *testing.T) {
		for _, frag := range []string{"#s=%%%not-base64", "#s=AAAA", deflateLink(t, []byte(`{"v":1,"f":"no"}`))} {
			other := uxPage(t, ctx, url+"/"+frag)
			waitFor(t, other, "the share error", shareErrorText+` !== ''`)
			assert.Equal(t, "", evalString(t, other, `state.files.map((f) => f.content).join('')`), frag)
			assert.Equal(t, 0, evalInt(t, other, `document.querySelectorAll('[data-testid=verdict-banner]').length`), frag)
		}
	})

	t.Run("Findings never contradict a file's card", func(t *testing.T) {
		// CPU 3 belongs to two containers, which the kubelet's own restore refuses.
		cpu := `{"policyName":"static","defaultCpuSet":"0-2,4-7","entries":{"pod-a":{"a":"3"},"pod-b":{"b":"3"}},"checksum":1}`
		for _, sample := range []string{cpu, readTestdata(t, "memory_manager_state")} {
			require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`setFiles([{name: '', content: ''}], {quiet: true})`), paste(sample)))
			waitFor(t, tab, "the answer", settledResult+` && document.querySelectorAll('[data-testid=file-result]').length === 1`)
			problems := evalInt(t, tab, `state.lastInspect.result.files[0].problems.length`)
			if problems == 0 {
				continue
			}
			file := evalString(t, tab, `state.lastInspect.result.files[0].file`)
			assert.Equal(t, 0, evalInt(t, tab, `document.querySelectorAll('[data-testid=no-problems]').length`), "%s has %d problems and Findings says there are none", file, problems)
			assert.GreaterOrEqual(t, evalInt(t, tab, fmt.Sprintf(`document.querySelectorAll('[data-testid=finding] [data-testid=ref][data-file=%q]').length`, file)), 1,
				"Findings names %s", file)
			assert.NotEqual(t, "ok", evalString(t, tab, `document.querySelector('[data-testid=verdict-banner]').dataset.severity`))
		}
	})

	t.Run("inputs that cannot show the problem say what to add next", func(t *testing.T) {
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`setFiles([{name: 'topology.txt', content: ''}], {quiet: true})`),
			paste(readScenario(t, "topology-numactl", "topology-numactl.txt"))))
		waitFor(t, tab, "the diagnosis", settledResult+` && !state.diagnosing && state.lastDiagnosis && state.lastDiagnosis.ok`)
		next := evalString(t, tab, `(document.querySelector('[data-testid=next]') || {}).textContent || ''`)
		assert.Contains(t, next, "To tell more, add:")
		assert.Contains(t, next, "kubectl describe pod NAME")
		assert.Equal(t, evalString(t, tab, `state.lastDiagnosis.result.report.next`), strings.TrimSpace(strings.TrimPrefix(next, "To tell more, add:")), "the page shows the engine's text whole")
	})

	t.Run("a syntax error has its line and column, marked in the editor", func(t *testing.T) {
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`setFiles([{name: 'cpu_manager_state', content: ''}], {quiet: true}); window.__marks = []`),
			paste("{\"policyName\": \"static\",\n \"defaultCpuSet\": ]\n}")))
		waitFor(t, tab, "the error's position", `[...document.querySelectorAll('[data-testid=finding] [data-testid=ref]')].some((a) => a.textContent === 'cpu_manager_state:2:19')`)
		marks := evalString(t, tab, `JSON.stringify(window.__marks[window.__marks.length - 1].filter((m) => m.severity === 'error').map((m) => [m.line, m.column, m.severity, typeof m.message]))`)
		assert.Equal(t, `[[2,19,"error","string"]]`, marks)
		require.NoError(t, chromedp.Do(tab, paste(`{}`)))
		waitFor(t, tab, "the marks cleared", `window.__marks.length > 0 && window.__marks[window.__marks.length - 1].every((m) => m.line !== 2)`)
	})

	t.Run("reflow at 320, 360 and 390 px on every example", func(t *testing.T) {
		ids := strings.Split(evalString(t, tab, `state.examples.map((e) => e.id).join(' ')`), " ")
		require.Greater(t, len(ids), 5)
		for _, id := range ids {
			loadExample(t, tab, id)
			waitFor(t, tab, "the simulator", `!document.querySelector('[data-testid=admit-result]').getAttribute('aria-busy')`)
			// a null handed to the DOM shows as the text "null"
			assert.Zero(t, evalInt(t, tab, `(() => { const w = document.createTreeWalker(document.querySelector('.result-pane'), NodeFilter.SHOW_TEXT); let n = 0; while (w.nextNode()) if (w.currentNode.data.trim() === 'null' && !w.currentNode.parentElement.closest('pre, code, .b')) n++; return n; })()`), "example %s: a text node \"null\" among the results, in %s", id, evalString(t, tab, `(() => { const w = document.createTreeWalker(document.querySelector('.result-pane'), NodeFilter.SHOW_TEXT); while (w.nextNode()) if (w.currentNode.data.trim() === 'null' && !w.currentNode.parentElement.closest('pre, code, .b')) return w.currentNode.parentElement.outerHTML.slice(0, 300); return ''; })()`))
			for _, w := range []int64{390, 360, 320} {
				require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(w, 800)))
				got := evalString(t, tab, `document.documentElement.scrollWidth + '/' + document.documentElement.clientWidth`)
				assert.Equal(t, fmt.Sprintf("%d/%d", w, w), got, "example %s at %d px: scrollWidth/clientWidth", id, w)
				if id == "troubleshooting-page" && w == 390 {
					shot(t, tab, "phone-390.png", "")
				}
			}
			require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)))
		}
	})
}

// readScenario reads a file of a diagnose scenario (diagnose/testdata).
func readScenario(t *testing.T, scenario, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "diagnose", "testdata", scenario, name))
	require.NoError(t, err)
	return string(b)
}
