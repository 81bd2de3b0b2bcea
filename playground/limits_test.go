package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageLimits are the page's limits (app.js), as the page has them.
type pageLimits struct {
	MaxFileBytes    int `json:"maxFileBytes"`
	MaxRequestBytes int `json:"maxRequestBytes"`
	MaxFiles        int `json:"maxFiles"`
	MaxTotalBytes   int `json:"maxTotalBytes"`
	ShownLines      int `json:"shownLines"`
	ShownChars      int `json:"shownChars"`
}

const readLimits = `({ maxFileBytes: MAX_FILE_BYTES, maxRequestBytes: MAX_REQUEST_BYTES, maxFiles: MAX_TABS,
  maxTotalBytes: MAX_TOTAL_BYTES, shownLines: SHOWN_LINES, shownChars: SHOWN_CHARS })`

// pageBytes is n as the page writes a size (app.js fmtBytes).
func pageBytes(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, units := float64(n)/1024, []string{"KiB", "MiB", "GiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", v, units[i])
}

// limitNoticeText is the visible banner about a share link's inputs that
// were not loaded, or "".
const limitNoticeText = `(() => { const e = document.querySelector('[data-testid=limit-notice]'); return e && !e.hidden && e.offsetParent !== null ? e.innerText : ''; })()`

// heldNoticeText is the visible notice of a tab shown in part, or "".
const heldNoticeText = `(() => { const e = document.querySelector('[data-testid=held-notice]'); return e && !e.hidden && e.offsetParent !== null ? e.innerText : ''; })()`

// probedPage is hostilePage with the freeze probe (limits_bench_test.go)
// installed before the page's scripts, so that its long tasks are kept.
func probedPage(t *testing.T, ctx context.Context, url string) (context.Context, time.Time) {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: freezeProbe})
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url)))
	t.Logf("the page loaded %s after the navigation started", time.Since(start).Round(time.Millisecond))
	return tab, start
}

// logLongTasks logs the page's longest task and the sum of its long tasks.
func logLongTasks(t *testing.T, tab context.Context, what string) {
	t.Helper()
	t.Logf("%s: longest task %s ms, long tasks %s ms in all", what,
		evalString(t, tab, `String(__long.reduce((m, x) => Math.max(m, x[1]), 0))`), evalString(t, tab, `String(__long.reduce((m, x) => m + x[1], 0))`))
}

// responsive clicks the theme button, another control than the one that
// took the input, and fails unless the page handles the click within
// outcomeWait: a budget that says the page is not frozen.
func responsive(t *testing.T, tab context.Context) {
	t.Helper()
	before := evalString(t, tab, `state.theme`)
	start := time.Now()
	ctx, cancel := context.WithTimeout(tab, outcomeWait)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=theme]"))), "the click on the theme button")
	ok, took := until(tab, start, `state.theme !== '`+before+`'`)
	t.Logf("a click on the theme button was handled %s after it was sent", took.Round(time.Millisecond))
	require.True(t, ok, "the page did not handle a click within %s", outcomeWait)
}

// runWait bounds the wait for an engine run over the largest inputs: the
// page's own limit of one run (app.js runTimeout, at most 120 s), after
// which it says the run was stopped. The engine works in its worker
// meanwhile; the page's own answers are bounded by outcomeWait.
const runWait = 130 * time.Second

// clipboardPaste puts text on the clipboard and pastes it into the input
// tab with Ctrl+V, and returns when the paste was sent.
func clipboardPaste(t *testing.T, tab context.Context, origin, text string) time.Time {
	t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.Call(tab, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin,
		})
		require.NoError(t, err)
	}
	require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText(`+jsString(text)+`)`, chromedp.EvalAwaitPromise)))
	require.NoError(t, chromedp.Do(tab, chromedp.Focus(chromedp.CSS("[data-testid=input]"))))
	start := time.Now()
	_, err := chromedp.Call(tab, input.DispatchKeyEvent, input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeKeyDown, Key: "v", Code: "KeyV", Modifiers: 2, WindowsVirtualKeyCode: 86, Commands: []string{"paste"},
	})
	require.NoError(t, err)
	return start
}

// waitRun waits for the end of a run that started after start, and fails
// unless it ended with an answer (not stopped by the page's time limit).
func waitRun(t *testing.T, tab context.Context, start time.Time, answer string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, runWait+5*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.body.dataset.runMs !== undefined && document.querySelector('[data-testid=result]').getAttribute('aria-busy') === 'false' && (`+answer+`)`,
		chromedp.WithPollingTimeout(runWait), chromedp.WithPollingInterval(100*time.Millisecond)))
	t.Logf("the run ended %s after it started", time.Since(start).Round(time.Millisecond))
	require.NoError(t, err, "no answer within %s: %s", runWait, evalString(t, tab, `document.querySelector('[data-testid=result]').innerText.slice(0, 300)`))
}

// TestLimitsInBrowser feeds the page inputs past its limits through every
// way in (a share link, a paste, opened files, the add button) and checks
// that the page says which limit and what was not loaded, loads what fits,
// and still answers a click; and that a tab too large to lay out is read
// whole but shown in part.
func TestLimitsInBrowser(t *testing.T) {
	exe := chromium(t)
	srv := httptest.NewServer(testSite(t).handler())
	defer srv.Close()
	proxy := &leakProxy{}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	psrv := &http.Server{Handler: proxy}
	go psrv.Serve(pln)
	defer psrv.Close()
	ctx := startBrowser(t, exe, pln.Addr().String(), 10*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	waitFor(t, ctx, "the engine to load", `document.body.dataset.engine === 'ready' && state.engineLimits`)
	lim, err := chromedp.Run(ctx, chromedp.Evaluate[pageLimits](readLimits))
	require.NoError(t, err)
	t.Logf("the page's limits: %+v", lim)
	// Two tabs that together stay just within the total, and a third that
	// takes them past it.
	half := lim.MaxTotalBytes/2 - 512<<10
	require.LessOrEqual(t, half, lim.MaxFileBytes)
	overTotal := 2 << 20

	t.Run("the page's limits are the engine's", func(t *testing.T) {
		engine, err := chromedp.Run(ctx, chromedp.Evaluate[pageLimits](`state.engineLimits`))
		require.NoError(t, err)
		assert.Equal(t, pageLimits{MaxFileBytes: lim.MaxFileBytes, MaxRequestBytes: lim.MaxRequestBytes, MaxFiles: lim.MaxFiles}, engine)
		assert.Less(t, lim.MaxTotalBytes, lim.MaxRequestBytes, "all tabs together fit one engine request")
	})

	t.Run("share link with 50,000 tabs", func(t *testing.T) {
		link := shareLink(t, smallTabs(50000))
		tab, start := probedPage(t, ctx, srv.URL+"/"+link)
		ok, took := until(tab, start, limitNoticeText+` !== ''`)
		t.Logf("the notice appeared %s after the navigation", took.Round(time.Millisecond))
		require.True(t, ok, "no notice about the tabs not loaded within %s", outcomeWait)
		msg := evalString(t, tab, limitNoticeText)
		t.Logf("notice: %s", msg)
		assert.Contains(t, msg, fmt.Sprintf("The link holds 50000 files; %d were loaded.", lim.MaxFiles))
		assert.Contains(t, msg, fmt.Sprintf("at most %d tabs: %d files, cpu_manager_state.%d, ", lim.MaxFiles, 50000-lim.MaxFiles, lim.MaxFiles), "the first file not loaded is named")
		assert.Contains(t, msg, fmt.Sprintf("and %d more", 50000-lim.MaxFiles-5))
		assert.Contains(t, msg, "numascope's diagnose")
		assert.Equal(t, lim.MaxFiles, evalInt(t, tab, `state.files.length`))
		assert.Equal(t, fmt.Sprintf("cpu_manager_state.%d", lim.MaxFiles-1), evalString(t, tab, `state.files[state.files.length - 1].name`), "the first tabs, in order")
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelectorAll('[data-testid=file-result]').length === `+fmt.Sprint(lim.MaxFiles))
		logLongTasks(t, tab, "50,000 tabs")
		responsive(t, tab)

		// The add button says the tabs are full instead of adding one.
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS("[data-testid=add-file]"))))
		waitFor(t, tab, "the tabs-full message", inputErrorText+`.includes('at most `+fmt.Sprint(lim.MaxFiles)+` tabs')`)
		assert.Equal(t, lim.MaxFiles, evalInt(t, tab, `state.files.length`))
	})

	t.Run("share link past the total", func(t *testing.T) {
		link := shareLink(t, [][2]string{
			{"a", strings.Repeat("a", half)}, {"b", strings.Repeat("b", half)}, {"c", strings.Repeat("c", overTotal)},
			{"cpu_manager_state", `{"policyName":"none","defaultCpuSet":"0-3","checksum":1}`},
		})
		tab, start := probedPage(t, ctx, srv.URL+"/"+link)
		ok, _ := until(tab, start, limitNoticeText+` !== ''`)
		require.True(t, ok, "no notice about the file not loaded within %s", outcomeWait)
		msg := evalString(t, tab, limitNoticeText)
		t.Logf("notice: %s", msg)
		assert.Contains(t, msg, "The link holds 4 files; 3 were loaded.")
		assert.Contains(t, msg, "limit of "+pageBytes(lim.MaxTotalBytes)+" for all tabs together: c ("+pageBytes(overTotal)+")")
		assert.Equal(t, "a b cpu_manager_state", evalString(t, tab, `state.files.map((f) => f.name).join(' ')`), "the files that fit, in order")
		// The first tab is one line of 11.5 MiB: shown in part.
		held := evalString(t, tab, heldNoticeText)
		assert.Contains(t, held, "a is "+pageBytes(half))
		assert.Contains(t, held, "read-only")
		assert.Equal(t, lim.ShownChars, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`))
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelectorAll('[data-testid=file-result]').length === 3`)
		logLongTasks(t, tab, "a link of two 11.5 MiB files and one past the total")
		responsive(t, tab)
	})

	t.Run("share link with a file past the limit for one", func(t *testing.T) {
		link := shareLink(t, [][2]string{{"big", strings.Repeat("z", lim.MaxFileBytes+1<<20)}, {"cpu_manager_state", `{"policyName":"none","defaultCpuSet":"0-3","checksum":1}`}})
		tab, start := probedPage(t, ctx, srv.URL+"/"+link)
		ok, _ := until(tab, start, limitNoticeText+` !== ''`)
		require.True(t, ok, "no notice about the file not loaded within %s", outcomeWait)
		msg := evalString(t, tab, limitNoticeText)
		assert.Contains(t, msg, "larger than the playground's limit of "+pageBytes(lim.MaxFileBytes)+" for one file: big ("+pageBytes(lim.MaxFileBytes+1<<20)+")")
		assert.Equal(t, "cpu_manager_state", evalString(t, tab, `state.files.map((f) => f.name).join(' ')`))
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelectorAll('[data-testid=file-result]').length === 1`)
		responsive(t, tab)
	})

	t.Run("share link with a pod spec past the field's limit", func(t *testing.T) {
		pod := "apiVersion: v1\nkind: Pod\n" + strings.Repeat("# padding\n", lim.ShownLines)
		link := deflateLink(t, []byte(fmt.Sprintf(`{"v":1,"f":[["cpu_manager_state","{}"]],"a":{"pod":%s}}`, jsString(pod))))
		tab, start := probedPage(t, ctx, srv.URL+"/"+link)
		ok, _ := until(tab, start, limitNoticeText+` !== ''`)
		require.True(t, ok, "no notice about the pod spec not loaded within %s", outcomeWait)
		msg := evalString(t, tab, limitNoticeText)
		assert.Contains(t, msg, fmt.Sprintf("The Pod spec in the link (%s, %d lines) was not loaded", pageBytes(len(pod)), lim.ShownLines+2))
		assert.Empty(t, evalString(t, tab, `document.querySelector('[data-testid=tm-pod]').value`))
		assert.Equal(t, "cpu_manager_state", evalString(t, tab, `state.files.map((f) => f.name).join(' ')`), "the files are loaded")
		responsive(t, tab)
	})

	t.Run("paste past the total", func(t *testing.T) {
		tab, start := probedPage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		for i, c := range []string{"a", "b"} {
			if i > 0 {
				require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS("[data-testid=add-file]"))))
			}
			require.NoError(t, chromedp.Do(tab, paste(strings.Repeat(c, half))))
			waitFor(t, tab, "the paste taken", fmt.Sprintf(`state.files[%d].content.length === %d`, i, half))
		}
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS("[data-testid=add-file]"))))
		require.NoError(t, chromedp.Do(tab, paste(strings.Repeat("c", overTotal))))
		ok, took := until(tab, start, inputErrorText+` !== ''`)
		require.True(t, ok, "no input error within %s", outcomeWait)
		msg := evalString(t, tab, inputErrorText)
		t.Logf("message after %s: %s", took.Round(time.Millisecond), msg)
		assert.Contains(t, msg, "file 3: with this text the tabs would hold "+pageBytes(2*half+overTotal))
		assert.Contains(t, msg, "limit of "+pageBytes(lim.MaxTotalBytes)+" for all tabs together, so it was not inserted")
		assert.Contains(t, msg, "numascope's diagnose")
		assert.Zero(t, evalInt(t, tab, `state.files[2].content.length + document.querySelector('[data-testid=input]').value.length`), "nothing of it is in the tab")

		// The same through the clipboard.
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=input-error]').hidden = true`)))
		clipboardPaste(t, tab, srv.URL, strings.Repeat("d", overTotal))
		waitFor(t, tab, "the message for the clipboard paste", inputErrorText+`.includes('for all tabs together')`)
		assert.Zero(t, evalInt(t, tab, `state.files[2].content.length`), "nothing of the clipboard is in the tab")

		// The page answers: the two tabs that fit are read, and a click on
		// the first tab shows it.
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelectorAll('[data-testid=file-result]').length === 2`)
		logLongTasks(t, tab, "two pastes of 11.5 MiB and one past the total")
		responsive(t, tab)
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS("#tab-0"))))
		waitFor(t, tab, "the first tab shown", `state.active === 0 && document.querySelector('[data-testid=input]').value.length === `+fmt.Sprint(lim.ShownChars))
	})

	t.Run("files opened past the total", func(t *testing.T) {
		dir := t.TempDir()
		var paths []string
		for _, f := range []struct {
			name string
			size int
		}{{"a", half}, {"b", half}, {"c", overTotal}} {
			p := filepath.Join(dir, f.name)
			require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(f.name, f.size)), 0o644))
			paths = append(paths, p)
		}
		tab, start := probedPage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(chromedp.CSS("[data-testid=open-files]"), paths)))
		ok, _ := until(tab, start, inputErrorText+` !== ''`)
		require.True(t, ok, "no input error within %s", outcomeWait)
		msg := evalString(t, tab, inputErrorText)
		assert.Contains(t, msg, "limit of "+pageBytes(lim.MaxTotalBytes)+" for all tabs together: c ("+pageBytes(overTotal)+")")
		assert.Equal(t, "a b", evalString(t, tab, `state.files.map((f) => f.name).join(' ')`))
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelectorAll('[data-testid=file-result]').length === 2`)
		responsive(t, tab)
	})

	t.Run("a paste too large to lay out is held", func(t *testing.T) {
		var b strings.Builder
		const lines = 50000
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "I1201 12:%02d:%02d.%06d    1234 kubelet.go:%d] \"SyncLoop (PLEG): event for pod\" pod=\"ml/trainer-%d\"\n", i/60%60, i%60, i, i%3000, i)
		}
		log := b.String()
		tab, _ := probedPage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		// A paste through the clipboard, as a person's: CDP's insertText of
		// many lines takes quadratic time in Chromium before the page sees it.
		start := clipboardPaste(t, tab, srv.URL, log)
		ok, took := until(tab, start, heldNoticeText+` !== ''`)
		require.True(t, ok, "no notice of the tab held within %s", outcomeWait)
		msg := evalString(t, tab, heldNoticeText)
		t.Logf("notice after %s: %s", took.Round(time.Millisecond), msg)
		assert.Contains(t, msg, fmt.Sprintf("file 1 is %s in %d lines", pageBytes(len(log)), lines))
		assert.Contains(t, msg, fmt.Sprintf("it shows the beginning (%d lines,", lim.ShownLines))
		assert.Contains(t, msg, "The whole file is read and judged")
		assert.Contains(t, msg, "numascope's inspect or diagnose command")
		assert.Equal(t, len(log), evalInt(t, tab, `state.files[0].content.length`), "the tab holds all of it")
		assert.Equal(t, lim.ShownLines, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.split('\n').length - 1`), "the text area shows the first lines")
		assert.Equal(t, 1, evalInt(t, tab, `document.querySelector('[data-testid=input]').readOnly ? 1 : 0`), "read-only")
		responsive(t, tab) // while the engine works
		waitRun(t, tab, start, `document.querySelector('[data-testid=file-result][data-kind=kubelet-log]')`)
		logLongTasks(t, tab, "a 50,000-line log")
		responsive(t, tab)

		// Removing the tab gives an empty, editable one.
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS("[data-testid=remove-file]"))))
		waitFor(t, tab, "an empty editable tab", `!document.querySelector('[data-testid=input]').readOnly && state.files[0].content === '' && `+heldNoticeText+` === ''`)
	})

	assert.Empty(t, proxy.requests(), "no request left localhost")
}
