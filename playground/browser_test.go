package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
)

var screenshots = flag.String("screenshots", "", "write screenshots of the main views to `DIR` (for the README)")

// chromium finds the browser for the browser tests. Under
// NUMASCOPE_REQUIRE_BROWSER (set by CI) a missing browser fails the test;
// otherwise the tests skip, and they also skip under -short.
func chromium(t testing.TB) string {
	t.Helper()
	required := os.Getenv("NUMASCOPE_REQUIRE_BROWSER") != ""
	path := findChromium([]string{os.Getenv("NUMASCOPE_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "headless-shell"})
	switch browserDecision(testing.Short(), required, path != "") {
	case skipShort:
		t.Skip("browser tests skip under -short; set NUMASCOPE_REQUIRE_BROWSER=1 to run them")
	case failMissing:
		t.Fatal("NUMASCOPE_REQUIRE_BROWSER is set but no Chromium was found (install Debian's chromium, or set NUMASCOPE_CHROMIUM)")
	case skipMissing:
		t.Skip("no Chromium found; install Debian's chromium to run the browser tests")
	}
	return path
}

type decision int

const (
	runBrowser decision = iota
	skipShort
	skipMissing
	failMissing
)

// browserDecision says whether the browser tests run: under
// NUMASCOPE_REQUIRE_BROWSER (CI) always, and a missing browser fails them.
func browserDecision(short, required, found bool) decision {
	switch {
	case short && !required:
		return skipShort
	case !found && required:
		return failMissing
	case !found:
		return skipMissing
	}
	return runBrowser
}

func findChromium(candidates []string) string {
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

func TestBrowserDecision(t *testing.T) {
	for _, tc := range []struct {
		short, required, found bool
		want                   decision
	}{
		{false, false, true, runBrowser},
		{false, true, true, runBrowser},
		{true, true, true, runBrowser},
		{true, false, true, skipShort},
		{true, false, false, skipShort},
		{false, false, false, skipMissing},
		{false, true, false, failMissing},
		{true, true, false, failMissing},
	} {
		if got := browserDecision(tc.short, tc.required, tc.found); got != tc.want {
			t.Errorf("browserDecision(short=%v, required=%v, found=%v) = %v, want %v", tc.short, tc.required, tc.found, got, tc.want)
		}
	}
	if findChromium([]string{"", "/nonexistent/chromium"}) != "" {
		t.Error("findChromium found a browser that does not exist")
	}
}

var (
	siteOnce sync.Once
	siteVal  *site
	siteErr  error
)

func testSite(t testing.TB) *site {
	t.Helper()
	siteOnce.Do(func() {
		// A cold build runs wasm-opt (minutes on a busy machine) and brotli; both
		// are cached by input hash, so later runs take seconds.
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		siteVal, siteErr = buildSite(ctx)
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteVal
}

// leakProxy is the browser's proxy: Chromium sends every request that is not
// for a loopback address through it, so any request it sees left localhost.
type leakProxy struct {
	mu   sync.Mutex
	seen []string
}

func (p *leakProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.seen = append(p.seen, r.Method+" "+r.Host+r.URL.String())
	p.mu.Unlock()
	http.Error(w, "numascope test: requests must not leave localhost", http.StatusForbidden)
}

func (p *leakProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

type view struct {
	Engine string `json:"engine"`
	Groups []struct {
		Nodes string `json:"nodes"`
		Label string `json:"label"`
		Free  string `json:"free"`
		Total string `json:"total"`
	} `json:"groups"`
	Nodes    []string `json:"nodes"`
	Verdicts []struct {
		Accepts string `json:"accepts"`
		Valid   string `json:"valid"`
		Text    string `json:"text"`
	} `json:"verdicts"`
	Errors   []string `json:"errors"`
	Result   string   `json:"result"`
	Findings string   `json:"findings"`
	NUMA     string   `json:"numa"`
	Share    string   `json:"share"`
	Admit    string   `json:"admit"`
}

const readView = `(() => {
  const q = (s) => document.querySelector(s);
  const all = (s) => [...document.querySelectorAll(s)];
  const cell = (g, res, col) => { const d = g.querySelector('[data-testid=group-sum] tr[data-resource="' + res + '"] td[data-col=' + col + '] data'); return d ? d.value : ''; };
  return {
    engine: document.body.dataset.engine || '',
    groups: all('[data-testid=numa-group]').map((g) => ({ nodes: g.dataset.nodes, label: g.querySelector('h4').textContent, free: cell(g, 'memory', 'free'), total: cell(g, 'memory', 'total') })),
    nodes: all('[data-testid=numa-node]').map((n) => n.dataset.node),
    verdicts: all('[data-testid=checksum-verdict]').map((v) => ({ accepts: v.dataset.accepts, valid: v.dataset.valid, text: v.textContent })),
    errors: all('[data-testid=error]').map((e) => e.textContent),
    result: q('[data-testid=result]').innerText,
    findings: q('[data-testid=findings]').innerText,
    numa: q('[data-testid=numa-groups]').innerText,
    share: q('[data-testid=share-link]').href,
    admit: q('[data-testid=admit-result]').innerText,
  };
})()`

// paste replaces the main text area's content the way a paste does: the
// browser inserts the text and fires the input events.
func paste(text string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if err := chromedp.Do(ctx,
			chromedp.Focus(chromedp.CSS("[data-testid=input]")),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=input]').select()`),
		); err != nil {
			return chromedp.Void{}, err
		}
		if text == "" {
			_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Delete", Code: "Delete", WindowsVirtualKeyCode: 46})
			return chromedp.Void{}, err
		}
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return chromedp.Void{}, err
	}
}

// selectOption chooses an option of a select element as a person does,
// firing the change event.
func selectOption(selector, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const s = document.querySelector(%q);
  if (![...s.options].some((o) => o.value === %q)) throw new Error('no option ' + %q + ' in ' + %q);
  s.value = %q;
  s.dispatchEvent(new Event('change', { bubbles: true }));
})()`, selector, value, value, selector, value))
}

// findingsIdle is true unless the page has drawn a run's verdicts and is
// still diagnosing: what the tests read is a whole run's answer.
const findingsIdle = `document.querySelector('[data-testid=findings]').getAttribute('aria-busy') !== 'true'`

// waitFor polls a JavaScript predicate and fails the test with the page's
// view when it does not become true in time, with the findings drawn.
func waitFor(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void]("Promise.resolve("+predicate+").then((v) => v && "+findingsIdle+")", chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		v, _ := chromedp.Run(ctx, chromedp.Evaluate[view](readView))
		t.Fatalf("waiting for %s: %v\npage: %+v", what, err, v)
	}
}

func getView(t *testing.T, ctx context.Context) view {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[view](readView))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// shot saves a screenshot of the viewport, scrolled so that the element
// scrollTo is at the top, when -screenshots is set.
func shot(t *testing.T, ctx context.Context, name, scrollTo string) {
	t.Helper()
	if *screenshots == "" {
		return
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const el = %q ? document.querySelector(%[1]q) : null;
  if (el) el.scrollIntoView({ block: 'start' }); else window.scrollTo(0, 0);
  document.activeElement && document.activeElement.blur();
})()`, scrollTo)), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(*screenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startBrowser starts headless Chromium with every background service off and
// every request that is not for a loopback address sent to proxyAddr. The
// returned context ends after limit and when the test ends.
func startBrowser(t testing.TB, exe, proxyAddr string, limit time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,OptimizationGuideModelDownloading,AutofillServerCommunication,"+
			"MediaRouter,DialMediaRouteProvider,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,"+
			"InterestFeedContentSuggestions,PrivacySandboxSettings4,AccountConsistency,SigninInterceptBubbleV2,"+
			"AimEnabled,AimServerEligibilityEnabled,AimServerRequestOnStartupEnabled,PreconnectToSearch,PreconnectFromKeyedService"),
		chromedp.Flag("variations-server-url", "http://127.0.0.1:9/"),
		chromedp.Flag("allow-browser-signin", "false"),
		chromedp.Flag("gaia-url", "http://127.0.0.1:9/"),
		// Chromium checks in with GCM even with background networking off.
		chromedp.Flag("gcm-checkin-url", "http://127.0.0.1:9/"),
		chromedp.Flag("gcm-mcs-endpoint", "http://127.0.0.1:9/"),
		chromedp.Flag("gcm-registration-url", "http://127.0.0.1:9/"),
		chromedp.Flag("disable-component-extensions-with-background-pages", true),
		chromedp.Flag("component-updater", "disable-background-downloads,disable-delta-updates,url-source=http://127.0.0.1:9/"),
		chromedp.Flag("proxy-server", "http://"+proxyAddr),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
		chromedp.Flag("lang", "en-US"),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, limit)
	t.Cleanup(cancelTimeout)
	return ctx
}

// TestPlaygroundInBrowser drives the page in headless Chromium: one browser
// and one server for every step, and at the end a check that no request
// left localhost.
func TestPlaygroundInBrowser(t *testing.T) {
	exe := chromium(t)
	s := testSite(t)

	srv := httptest.NewServer(s.handler()) // listens on 127.0.0.1
	defer srv.Close()

	proxy := &leakProxy{}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	psrv := &http.Server{Handler: proxy}
	go psrv.Serve(pln)
	defer psrv.Close()

	ctx := startBrowser(t, exe, pln.Addr().String(), 3*time.Minute)

	// Every request the page itself makes, to check they all stay on the server.
	var mu sync.Mutex
	var pageRequests []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			pageRequests = append(pageRequests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the engine to load", `document.body.dataset.engine === 'ready'`)
	t.Logf("engine ready %s after navigation", time.Since(start).Round(time.Millisecond))

	sample := readTestdata(t, "memory_manager_state")

	t.Run("troubleshooting sample shows group [0 1] and the checksum verdict", func(t *testing.T) {
		if err := chromedp.Do(ctx, paste(sample)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the group [0 1]", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
		v := getView(t, ctx)
		var found bool
		for _, g := range v.Groups {
			if g.Nodes != "0 1" {
				continue
			}
			found = true
			// Node 0 has 0 bytes free and node 1 has 103739236352: the group sums them.
			if g.Free != "103739236352" {
				t.Errorf("group [0 1] free memory = %q, want 103739236352 (0 + 103739236352)", g.Free)
			}
			if g.Total != "270274076672" {
				t.Errorf("group [0 1] total memory = %q, want 270274076672", g.Total)
			}
			if !strings.Contains(g.Label, "[0 1]") {
				t.Errorf("group label %q does not name [0 1]", g.Label)
			}
		}
		if !found {
			t.Fatalf("no group [0 1] in %+v", v.Groups)
		}
		if len(v.Verdicts) != 1 || !strings.Contains(v.Verdicts[0].Text, "Checksum") {
			t.Fatalf("want one checksum verdict, got %+v", v.Verdicts)
		}
		if !strings.Contains(v.NUMA, "96.61 GiB") {
			t.Errorf("the NUMA view does not show the group's free memory as 96.61 GiB:\n%s", v.NUMA)
		}
		shot(t, ctx, "memory-groups.png", "#result-heading")
	})

	t.Run("share link reproduces the view", func(t *testing.T) {
		// The link is rebuilt after each change; wait until it holds the current inputs.
		waitFor(t, ctx, "the share link", `(async () => document.querySelector('[data-testid=share-link]').href === location.href.split('#')[0] + await encodeShare(shareState()))()`)
		before := getView(t, ctx)
		u, err := url.Parse(before.Share)
		if err != nil {
			t.Fatal(err)
		}
		if u.Host != strings.TrimPrefix(srv.URL, "http://") || u.RawQuery != "" {
			t.Errorf("share link %q must point at this page and keep its data in the fragment only", before.Share)
		}
		// A fresh tab, as a person who receives the link would open it.
		tab, cancelTab := chromedp.NewContext(ctx)
		defer cancelTab()
		if err := chromedp.Do(tab, chromedp.Navigate(before.Share)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the shared view", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
		after := getView(t, tab)
		type shown struct{ Result, NUMA, Findings string }
		if d := cmp.Diff(shown{before.Result, before.NUMA, before.Findings}, shown{after.Result, after.NUMA, after.Findings}); d != "" {
			t.Errorf("the shared view differs (-pasted +shared):\n%s", d)
		}
		in, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS("[data-testid=input]")))
		if err != nil {
			t.Fatal(err)
		}
		if in != sample {
			t.Errorf("the shared input differs from the pasted one")
		}
	})

	t.Run("the kubelet release select gives that release's verdict", func(t *testing.T) {
		dra, err := os.ReadFile(filepath.Join("..", "statefile", "testdata", "kubelet", "dra", "legacy-v1.30.0-dra-spew-handles-0.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, paste(string(dra))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the newest kubelet to refuse the 1.30 DRA file", `document.querySelector('[data-testid=file-result][data-kind=dra] [data-testid=checksum-verdict][data-accepts=false]')`)
		if err := chromedp.Do(ctx, selectOption("#kubelet-version", "1.30")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "kubelet 1.30 to accept it", `document.querySelector('[data-testid=file-result][data-kind=dra] [data-testid=checksum-verdict][data-accepts=true]')`)
		waitFor(t, ctx, "the share link to carry the release", `shareState().k === '1.30'`)
		if err := chromedp.Do(ctx, selectOption("#kubelet-version", "")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the newest kubelet again", `document.querySelector('[data-testid=file-result][data-kind=dra] [data-testid=checksum-verdict][data-accepts=false]')`)
	})

	t.Run("corrupt CPU state is refused and explained", func(t *testing.T) {
		if err := chromedp.Do(ctx, paste(readTestdata(t, "cpu_manager_state_corrupt"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the CPU verdict", `document.querySelector('[data-testid=file-result][data-kind=cpu] [data-testid=checksum-verdict]')`)
		v := getView(t, ctx)
		if len(v.Verdicts) != 1 {
			t.Fatalf("verdicts: %+v", v.Verdicts)
		}
		vd := v.Verdicts[0]
		if vd.Accepts != "false" || vd.Valid != "false" {
			t.Errorf("a corrupt CPU state must be refused: %+v", vd)
		}
		for _, want := range []string{"mismatch", "1234567890", "refuse"} {
			if !strings.Contains(vd.Text, want) {
				t.Errorf("the verdict %q does not mention %q", vd.Text, want)
			}
		}
		if !strings.Contains(strings.ToLower(v.Findings), "checksum") {
			t.Errorf("the findings do not explain the checksum problem:\n%s", v.Findings)
		}
		shot(t, ctx, "corrupt-cpu.png", "")
	})

	t.Run("malformed input shows an error and the page keeps working", func(t *testing.T) {
		if err := chromedp.Do(ctx, paste(`{"policyName": "static", "defaultCpuSet": `)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "an error", `[...document.querySelectorAll('[data-testid=result] [data-testid=error]')].some((e) => e.innerText.includes('not valid JSON'))`)
		v := getView(t, ctx)
		if len(v.Groups) != 0 {
			t.Errorf("a malformed input must not leave a NUMA view: %+v", v.Groups)
		}
		if err := chromedp.Do(ctx, paste(sample)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the page to recover", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
	})

	t.Run("several files opened at once, one tab each, keyboard tabs", func(t *testing.T) {
		tab, cancelTab := chromedp.NewContext(ctx)
		defer cancelTab()
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		files := []string{filepath.Join("testdata", "memory_manager_state"), filepath.Join("testdata", "cpu_manager_state_corrupt")}
		for i := range files {
			abs, err := filepath.Abs(files[i])
			if err != nil {
				t.Fatal(err)
			}
			files[i] = abs
		}
		if err := chromedp.Do(tab, chromedp.SetUploadFiles(chromedp.CSS("[data-testid=open-files]"), files)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "two results", `document.querySelectorAll('[data-testid=file-result]').length === 2 && document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
		names, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=tab]')].map((t) => t.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 2 || names[0] != "memory_manager_state" || names[1] != "cpu_manager_state_corrupt" {
			t.Errorf("tabs %q, want the two file names", names)
		}
		// The tabs follow the ARIA pattern: arrow keys move between them.
		if err := chromedp.Do(tab, chromedp.Focus(chromedp.CSS("#tab-0")), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the second tab selected and focused", `document.activeElement.id === 'tab-1' && document.querySelector('#tab-1').getAttribute('aria-selected') === 'true' && document.querySelector('[data-testid=input]').value.includes('1234567890')`)
	})

	t.Run("PodResources answer shows devices per NUMA node", func(t *testing.T) {
		if err := chromedp.Do(ctx, paste(readTestdata(t, "podresources.json"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the PodResources view", `document.querySelector('[data-testid=file-result][data-kind=podresources]') && document.querySelector('[data-testid=numa-node][data-node="0"]')`)
		v := getView(t, ctx)
		if !strings.Contains(v.NUMA, "gpu0") {
			t.Errorf("NUMA node 0 does not show gpu0:\n%s", v.NUMA)
		}
		pods, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("[data-testid=pods]")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pods, "default/web") || !strings.Contains(pods, "2-3") {
			t.Errorf("the pods table lacks default/web with CPUs 2-3:\n%s", pods)
		}
		shot(t, ctx, "podresources.png", "#numa-heading")
	})

	t.Run("examples menu and admission simulator", func(t *testing.T) {
		if err := chromedp.Do(ctx, selectOption("#examples", "single-numa-node-rejection")); err != nil {
			t.Fatal(err)
		}
		// The simulator answered for the default hints before; wait for the example's answer.
		waitFor(t, ctx, "the example's admission result", `document.querySelector('#tm-policy').value === 'single-numa-node' && document.querySelector('[data-testid=admit-result] [data-admit=false]')`)
		v := getView(t, ctx)
		if !strings.Contains(v.Admit, "TopologyAffinityError") {
			t.Errorf("single-numa-node with CPUs on node 0 and memory on node 1 must be rejected; got %q", v.Admit)
		}
		admit, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("[data-testid=admit-result] [data-admit]"), "data-admit"))
		if err != nil || !admit.Exists || admit.Value != "false" {
			t.Errorf("data-admit = %+v (%v), want false", admit, err)
		}
		// Switching the policy to best-effort admits the same pod.
		if err := chromedp.Do(ctx, selectOption("#tm-policy", "best-effort")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "best-effort to admit", `document.querySelector('[data-testid=admit-result] [data-admit=true]')`)
		shot(t, ctx, "admission.png", "#admit-heading")
	})

	t.Run("pod admission simulated on pasted state and machine info", func(t *testing.T) {
		tab, cancelTab := chromedp.NewContext(ctx)
		defer cancelTab()
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		node := func(name string) string {
			b, err := os.ReadFile(filepath.Join("..", "wasm", "internal", "api", "examples", "scenarios", "simulate", name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		for i, name := range []string{"machine-info.json", "cpu_manager_state", "memory_manager_state"} {
			if i > 0 {
				// Click through the DOM, not at coordinates: results rendering
				// for the previous tab can move the button under a mouse click.
				if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=add-file]').click()`)); err != nil {
					t.Fatal(err)
				}
				waitFor(t, tab, "a new tab", fmt.Sprintf(`document.querySelectorAll('[data-testid=tab]').length === %d`, i+1))
			}
			if err := chromedp.Do(tab, paste(node(name))); err != nil {
				t.Fatal(err)
			}
		}
		if err := chromedp.Do(tab, selectOption("#tm-policy", "single-numa-node"),
			chromedp.Focus(chromedp.CSS("[data-testid=tm-pod]"))); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(tab, input.InsertText, input.InsertTextParams{Text: node("pod.yaml")}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the simulated rejection", `document.querySelector('[data-testid=simulate-verdict][data-admit=false]')`)
		text, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("[data-testid=admit-result]")))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Rejected: TopologyAffinityError", "Resources cannot be allocated with Topology locality",
			"cpu/cpu: no preferred single-NUMA-node placement", "Container solver", "ml/big"} {
			if !strings.Contains(text, want) {
				t.Errorf("the simulation lacks %q:\n%s", want, text)
			}
		}
		// The result follows the inputs: best-effort admits the same pod.
		if err := chromedp.Do(tab, selectOption("#tm-policy", "best-effort")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "best-effort to admit", `document.querySelector('[data-testid=simulate-verdict][data-admit=true]')`)
		// The examples menu loads the same scenario with its pod.
		if err := chromedp.Do(tab, selectOption("#examples", "simulate-single-numa-node")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the example's simulated rejection", `document.querySelector('#tm-pod').value.includes('big') && document.querySelector('[data-testid=simulate-verdict][data-admit=false]') && document.querySelectorAll('[data-testid=tab]').length === 5`)
		shot(t, tab, "simulate.png", "#admit-heading")
	})

	t.Run("diagnosis explains a TopologyAffinityError from the whole evidence", func(t *testing.T) {
		if err := chromedp.Do(ctx, selectOption("#examples", "troubleshooting-page")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the TopologyAffinityError finding", `document.querySelector('[data-testid=finding][data-code=TopologyAffinityError]')`)
		tabs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=tab]')].map((t) => t.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(tabs) < 5 {
			t.Errorf("the example should open one tab per evidence file, got %q", tabs)
		}
		if *screenshots != "" {
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`applyTheme('dark')`)); err != nil {
				t.Fatal(err)
			}
			shot(t, ctx, "diagnosis-dark.png", "#findings-heading")
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`applyTheme('auto')`)); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("a call over the time limit is stopped and the engine restarts", func(t *testing.T) {
		tab, cancelTab := chromedp.NewContext(ctx)
		defer cancelTab()
		// A 1 ms limit: every call overruns it, as a hostile input would.
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/?timeout=1")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		// A file the engine needs far more than 1 ms for: on an idle machine
		// the small sample can be answered before a 1 ms timer fires.
		if err := chromedp.Do(tab, paste(bigMemoryState(t, 500))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the time-limit error", `[...document.querySelectorAll('[data-testid=result] [data-testid=error]')].some((e) => e.innerText.includes('timeout'))`)
		waitFor(t, tab, "a restarted engine", `Number(document.body.dataset.restarts) >= 1`)
		// The page still answers: typing still works and the tabs still switch.
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("[data-testid=add-file]"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "a second tab", `document.querySelectorAll('[data-testid=tab]').length === 2`)
	})

	t.Run("language switch", func(t *testing.T) {
		if err := chromedp.Do(ctx, selectOption("#lang", "zh-CN")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "Chinese headings", `document.querySelector('#result-heading').textContent === '结果'`)
		waitFor(t, ctx, "a Chinese finding title", `document.querySelector('[data-testid=finding][data-code=TopologyAffinityError] .ftitle').textContent.includes('被拒绝')`)
		shot(t, ctx, "zh-CN.png", "#findings-heading")
		if err := chromedp.Do(ctx, selectOption("#lang", "en")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("no request left localhost", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if len(pageRequests) == 0 {
			t.Fatal("saw no request at all: the network listener is broken")
		}
		for _, r := range pageRequests {
			u, err := url.Parse(r)
			if err != nil || (u.Scheme != "data" && u.Host != strings.TrimPrefix(srv.URL, "http://")) {
				t.Errorf("the page requested %s, which is not on the playground server", r)
			}
		}
		if leaks := proxy.requests(); len(leaks) > 0 {
			t.Errorf("requests left localhost: %s", strings.Join(leaks, "; "))
		}
		t.Logf("%d page requests, all to %s; the catch-all proxy saw none", len(pageRequests), srv.URL)
	})

	t.Run("works offline once loaded", func(t *testing.T) {
		// Wait until the service worker controls the page and holds the site.
		waitFor(t, ctx, "the service worker", `navigator.serviceWorker.controller !== null`)
		waitFor(t, ctx, "the cached site", `(async () => { const c = await caches.open('numascope-playground-v1'); return (await c.keys()).length >= 8; })()`)
		srv.Close() // the server is gone: only the browser's copy is left
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the engine to load offline", `document.body.dataset.engine === 'ready'`)
		if err := chromedp.Do(ctx, paste(sample)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the group [0 1] offline", `document.querySelector('[data-testid=numa-group][data-nodes="0 1"]')`)
	})

	t.Run("a paste in the wrong tab is read as what it is, and the tab says so", func(t *testing.T) {
		tab, cancelTab := chromedp.NewContext(ctx)
		defer cancelTab()
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the engine to load", `document.body.dataset.engine === 'ready'`)
		// An events table, fenced as in a chat, in a tab named pod.yaml.
		events := "```\n$ kubectl get events -n ml\n" +
			"LAST SEEN   TYPE      REASON                  OBJECT            MESSAGE\n" +
			"41s         Warning   TopologyAffinityError   pod/trainer-0     Resources cannot be allocated with Topology locality\n```\n"
		if err := chromedp.Do(tab, chromedp.Focus(chromedp.CSS("[data-testid=file-name]"))); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(tab, input.InsertText, input.InsertTextParams{Text: "pod.yaml"}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tab, paste(events)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the tab read as events", `document.querySelector('#tab-0').dataset.readAs === 'events'`)
		label, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[document.querySelector('#tab-0').textContent, document.querySelector('#tab-0').dataset.readAsLabel, document.querySelector('#tab-0').title]`))
		if err != nil {
			t.Fatal(err)
		}
		if label[0] != "pod.yaml" || label[1] != "read as events" || !strings.Contains(label[2], "removed shell prompt and command") {
			t.Errorf("tab name, label and title = %q", label)
		}
		// A note that is no evidence, in a second tab: the banner lists it.
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=add-file]').click()`)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "a new tab", `document.querySelectorAll('[data-testid=tab]').length === 2`)
		if err := chromedp.Do(tab, paste("The node was rebooted on Monday, the pod still fails.")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "the banner of inputs not read", `!document.querySelector('[data-testid=refused-banner]').hidden && document.querySelector('#tab-1').dataset.readAs === 'not-read'`)
		banner, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("[data-testid=refused-banner]")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(banner, "not recognised as kubelet evidence") || strings.Contains(banner, "pod.yaml") {
			t.Errorf("banner = %q", banner)
		}
		shot(t, tab, "wrong-tab.png", "#tabs")
	})
}
