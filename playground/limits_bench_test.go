package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// freezeProbe runs in every document before the page's scripts: it keeps
// every long task of the page's thread (window.__long, [start, duration] in
// ms since the navigation) and, frame by frame, when the first verdict, the
// first message about the inputs and the end of the first run were on the
// page (window.__seen, ms since the navigation), and the longest gap
// between two frames.
const freezeProbe = `(() => {
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) __long.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
  const seen = window.__seen = { verdict: 0, message: 0, run: 0, gap: 0 };
  const shown = (sel) => { const e = document.querySelector(sel); return !!e && !e.hidden && e.offsetParent !== null && e.textContent.trim() !== ''; };
  let last = 0;
  const frame = () => {
    const now = performance.now();
    if (last) seen.gap = Math.max(seen.gap, now - last);
    last = now;
    if (document.body) {
      if (!seen.verdict && document.querySelector('[data-testid=file-result]')) seen.verdict = now;
      if (!seen.message && (shown('[data-testid=share-error]') || shown('[data-testid=input-error]') || shown('[data-testid=limit-notice]'))) seen.message = now;
      if (!seen.run && document.body.dataset.runMs !== undefined) seen.run = now;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})()`

// loadFigures are what one load of the page cost, in ms since the
// navigation: the first verdict drawn, the first message about the inputs
// (a limit or a refused link), the end of the first run, the longest long
// task and the sum of all of them, the longest gap between frames, and how
// long the page took to answer a question after the outcome.
type loadFigures struct {
	Verdict  float64 `json:"verdict"`
	Message  float64 `json:"message"`
	Run      float64 `json:"run"`
	Gap      float64 `json:"gap"`
	Longest  float64 `json:"longest"`
	Blocked  float64 `json:"blocked"`
	Tabs     int     `json:"tabs"`
	Chars    int     `json:"chars"`
	Notice   string  `json:"notice"`
	AnswerMs float64 `json:"-"`
}

const readFigures = `(() => {
  const s = window.__seen, l = window.__long;
  const notice = [...document.querySelectorAll('[data-testid=share-error], [data-testid=input-error], [data-testid=limit-notice]')]
    .filter((e) => !e.hidden && e.offsetParent !== null).map((e) => e.innerText).join(' | ');
  return { verdict: s.verdict, message: s.message, run: s.run, gap: s.gap,
    longest: l.reduce((m, x) => Math.max(m, x[1]), 0), blocked: l.reduce((m, x) => m + x[1], 0),
    tabs: state.files.length, chars: state.files.reduce((n, f) => n + f.content.length, 0), notice: notice.slice(0, 400) };
})()`

// loadLink opens url (a share link) in a new tab with the freeze probe and
// waits for the outcome: the end of the first run, or a message about the
// inputs with no run under way, or wait.
func loadLink(tb testing.TB, ctx context.Context, url string, wait time.Duration) loadFigures {
	tb.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: freezeProbe})
	require.NoError(tb, err)
	require.NoError(tb, chromedp.Do(tab, chromedp.Navigate(url)))
	pollCtx, stop := context.WithTimeout(tab, wait+10*time.Second)
	defer stop()
	outcome := `window.__seen && document.body.dataset.engine === 'ready' && (__seen.run > 0 || (__seen.message > 0 && document.querySelector('[data-testid=result]').getAttribute('aria-busy') !== 'true'))`
	err = chromedp.Do(pollCtx, chromedp.Poll[chromedp.Void](outcome, chromedp.WithPollingTimeout(wait), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		tb.Logf("no outcome within %s: %v", wait, err)
	}
	// One more frame, then how long the page takes to answer.
	began := time.Now()
	_, err = chromedp.Run(tab, chromedp.Evaluate[bool](`new Promise((r) => requestAnimationFrame(() => r(true)))`, chromedp.EvalAwaitPromise))
	require.NoError(tb, err)
	answer := time.Since(began)
	f, err := chromedp.Run(tab, chromedp.Evaluate[loadFigures](readFigures))
	require.NoError(tb, err)
	f.AnswerMs = float64(answer.Microseconds()) / 1000
	return f
}

// shareLink is the share link fragment of files ([name, content] pairs), as
// the page writes it.
func shareLink(tb testing.TB, files [][2]string) string {
	tb.Helper()
	payload, err := json.Marshal(map[string]any{"v": 1, "f": files})
	require.NoError(tb, err)
	return deflateLink(tb, payload)
}

// memoryFiles is total bytes of valid memory_manager_state files, each of
// at most per bytes and each another (no cache answers for two of them).
func memoryFiles(tb testing.TB, total, per int) [][2]string {
	tb.Helper()
	var files [][2]string
	for i := 0; total > 0; i++ {
		size := min(per, total)
		n := size / 165
		text := bigMemoryState(tb, n)
		for len(text) > size && n > 8 {
			n = n * size / len(text) * 99 / 100
			text = bigMemoryState(tb, n)
		}
		files = append(files, [2]string{fmt.Sprintf("memory_manager_state.%d", i), validVariants(tb, text)(i)})
		total -= size
	}
	return files
}

// smallTabs is n tabs each with a small valid cpu_manager_state.
func smallTabs(n int) [][2]string {
	files := make([][2]string, n)
	for i := range files {
		files[i] = [2]string{fmt.Sprintf("cpu_manager_state.%d", i), `{"policyName":"none","defaultCpuSet":"0-3","checksum":` + fmt.Sprint(1000+i) + `}`}
	}
	return files
}

// kubeletLog is about size bytes of kubelet log lines, 150 characters each.
func kubeletLog(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "I1201 12:%02d:%02d.%06d    1234 kubelet.go:%d] \"SyncLoop (PLEG): event for pod\" pod=\"ml/trainer-%d\" event={\"ID\":\"%08x\",\"Type\":\"ContainerStarted\"}\n", i/60%60, i%60, i%1000000, i%3000, i, i)
	}
	return b.String()
}

// BenchmarkShareLinkLoad opens share links of growing size and tab count
// in headless Chromium and reports, in ms since the navigation, the first
// verdict drawn (verdict-ms), the first message about the inputs
// (message-ms), the end of the first run (run-ms), the longest task on the
// page's thread (longest-ms: how long the page was frozen at once), the sum
// of its long tasks (blocked-ms) and the longest gap between two frames
// (gap-ms). The page's limit of one run is lifted, so that a slow run is
// measured instead of stopped.
//
//	NUMASCOPE_REQUIRE_BROWSER=1 go -C playground test . -run '^$' -bench ShareLinkLoad -benchtime 1x
func BenchmarkShareLinkLoad(b *testing.B) {
	exe := chromium(b)
	srv := httptest.NewServer(testSite(b).handler())
	defer srv.Close()
	ctx := startBrowser(b, exe, "127.0.0.1:9", 60*time.Minute)
	require.NoError(b, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	for _, tc := range []struct {
		name  string
		files func() [][2]string
	}{
		{"memory-1MiB", func() [][2]string { return memoryFiles(b, 1<<20, 12<<20) }},
		{"memory-4MiB", func() [][2]string { return memoryFiles(b, 4<<20, 12<<20) }},
		{"memory-8MiB", func() [][2]string { return memoryFiles(b, 8<<20, 12<<20) }},
		{"memory-16MiB-2files", func() [][2]string { return memoryFiles(b, 16<<20, 8<<20) }},
		{"memory-22MB-2files", func() [][2]string { return memoryFiles(b, 22_000_000, 11_000_000) }},
		{"memory-24MiB-2files", func() [][2]string { return memoryFiles(b, 24<<20, 12<<20) }},
		{"filler-16MiB-2files", func() [][2]string {
			return [][2]string{{"a", strings.Repeat("x", 8<<20)}, {"b", strings.Repeat("y", 8<<20)}}
		}},
		{"lines-8MB", func() [][2]string { return [][2]string{{"a", strings.Repeat("xxxxxxxxx\n", 800000)}} }},
		{"log-5MB", func() [][2]string { return [][2]string{{"kubelet.log", kubeletLog(5 << 20)}} }},
		{"tabs-64", func() [][2]string { return smallTabs(64) }},
		{"tabs-100", func() [][2]string { return smallTabs(100) }},
		{"tabs-1000", func() [][2]string { return smallTabs(1000) }},
		{"tabs-10000", func() [][2]string { return smallTabs(10000) }},
		{"tabs-50000", func() [][2]string { return smallTabs(50000) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			files := tc.files()
			size := 0
			for _, f := range files {
				size += len(f[1])
			}
			link := shareLink(b, files)
			b.Logf("%d files, %d bytes, a link of %d characters", len(files), size, len(link))
			var verdict, message, run, longest, blocked, gap, answer float64
			for b.Loop() {
				f := loadLink(b, ctx, srv.URL+"/?timeout=600000"+link, 10*time.Minute)
				b.Logf("verdict %.0f, message %.0f, run %.0f, longest task %.0f, blocked %.0f, frame gap %.0f, answer after the outcome %.0f ms; %d tabs, %d chars; notice %q",
					f.Verdict, f.Message, f.Run, f.Longest, f.Blocked, f.Gap, f.AnswerMs, f.Tabs, f.Chars, f.Notice)
				verdict += f.Verdict
				message += f.Message
				run += f.Run
				longest += f.Longest
				blocked += f.Blocked
				gap += f.Gap
				answer += f.AnswerMs
			}
			n := float64(b.N)
			b.ReportMetric(verdict/n, "verdict-ms")
			b.ReportMetric(message/n, "message-ms")
			b.ReportMetric(run/n, "run-ms")
			b.ReportMetric(longest/n, "longest-ms")
			b.ReportMetric(blocked/n, "blocked-ms")
			b.ReportMetric(gap/n, "gap-ms")
			b.ReportMetric(answer/n, "answer-ms")
		})
	}
}

// textAreaLayout is run in the page: it sets the input tab's text area to
// text (straight, past the page's guards) and resolves with the
// milliseconds of the setting, of the layout it forces, and of the next
// frame, and then empties the text area again.
const textAreaLayout = `(text) => new Promise((resolve) => {
  const el = document.querySelector('#input');
  el.readOnly = false;
  el.value = '';
  el.scrollTop;
  requestAnimationFrame(() => setTimeout(() => {
    const t0 = performance.now();
    el.value = text;
    const t1 = performance.now();
    el.scrollTop; el.clientHeight;
    const t2 = performance.now();
    requestAnimationFrame(() => setTimeout(() => resolve([t1 - t0, t2 - t1, performance.now() - t2]), 0));
  }, 0));
})`

// BenchmarkTextArea measures what the page's thread spends on a text area
// that holds texts of growing line count and line length: setting its
// value, the layout that follows (layout-ms) and the next frame (frame-ms),
// and a keystroke typed at its end, to the page's input event
// (keystroke-ms). These are the figures behind the page's SHOWN_LINES and
// SHOWN_CHARS (app.js): the text area lays out all of its text at once.
//
//	NUMASCOPE_REQUIRE_BROWSER=1 go -C playground test . -run '^$' -bench TextArea -benchtime 3x
func BenchmarkTextArea(b *testing.B) {
	exe := chromium(b)
	srv := httptest.NewServer(testSite(b).handler())
	defer srv.Close()
	ctx := startBrowser(b, exe, "127.0.0.1:9", 60*time.Minute)
	require.NoError(b, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?timeout=600000")))
	require.NoError(b, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.body.dataset.engine === 'ready'`, chromedp.WithPollingTimeout(time.Minute))))
	for _, tc := range []struct{ lines, width int }{
		{1, 256 << 10}, {1, 512 << 10}, {1, 1 << 20}, {1, 4 << 20},
		{1000, 100}, {2000, 100}, {2000, 250}, {5000, 100}, {10000, 100}, {50000, 100},
		{2000, 10}, {10000, 10}, {100000, 10},
	} {
		b.Run(fmt.Sprintf("lines=%d/width=%d", tc.lines, tc.width), func(b *testing.B) {
			line := strings.Repeat("I1201 12:00:00.000000    1234 kubelet.go:1] ", 1+tc.width/44)[:tc.width-1] + "\n"
			text := strings.Repeat(line, tc.lines)
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(window.__text = %s, true)`, jsString(text))))
			require.NoError(b, err)
			var set, layout, frame, key float64
			for b.Loop() {
				r, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(`+textAreaLayout+`)(window.__text)`, chromedp.EvalAwaitPromise))
				require.NoError(b, err)
				set += r[0]
				layout += r[1]
				frame += r[2]
				// A keystroke at the end, to the input event.
				k, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise((resolve) => {
  const el = document.querySelector('#input');
  el.value = window.__text;
  el.focus();
  el.setSelectionRange(el.value.length, el.value.length);
  requestAnimationFrame(() => setTimeout(() => {
    const t0 = performance.now();
    el.addEventListener('input', () => requestAnimationFrame(() => resolve(performance.now() - t0)), { once: true });
    document.execCommand('insertText', false, 'x');
  }, 0));
})`, chromedp.EvalAwaitPromise))
				require.NoError(b, err)
				key += k
			}
			n := float64(b.N)
			b.ReportMetric(set/n, "set-ms")
			b.ReportMetric(layout/n, "layout-ms")
			b.ReportMetric(frame/n, "frame-ms")
			b.ReportMetric(key/n, "keystroke-ms")
			_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('#input').value = '', window.__text = '', true)`))
			require.NoError(b, err)
		})
	}
}
