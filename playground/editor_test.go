package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editorHarness is a page with only the stylesheets and the editor, for
// the reflow checks that must not depend on the rest of the page's layout.
const editorHarness = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'; style-src 'self'">
<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="editor.css">
<script src="editor.js" defer></script></head>
<body><main class="layout"><section class="pane">
<div class="drop"><textarea id="input" data-testid="input" rows="8"></textarea></div>
<form class="admit"><label class="field block"><span>Pod</span><textarea id="tm-pod" rows="4"></textarea></label></form>
</section></main></body></html>`

// startEditorPage serves the site (and the harness) and opens the page.
func startEditorPage(t *testing.T) (context.Context, string) {
	t.Helper()
	exe := chromium(t)
	s := testSite(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/editor-harness.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, editorHarness)
	})
	mux.Handle("/", s.handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	proxy := &leakProxy{}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	psrv := &http.Server{Handler: proxy}
	go psrv.Serve(pln)
	t.Cleanup(func() { psrv.Close() })
	t.Cleanup(func() { assert.Empty(t, proxy.requests(), "requests left localhost") })
	ctx := startBrowser(t, exe, pln.Addr().String(), 4*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	waitFor(t, ctx, "the engine to load", `document.body.dataset.engine === 'ready'`)
	return ctx, srv.URL
}

// ed is the expression of the editor around the textarea with that id.
func ed(id string) string {
	return fmt.Sprintf(`document.querySelector('.ed[data-editor-for=%s]')`, id)
}

// setValue sets a textarea's value as the page does when a tab changes.
func setValue(id, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById(%q).value = %s`, id, jsString(text)))
}

func evalJSON[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err)
	return v
}

// waitPage polls a predicate on a page that is not the playground's.
func waitPage(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	ok, took := until(ctx, time.Now(), predicate)
	require.True(t, ok, "waiting %s for %s", took, what)
}

// gutter is the line numbers the editor draws, in order.
func gutter(id string) string {
	return `[...` + ed(id) + `.querySelectorAll('.ed-n')].map((n) => Number(n.textContent))`
}

// spans lists the highlighted spans of a class with their text.
func spans(id, cls string) string {
	return `[...` + ed(id) + `.querySelectorAll('.ed-code .` + cls + `')].map((s) => s.textContent)`
}

func TestEditorInBrowser(t *testing.T) {
	ctx, base := startEditorPage(t)

	t.Run("line numbers follow the text, the page's tabs and typing", func(t *testing.T) {
		text := strings.TrimSuffix(strings.Repeat("line\n", 20), "\n")
		require.NoError(t, chromedp.Do(ctx, setValue("input", text)))
		waitFor(t, ctx, "20 line numbers", ed("input")+`.dataset.lines === '20' && `+ed("input")+`.querySelectorAll('.ed-n').length === 20`)
		want := make([]int, 20)
		for i := range want {
			want[i] = i + 1
		}
		assert.Empty(t, cmp.Diff(want, evalJSON[[]int](t, ctx, gutter("input"))))

		// A new tab: the page sets the value to "" and the gutter follows;
		// back on the first tab, the page sets its text again.
		require.NoError(t, chromedp.Do(ctx, paste(text)))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=add-file]"))))
		waitFor(t, ctx, "one line number in the new tab", ed("input")+`.dataset.lines === '1'`)
		assert.Empty(t, cmp.Diff([]int{1}, evalJSON[[]int](t, ctx, gutter("input"))))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-0"))))
		waitFor(t, ctx, "20 line numbers again", ed("input")+`.dataset.lines === '20'`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-1")), chromedp.Click(chromedp.CSS("[data-testid=remove-file]"))))
		waitFor(t, ctx, "one tab left", `document.querySelectorAll('[data-testid=tab]').length === 1`)

		// Typing: the textarea is still the input, and the page reads it.
		require.NoError(t, chromedp.Do(ctx, paste("")))
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#input"))))
		for _, k := range []string{"a", "b", "\r", "c"} {
			_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeChar, Text: k})
			require.NoError(t, err)
		}
		waitFor(t, ctx, "two typed lines", ed("input")+`.dataset.lines === '2'`)
		got := evalJSON[[]string](t, ctx, `[document.getElementById('input').value, document.activeElement.id]`)
		assert.Equal(t, []string{"ab\nc", "input"}, got, "value and focus after typing")
		assert.Empty(t, cmp.Diff([]int{1, 2}, evalJSON[[]int](t, ctx, gutter("input"))))
	})

	t.Run("highlighting by content", func(t *testing.T) {
		for _, tc := range []struct {
			name, text, lang string
			want             map[string][]string
		}{
			{"json", readTestdata(t, "memory_manager_state"), "json", map[string][]string{
				"k": {`"policyName"`, `"machineState"`}, "s": {`"Static"`}, "n": {"1"},
			}},
			{"yaml", "apiVersion: v1\nkind: Pod # a comment\nspec:\n  containers:\n  - name: app\n    resources: {limits: {cpu: 2}}\n", "yaml", map[string][]string{
				"k": {"apiVersion", "kind", "spec", "containers", "name", "resources", "limits", "cpu"}, "s": {"v1", "Pod", "app"}, "c": {"# a comment"}, "n": {"2"},
			}},
			{"klog and journal", "Dec 01 12:00:00 node1 kubelet[1234]: I1201 12:00:00.000000    1234 kubelet.go:2334] \"SyncLoop ADD\" pods=[\"ml/trainer-0\"]\n" +
				"W1201 12:00:01.000000    1234 cpu_manager.go:12] \"Failed\" count=3\n" +
				"E1201 12:00:02.000000    1234 topology_manager.go:212] \"Admit\" err=\"TopologyAffinityError\"\n", "log", map[string][]string{
				"lI": {"I"}, "lW": {"W"}, "lE": {"E", "err"}, "f": {"kubelet[1234]", "kubelet.go:2334", "cpu_manager.go:12", "topology_manager.go:212"},
				"s": {`"SyncLoop ADD"`, `"ml/trainer-0"`, `"Failed"`, `"Admit"`, `"TopologyAffinityError"`}, "n": {"3"},
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				require.NoError(t, chromedp.Do(ctx, paste(tc.text)))
				waitFor(t, ctx, "the language "+tc.lang, ed("input")+`.dataset.lang === '`+tc.lang+`' && `+ed("input")+`.querySelector('.ed-code span')`)
				for cls, want := range tc.want {
					got := evalJSON[[]string](t, ctx, spans("input", cls))
					for _, w := range want {
						assert.Contains(t, got, w, "spans of class %s", cls)
					}
				}
				// The drawn text is the textarea's text, line for line.
				drawn := evalJSON[string](t, ctx, `[...`+ed("input")+`.querySelectorAll('.ed-l')].map((l) => l.textContent === '\n' ? '' : l.textContent).join('\n')`)
				assert.Equal(t, strings.TrimSuffix(tc.text, "\n"), strings.TrimSuffix(drawn, "\n"))
			})
		}
	})

	t.Run("a long line gets spans only near the visible columns", func(t *testing.T) {
		// The kubelet writes its checkpoints as one line of JSON.
		var b strings.Builder
		b.WriteString(`{"policyName":"static","entries":{`)
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(&b, `"%08x-0000-4000-8000-%012x":{"c%d":"%d-%d"},`, i, i, i, i, i+3)
		}
		b.WriteString(`"last":{}},"checksum":12345}`)
		line := b.String()
		require.NoError(t, chromedp.Do(ctx, paste(line)))
		waitFor(t, ctx, "the long line", ed("input")+`.dataset.lines === '1' && `+ed("input")+`.querySelector('.ed-code .k')`)
		count := `` + ed("input") + `.querySelectorAll('.ed-code span').length`
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').scrollLeft = 0`)))
		waitFor(t, ctx, "the start of the line highlighted", `[...`+ed("input")+`.querySelectorAll('.ed-code .k')].some((s) => s.textContent === '"policyName"')`)
		near := evalInt(t, ctx, count)
		assert.Less(t, near, 1000, "spans drawn for a %d-character line", len(line))
		assert.Equal(t, line, evalString(t, ctx, ed("input")+`.querySelector('.ed-l').textContent`), "the whole line is drawn, as text where it is not highlighted")
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').scrollLeft = 1e9`)))
		waitFor(t, ctx, "the end of the line highlighted", `[...`+ed("input")+`.querySelectorAll('.ed-code .k')].some((s) => s.textContent === '"checksum"')`)
		t.Logf("a %d-character line: %d spans at the start, %d at the end", len(line), near, evalInt(t, ctx, count))
	})

	t.Run("marks on a line and a column, a jump, and clearing", func(t *testing.T) {
		text := "{\n  \"policyName\": \"static\",\n  \"defaultCpuSet\": \"0-3\",\n  \"checksum\": 12\n}"
		require.NoError(t, chromedp.Do(ctx, paste(text)))
		waitFor(t, ctx, "five lines", ed("input")+`.dataset.lines === '5'`)
		// The page's own run of the paste sends its marks when it ends:
		// the marks below are set after it, not raced by it.
		waitFor(t, ctx, "the page's run", `document.querySelector('[data-testid=result]').getAttribute('aria-busy') === 'false'`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').dispatchEvent(new CustomEvent('numascope:marks', { detail: [
  { line: 3, column: 20, severity: 'error', message: 'CPU 3 is not in the machine' },
  { line: 4, column: 0, severity: 'warning', message: 'checksum does not match' } ] }))`)))
		waitFor(t, ctx, "the marks", ed("input")+`.dataset.marks === '2'`)
		type mark struct {
			Gutter, Title, Token, Line4 string
			Items                       []string
		}
		read := `(() => { const e = ` + ed("input") + `; const g = e.querySelector('.ed-n[data-line="3"]'); const m = e.querySelectorAll('.ed-l')[2].querySelector('.ed-m');
  return { gutter: g.className, title: g.title, token: m ? m.className + ' ' + m.textContent : '', line4: e.querySelector('.ed-n[data-line="4"]').className,
    items: [...document.querySelectorAll('.ed-list[data-editor-for=input] button')].map((b) => b.textContent) }; })()`
		got := evalJSON[mark](t, ctx, read)
		want := mark{
			Gutter: "ed-n ed-error", Title: "error: CPU 3 is not in the machine", Token: `s ed-m ed-error "0-3"`, Line4: "ed-n ed-warning",
			Items: []string{"line 3, column 20 · error: CPU 3 is not in the machine", "line 4 · warning: checksum does not match"},
		}
		assert.Empty(t, cmp.Diff(want, got))

		// The list is made of buttons: a click (or Enter) puts the caret on the mark.
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".ed-list[data-editor-for=input] button"))))
		caret := evalJSON[[]any](t, ctx, `[document.activeElement.id, document.getElementById('input').selectionStart, document.querySelector('.ed-bar[data-editor-for=input] .ed-status').textContent]`)
		assert.Equal(t, []any{"input", float64(strings.Index(text, `"0-3"`)), "line 3, column 20 · error: CPU 3 is not in the machine"}, caret)
		// F8 goes on to the next problem.
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "F8", Code: "F8", WindowsVirtualKeyCode: 119})
		require.NoError(t, err)
		assert.Equal(t, strings.Index(text, `  "checksum"`), evalInt(t, ctx, `document.getElementById('input').selectionStart`), "F8 moves to line 4")

		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').dispatchEvent(new CustomEvent('numascope:marks', { detail: [] }))`)))
		waitFor(t, ctx, "no marks", ed("input")+`.dataset.marks === '0'`)
		left := evalJSON[[]int](t, ctx, `[`+ed("input")+`.querySelectorAll('.ed-m, .ed-n.ed-error, .ed-n.ed-warning').length, document.querySelector('.ed-list[data-editor-for=input]').hidden ? 0 : 1]`)
		assert.Equal(t, []int{0, 0}, left, "marks and the list are gone")

		// A mark past the end of a line and a line past the end of the text.
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').dispatchEvent(new CustomEvent('numascope:marks', { detail: [
  { line: 5, column: 9, message: 'unexpected end of JSON input' }, { line: 'x' }, null ] }))`)))
		waitFor(t, ctx, "one valid mark", ed("input")+`.dataset.marks === '1'`)
		assert.Equal(t, " ", evalString(t, ctx, ed("input")+`.querySelectorAll('.ed-l')[4].querySelector('.ed-m.ed-error').textContent`), "a mark past the end underlines a space after the line")
	})

	t.Run("format pretty-prints JSON and fires input", func(t *testing.T) {
		min := `{"policyName":"static","defaultCpuSet":"0-3","entries":{"uid":{"c":"4-7"}},"e":{},"l":[],"checksum":18446744073709551615}`
		require.NoError(t, chromedp.Do(ctx, paste(min)))
		waitFor(t, ctx, "the Format button", ed("input")+`.dataset.lines === '1' && !document.querySelector('.ed-bar[data-editor-for=input] .ed-format').disabled`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__inputs = 0; document.getElementById('input').addEventListener('input', () => window.__inputs++)`)))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".ed-bar[data-editor-for=input] .ed-format"))))
		want := "{\n  \"policyName\": \"static\",\n  \"defaultCpuSet\": \"0-3\",\n  \"entries\": {\n    \"uid\": {\n      \"c\": \"4-7\"\n    }\n  },\n  \"e\": {},\n  \"l\": [],\n  \"checksum\": 18446744073709551615\n}"
		got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#input")))
		require.NoError(t, err)
		assert.Equal(t, want, got, "the big number keeps every digit")
		assert.Equal(t, 1, evalInt(t, ctx, `window.__inputs`), "one input event")
		waitFor(t, ctx, "the formatted lines", ed("input")+`.dataset.lines === '`+fmt.Sprint(strings.Count(want, "\n")+1)+`'`)
		// Ctrl+Z takes the Format back.
		_, err = chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "z", Code: "KeyZ", Modifiers: 2, WindowsVirtualKeyCode: 90})
		require.NoError(t, err)
		waitFor(t, ctx, "one line again", ed("input")+`.dataset.lines === '1'`)
		got, err = chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#input")))
		require.NoError(t, err)
		assert.Equal(t, min, got, "undo restores the text")
		assert.Equal(t, 2, evalInt(t, ctx, `window.__inputs`), "the undo is an input too")
		// Not JSON: no Format button; broken JSON: a disabled one.
		require.NoError(t, chromedp.Do(ctx, paste("kind: Pod\n")))
		waitFor(t, ctx, "YAML", ed("input")+`.dataset.lang === 'yaml'`)
		assert.True(t, evalJSON[bool](t, ctx, `document.querySelector('.ed-bar[data-editor-for=input] .ed-format').hidden`), "hidden for YAML")
		require.NoError(t, chromedp.Do(ctx, paste(`{"a": 1,`)))
		waitFor(t, ctx, "broken JSON", ed("input")+`.dataset.lang === 'json'`)
		assert.True(t, evalJSON[bool](t, ctx, `document.querySelector('.ed-bar[data-editor-for=input] .ed-format').disabled`), "disabled for broken JSON")
	})

	t.Run("the admission text areas are editors too", func(t *testing.T) {
		for _, id := range []string{"tm-pod", "tm-hints"} {
			waitFor(t, ctx, id+" has an editor", ed(id)+` && `+ed(id)+`.contains(document.getElementById('`+id+`'))`)
			// The label still names the textarea alone.
			name := evalString(t, ctx, `document.getElementById('`+id+`').labels[0].textContent`)
			assert.NotContains(t, name, "Format", "the editor's buttons are outside the label of %s", id)
		}
		require.NoError(t, chromedp.Do(ctx, setValue("tm-hints", `{"numaNodes":[0,1],"providers":{"cpu":[{"affinity":[0],"preferred":true}]}}`)))
		waitFor(t, ctx, "hints highlighted", ed("tm-hints")+`.dataset.lang === 'json' && `+ed("tm-hints")+`.querySelector('.ed-code .k')`)
	})

	t.Run("themes keep the tokens readable", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, paste("{\"a\": \"b\", \"n\": 1, \"t\": true}\n")))
		waitFor(t, ctx, "JSON", ed("input")+`.dataset.lang === 'json' && `+ed("input")+`.querySelector('.ed-code .k')`)
		contrast := `(() => {
  const lum = (c) => { const v = c.match(/[\d.]+/g).slice(0, 3).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const e = ` + ed("input") + `, code = e.querySelector('.ed-code'), bg = getComputedStyle(e).backgroundColor, out = {};
  for (const cls of ['k', 's', 'n', 'b', 'p', 'c', 'f', 'a', 'lE', 'lW', 'lI', 'h', 't']) {
    const s = document.createElement('span'); s.className = cls; code.append(s);
    const a = lum(getComputedStyle(s).color), b = lum(bg); s.remove();
    out[cls] = Math.round((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) * 100) / 100;
  }
  return out; })()`
		for _, theme := range []string{"light", "dark"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`applyTheme('`+theme+`')`)))
			ratios := evalJSON[map[string]float64](t, ctx, contrast)
			t.Logf("%s theme: contrast of each token class on the editor's background: %v", theme, ratios)
			for cls, r := range ratios {
				assert.GreaterOrEqual(t, r, 4.5, "%s theme, class %s", theme, cls)
			}
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`applyTheme('auto')`)))
	})

	t.Run("a 5 MB paste is held, and a tab at the limit stays responsive", func(t *testing.T) {
		var b strings.Builder
		for i := 0; b.Len() < 5<<20; i++ {
			fmt.Fprintf(&b, "I1201 12:%02d:%02d.%06d    1234 kubelet.go:%d] \"SyncLoop (PLEG): event for pod\" pod=\"ml/trainer-%d\" event={\"ID\":\"%08x\",\"Type\":\"ContainerStarted\"}\n", i/60%60, i%60, i%1000000, i%3000, i, i)
		}
		big := b.String()
		// A real paste from the clipboard: CDP's insertText of a text with
		// many lines takes quadratic time in Chromium, with or without the
		// editor, which a person's paste does not.
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			_, err := chromedp.Call(ctx, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: base,
			})
			require.NoError(t, err)
		}
		clipPaste := func(text string) time.Duration {
			t.Helper()
			require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText(`+jsString(text)+`)`, chromedp.EvalAwaitPromise)))
			require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#input")), chromedp.Evaluate[chromedp.Void](`document.getElementById('input').select()`)))
			start := time.Now()
			_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: input.DispatchKeyEventTypeKeyDown, Key: "v", Code: "KeyV", Modifiers: 2, WindowsVirtualKeyCode: 86, Commands: []string{"paste"},
			})
			require.NoError(t, err)
			return time.Since(start)
		}
		// 34,000 lines are read whole and shown as their first lines, read-only.
		start := time.Now()
		pasted := clipPaste(big)
		waitFor(t, ctx, "the tab held", `document.getElementById('input').readOnly`)
		// The most the text area shows whole: the lines up to the page's cut.
		part := big[:evalInt(t, ctx, `shownCut(state.files[state.active].content)`)]
		lines := strings.Count(part, "\n") + 1 // the editor counts the empty line after the last newline
		require.Less(t, len(part), len(big))
		waitFor(t, ctx, "the first highlight", ed("input")+`.dataset.lines === '`+fmt.Sprint(lines)+`' && `+ed("input")+`.querySelector('.ed-code .lI')`)
		first := time.Since(start)
		assert.Equal(t, len(big), evalInt(t, ctx, `state.files[state.active].content.length`), "the tab holds the whole paste")
		assert.Equal(t, part, evalString(t, ctx, `document.getElementById('input').value`), "the text area shows its first lines")
		t.Logf("%d bytes, %d lines: held, %d lines shown; the paste took %s, the first highlight after %s", len(big), strings.Count(big, "\n"), lines-1, pasted.Round(time.Millisecond), first.Round(time.Millisecond))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=remove-file]"))))
		waitFor(t, ctx, "the held tab removed", `!document.getElementById('input').readOnly && !state.files.some((f) => f.content.length === `+fmt.Sprint(len(big))+`)`)

		// A tab of as much as the text area shows whole: editable.
		start = time.Now()
		pasted = clipPaste(part)
		waitFor(t, ctx, "the first highlight", ed("input")+`.dataset.lines === '`+fmt.Sprint(lines)+`' && `+ed("input")+`.querySelector('.ed-code .lI')`)
		first = time.Since(start)
		assert.Equal(t, 0, evalInt(t, ctx, `document.getElementById('input').readOnly ? 1 : 0`), "a tab at the limit is editable")
		drawn := evalInt(t, ctx, ed("input")+`.querySelectorAll('.ed-l').length`)
		assert.Less(t, drawn, 500, "only a window of lines is drawn")
		// Scrolling to the middle draws the lines there.
		mid := lines / 2
		t0 := time.Now()
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById('input').scrollTop = %d * 19`, mid))))
		waitFor(t, ctx, "the middle drawn", ed("input")+`.querySelector('.ed-n[data-line="`+fmt.Sprint(mid+5)+`"]') && `+ed("input")+`.querySelector('.ed-code .lI')`)
		scrolled := time.Since(t0)
		// A keystroke round trip while the page holds the text.
		t1 := time.Now()
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#input"))))
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeChar, Text: "x"})
		require.NoError(t, err)
		waitFor(t, ctx, "the keystroke", `document.getElementById('input').value.length === `+fmt.Sprint(len(part)+1))
		typed := time.Since(t1)
		render := evalString(t, ctx, ed("input")+`.dataset.renders + ' renders, the last took ' + `+ed("input")+`.dataset.ms + ' ms'`)
		t.Logf("%d bytes, %d lines: paste took %s, first highlight after %s, scroll to line %d drawn after %s, a keystroke after %s; %d lines drawn, %s",
			len(part), lines, pasted.Round(time.Millisecond), first.Round(time.Millisecond), mid, scrolled.Round(time.Millisecond), typed.Round(time.Millisecond), drawn, render)
		require.NoError(t, chromedp.Do(ctx, paste("")))
	})

	t.Run("reflow at phone widths", func(t *testing.T) {
		long := strings.Repeat(`{"policyName":"static","defaultCpuSet":"0-127","entries":{}}`, 20)
		for _, width := range []int64{390, 320} {
			tab, cancel := chromedp.NewContext(ctx)
			defer cancel()
			require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(width, 800), chromedp.Navigate(base+"/editor-harness.html")))
			waitPage(t, tab, "the harness editors", `document.querySelectorAll('.ed').length === 2`)
			require.NoError(t, chromedp.Do(tab, setValue("input", long), setValue("tm-pod", "spec:\n  containers:\n  - name: "+strings.Repeat("x", 300))))
			require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.getElementById('input').dispatchEvent(new CustomEvent('numascope:marks', { detail: [{ line: 1, column: 5, message: '`+strings.Repeat("a long message ", 20)+`' }] }))`)))
			waitPage(t, tab, "a mark", ed("input")+`.dataset.marks === '1' && `+ed("tm-pod")+`.dataset.lines === '3'`)
			sizes := evalJSON[[]int](t, tab, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
			assert.Equal(t, sizes[1], sizes[0], "at %d px the page scrolls sideways (scrollWidth %d, clientWidth %d)", width, sizes[0], sizes[1])
			inner := evalJSON[[]int](t, tab, `(() => { const ta = document.getElementById('input'); return [ta.scrollWidth > ta.clientWidth ? 1 : 0]; })()`)
			assert.Equal(t, []int{1}, inner, "the long line scrolls inside the editor")
		}
		// The page itself: the editor is no wider than its pane.
		tab, cancel := chromedp.NewContext(ctx)
		defer cancel()
		require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(390, 800), chromedp.Navigate(base+"/")))
		waitFor(t, tab, "the editors", `document.querySelectorAll('.ed').length === 3`)
		require.NoError(t, chromedp.Do(tab, setValue("input", long)))
		over := evalJSON[[]string](t, tab, `[...document.querySelectorAll('.ed, .ed-bar, .ed-list')].filter((e) => e.scrollWidth > e.clientWidth || e.getBoundingClientRect().width > e.parentElement.getBoundingClientRect().width + 0.5).map((e) => e.className + ' for ' + e.dataset.editorFor)`)
		assert.Empty(t, over, "editor parts wider than their container at 390 px")
		page := evalJSON[[]int](t, tab, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
		t.Logf("the whole page at 390 px: scrollWidth %d, clientWidth %d (the rest of the page's reflow is not the editor's)", page[0], page[1])
	})
}
