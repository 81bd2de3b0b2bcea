package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
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
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/statefile"
)

// outcomeWait bounds how long a hostile input may take to its outcome. It is
// an upper bound that says "the page did not freeze", not a speed target: the
// times each case took are logged.
const outcomeWait = 20 * time.Second

// deflateLink builds a share link fragment from a payload, as the page does:
// raw deflate, then unpadded base64url.
func deflateLink(t testing.TB, payload []byte) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	require.NoError(t, err)
	_, err = w.Write(payload)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return "#s=" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// bombPayload is a valid share document whose one file is n bytes of "A":
// it compresses about a thousand to one.
func bombPayload(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"f":[["cpu_manager_state","`)
	b.Write(bytes.Repeat([]byte("A"), n))
	b.WriteString(`"]]}`)
	return b.Bytes()
}

// bigMemoryState is a valid memory_manager_state (v3) with n container
// entries on 8 NUMA nodes, the size of a large node's file.
func bigMemoryState(t testing.TB, n int) string {
	t.Helper()
	s := &statefile.MemoryState{PolicyName: "Static", MachineState: map[int]*statefile.NUMANodeState{}, Entries: map[string]map[string][]statefile.Block{}}
	per := uint64(n / 8)
	for node := 0; node < 8; node++ {
		s.MachineState[node] = &statefile.NUMANodeState{NumberOfAssignments: int(per), Cells: []int{node}, MemoryMap: map[string]*statefile.MemoryTable{
			"memory":        {TotalMemSize: 256 << 30, SystemReserved: 1 << 30, Allocatable: 255 << 30, Reserved: per << 20, Free: 255<<30 - per<<20},
			"hugepages-2Mi": {},
			"hugepages-1Gi": {},
		}}
	}
	for i := 0; i < n; i++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/4, i/4)
		if s.Entries[pod] == nil {
			s.Entries[pod] = map[string][]statefile.Block{}
		}
		s.Entries[pod][fmt.Sprintf("container-%d", i%4)] = []statefile.Block{{NUMAAffinity: []int{i % 8}, Type: "memory", Size: 1 << 20}}
	}
	data, err := statefile.Encode(&statefile.File{Kind: statefile.KindMemory, Memory: s}, statefile.FormatV3)
	require.NoError(t, err)
	return string(data)
}

// hostilePage opens a new tab on url and returns it with the time the
// navigation started.
func hostilePage(t *testing.T, ctx context.Context, url string) (context.Context, time.Time) {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	start := time.Now()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url)))
	t.Logf("the page loaded %s after the navigation started", time.Since(start).Round(time.Millisecond))
	return tab, start
}

// until polls a predicate for at most outcomeWait and reports whether it
// became true, and after how long since start.
func until(ctx context.Context, start time.Time, predicate string) (bool, time.Duration) {
	// A frozen page never answers the poll: bound it from this side too.
	ctx, cancel := context.WithTimeout(ctx, outcomeWait+5*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(outcomeWait), chromedp.WithPollingInterval(50*time.Millisecond)))
	return err == nil, time.Since(start)
}

// evalString evaluates a JavaScript expression that yields a string.
func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	require.NoError(t, err)
	return v
}

func evalInt(t *testing.T, ctx context.Context, expr string) int {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
	require.NoError(t, err)
	return v
}

// shareErrorText is the visible share-link error, or "" when there is none.
const shareErrorText = `(() => { const e = document.querySelector('[data-testid=share-error]'); return e && !e.hidden && e.offsetParent !== null ? e.innerText : ''; })()`

// inputErrorText is the visible error of the input pane, or "" when there is none.
const inputErrorText = `(() => { const e = document.querySelector('[data-testid=input-error]'); return e && !e.hidden && e.offsetParent !== null ? e.innerText : ''; })()`

// usable checks that the page still answers after a hostile input: the
// engine is loaded and a pasted state file gets its NUMA view.
func usable(t *testing.T, tab context.Context, sample string) {
	t.Helper()
	waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
	require.NoError(t, chromedp.Do(tab, paste(sample)))
	waitFor(t, tab, "an answer to a pasted file", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
}

// TestHostileInputsInBrowser feeds the page the inputs that froze or blanked
// it: a deflate bomb in a share link, broken share links, a paste and a file
// over the size limit, and a large valid state file. Each must reach a
// visible outcome, and the page must stay usable.
func TestHostileInputsInBrowser(t *testing.T) {
	exe := chromium(t)
	s := testSite(t)
	srv := httptest.NewServer(s.handler())
	defer srv.Close()
	proxy := &leakProxy{}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	psrv := &http.Server{Handler: proxy}
	go psrv.Serve(pln)
	defer psrv.Close()
	ctx := startBrowser(t, exe, pln.Addr().String(), 5*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	waitFor(t, ctx, "the engine to load", `document.body.dataset.engine === 'ready'`)
	sample := readTestdata(t, "memory_manager_state")

	t.Run("deflate bomb share link", func(t *testing.T) {
		link := deflateLink(t, bombPayload(128<<20))
		t.Logf("the link's fragment is %d bytes and inflates to %d", len(link), 128<<20)
		tab, start := hostilePage(t, ctx, srv.URL+"/"+link)
		ok, took := until(tab, start, shareErrorText+` !== ''`)
		t.Logf("deflate bomb: outcome after %s", took.Round(time.Millisecond))
		require.True(t, ok, "no share-link error within %s", outcomeWait)
		msg := evalString(t, tab, shareErrorText)
		assert.Contains(t, msg, "more than")
		assert.Contains(t, msg, "paste the files")
		assert.Zero(t, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`), "nothing of the bomb reaches the text area")
		usable(t, tab, sample)
		assert.Equal(t, msg, evalString(t, tab, shareErrorText), "the error stays visible after the engine answers")
	})

	t.Run("broken share links", func(t *testing.T) {
		for _, tc := range []struct {
			name, frag, want string
		}{
			{"bad base64", "#s=@@not*base64@@", "not valid base64url"},
			{"bad deflate", "#s=" + base64.RawURLEncoding.EncodeToString([]byte{0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa}), "not valid deflate"},
			{"truncated deflate", deflateLink(t, []byte(`{"v":1,"f":[["a","b"]]}`))[:len("#s=")+8], "not valid deflate"},
			{"bad JSON", deflateLink(t, []byte(`{"v":1,"f":[[`)), "not valid JSON"},
			{"unknown version", deflateLink(t, []byte(`{"v":9,"f":[]}`)), "version 9"},
			{"files not a list", deflateLink(t, []byte(`{"v":1,"f":{"a":"b"}}`)), "list of files"},
			{"link too long", "#s=" + strings.Repeat("A", 3<<19), "longer than"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tab, start := hostilePage(t, ctx, srv.URL+"/"+tc.frag)
				ok, took := until(tab, start, shareErrorText+` !== ''`)
				t.Logf("%s: outcome after %s", tc.name, took.Round(time.Millisecond))
				require.True(t, ok, "no share-link error within %s", outcomeWait)
				msg := evalString(t, tab, shareErrorText)
				assert.Contains(t, msg, tc.want)
				assert.Contains(t, msg, "share link")
				usable(t, tab, sample)
				assert.Equal(t, msg, evalString(t, tab, shareErrorText), "the error stays visible after the engine answers")
			})
		}
	})

	t.Run("paste over the limit is refused", func(t *testing.T) {
		tab, _ := hostilePage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		big := strings.Repeat("x", maxTabBytes+1<<20)
		start := time.Now()
		require.NoError(t, chromedp.Do(tab, paste(big)))
		ok, took := until(tab, start, inputErrorText+` !== ''`)
		t.Logf("13 MiB inserted text: outcome after %s", took.Round(time.Millisecond))
		require.True(t, ok, "no input error within %s", outcomeWait)
		msg := evalString(t, tab, inputErrorText)
		assert.Contains(t, msg, "file 1", "the message names the tab")
		assert.Contains(t, msg, "12.00 MiB")
		assert.Zero(t, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`), "the text area stays empty")

		// A real paste through the clipboard, 50 MiB as in the report.
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			_, err := chromedp.Call(tab, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: srv.URL,
			})
			require.NoError(t, err)
		}
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText('y'.repeat(50 << 20))`, chromedp.EvalAwaitPromise)))
		require.NoError(t, chromedp.Do(tab, chromedp.Focus(chromedp.CSS("[data-testid=input]"))))
		start = time.Now()
		_, err := chromedp.Call(tab, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: input.DispatchKeyEventTypeKeyDown, Key: "v", Code: "KeyV", Modifiers: 2, WindowsVirtualKeyCode: 86, Commands: []string{"paste"},
		})
		require.NoError(t, err)
		ok, took = until(tab, start, inputErrorText+`.includes('50.00 MiB')`)
		t.Logf("50 MiB clipboard paste: outcome after %s", took.Round(time.Millisecond))
		require.True(t, ok, "no input error for the 50 MiB paste within %s", outcomeWait)
		assert.Zero(t, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`), "the text area stays empty")

		// The page still works: a normal paste replaces the error with an answer.
		require.NoError(t, chromedp.Do(tab, paste(sample)))
		waitFor(t, tab, "an answer to a pasted file", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
		assert.Empty(t, evalString(t, tab, inputErrorText), "a paste within the limit clears the error")
	})

	t.Run("file over the limit is refused", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "cpu_manager_state")
		require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("z"), maxTabBytes+1<<20), 0o644))
		tab, _ := hostilePage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		start := time.Now()
		require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(chromedp.CSS("[data-testid=open-files]"), []string{p})))
		ok, took := until(tab, start, inputErrorText+` !== ''`)
		t.Logf("13 MiB opened file: outcome after %s", took.Round(time.Millisecond))
		require.True(t, ok, "no input error within %s", outcomeWait)
		msg := evalString(t, tab, inputErrorText)
		assert.Contains(t, msg, "cpu_manager_state")
		assert.Contains(t, msg, "12.00 MiB")
		assert.Zero(t, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`), "the text area stays empty")
	})

	t.Run("gzip journal is decompressed, a gzip bomb refused", func(t *testing.T) {
		dir := t.TempDir()
		journal, err := filepath.Abs(filepath.Join("..", "diagnose", "testdata", "log-journal-json-gzip", "journal.json.gz"))
		require.NoError(t, err)
		// A bomb: 64 MiB of zeros gzip'd to about 64 KiB, twice over.
		var inner, outer bytes.Buffer
		zw := gzip.NewWriter(&inner)
		_, err = zw.Write(make([]byte, 64<<20))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		zw = gzip.NewWriter(&outer)
		_, err = zw.Write(inner.Bytes())
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		bomb := filepath.Join(dir, "kubelet.log.gz")
		require.NoError(t, os.WriteFile(bomb, outer.Bytes(), 0o644))

		tab, _ := hostilePage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(chromedp.CSS("[data-testid=open-files]"), []string{journal})))
		waitFor(t, tab, "the journal's finding", `document.querySelector('[data-testid=finding][data-code=TopologyAffinityError]')`)
		assert.Zero(t, evalInt(t, tab, `document.querySelectorAll('[data-testid=finding][data-code=EvidenceUnreadable]').length`), "the decompressed journal is read")

		tab, _ = hostilePage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		start := time.Now()
		require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(chromedp.CSS("[data-testid=open-files]"), []string{bomb})))
		ok, took := until(tab, start, inputErrorText+` !== ''`)
		t.Logf("gzip bomb (%d bytes, 64 MiB inside): outcome after %s", outer.Len(), took.Round(time.Millisecond))
		require.True(t, ok, "no input error within %s", outcomeWait)
		msg := evalString(t, tab, inputErrorText)
		assert.Contains(t, msg, "kubelet.log.gz")
		assert.Contains(t, msg, "unpacks to more than")
		assert.Zero(t, evalInt(t, tab, `document.querySelector('[data-testid=input]').value.length`), "the text area stays empty")
	})

	t.Run("large valid state file", func(t *testing.T) {
		big := bigMemoryState(t, 10000)
		t.Logf("the memory_manager_state is %d bytes", len(big))
		tab, _ := hostilePage(t, ctx, srv.URL+"/")
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		require.NoError(t, chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`window.__long = []; new PerformanceObserver((l) => l.getEntries().forEach((e) => __long.push([Math.round(e.startTime), Math.round(e.duration)]))).observe({ entryTypes: ['longtask'] })`)))
		start := time.Now()
		require.NoError(t, chromedp.Do(tab, paste(big)))
		t.Logf("the text area took the %d bytes in %s", len(big), time.Since(start).Round(time.Millisecond))
		// Keystrokes while the engine works: each one must not start a run of its own.
		for i := 0; i < 5; i++ {
			_, err := chromedp.Call(tab, input.InsertText, input.InsertTextParams{Text: " "})
			require.NoError(t, err)
		}
		answer := `document.querySelector('[data-testid=file-result][data-kind=memory]')`
		timeout := `[...document.querySelectorAll('[data-testid=result] [data-testid=error]')].some((e) => e.innerText.includes('stopped'))`
		ok, took := until(tab, start, answer+` || `+timeout)
		t.Logf("10,000-container memory file: outcome after %s", took.Round(time.Millisecond))
		require.True(t, ok, "neither an answer nor a timeout message within %s", outcomeWait)
		var outcome struct {
			Answer   bool   `json:"answer"`
			Runs     string `json:"runs"`
			RunMs    string `json:"runMs"`
			Inspect  string `json:"inspectMs"`
			Findings string `json:"findings"`
			Text     string `json:"text"`
		}
		raw := evalString(t, tab, `JSON.stringify({answer: !!`+answer+`, runs: document.body.dataset.runs || '', runMs: document.body.dataset.runMs || '', inspectMs: document.body.dataset.inspectMs || '', findings: document.querySelector('[data-testid=findings]').innerText.slice(0, 200), text: document.querySelector('[data-testid=result]').innerText.slice(0, 400)})`)
		require.NoError(t, json.Unmarshal([]byte(raw), &outcome))
		t.Logf("outcome: answer=%v, engine runs=%s, the last run took %s ms from its start to the drawn answer (inspect %s ms): %.80q; findings: %.120q",
			outcome.Answer, outcome.Runs, outcome.RunMs, outcome.Inspect, outcome.Text, outcome.Findings)
		t.Logf("long tasks [start ms, duration ms]: %s", evalString(t, tab, `JSON.stringify(window.__long)`))
		assert.LessOrEqual(t, evalInt(t, tab, `Number(document.body.dataset.runs) || 0`), 2, "six edits in a row start at most two runs")
		assert.NotEmpty(t, strings.TrimSpace(outcome.Text))
	})

	assert.Empty(t, proxy.requests(), "no request left localhost")
}
