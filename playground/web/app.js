// The numascope playground page: inputs, the engine in a Web Worker, the
// rendering of results, sharing through the URL fragment, language and theme.
// No framework and no network access beyond this site's own files.
"use strict";

// The time limit of one engine call; ?timeout=MS overrides it (for tests).
// It bounds one run (inspect and diagnose together), so that an answer or a
// timeout message is on the page within it.
const TIMEOUT_OVERRIDE = Number(new URLSearchParams(location.search).get("timeout")) || 0;
const CALL_TIMEOUT_MS = TIMEOUT_OVERRIDE || 10000;
// runTimeout is the limit of one run over inputs of chars characters: 10 s,
// and 10 s more per MiB past the first, at most 120 s, so that a valid
// kubelet file of 10 MB is decoded, not stopped (BenchmarkPasteLargestStateFile:
// a 6.7 MB, 40,000-container memory checkpoint took 51 s to the end of its
// run on a loaded 2-core machine, where its limit is 64 s). The engine's own
// size limits bound what a run can be given.
function runTimeout(chars) {
  if (TIMEOUT_OVERRIDE) return TIMEOUT_OVERRIDE;
  return Math.min(120000, CALL_TIMEOUT_MS + Math.max(0, chars / (1 << 20) - 1) * 10000);
}
// The engine's limits (wasm/internal/api: MaxFileBytes, MaxRequestBytes,
// MaxFiles). The page needs them before the engine has loaded (a share
// link is read first); the engine's capabilities answer carries its own,
// and the browser tests check that the two agree.
const MAX_FILE_BYTES = 12 << 20;
const MAX_REQUEST_BYTES = 32 << 20;
// At most this many tabs: the page draws a card per file of an answer, and
// each tab costs its thread a millisecond or two (BenchmarkShareLinkLoad:
// 64 tabs, a longest task of 0.15 to 0.2 s; 1,000 tabs 1.2 s; 10,000 tabs
// 13 to 19 s).
const MAX_TABS = 64;
// All tabs together hold at most this many bytes: two of the largest files.
// The inputs' copies for the engine and for the share link and the run's
// time grow with the total (BenchmarkShareLinkLoad in limits_bench_test.go:
// two 12 MiB memory checkpoints, a first verdict after 6 s and a longest
// task under a second on a loaded 2-core machine).
const MAX_TOTAL_BYTES = 24 << 20;
// The text area shows a tab of at most SHOWN_LINES lines and SHOWN_CHARS
// characters. It lays out all of its text at once (BenchmarkTextArea, the
// layout and the next frame: 2,000 lines about 0.15 s, 10,000 lines 0.6 s,
// 50,000 lines 3.5 s, one line of 512 KiB 0.2 s and of 4 MiB 1.4 s; a share
// link of 800,000 short lines held the page for 14 s at once). A larger
// tab is read and judged whole, and shown as its beginning, read-only. The
// admission simulator's fields take at most as much.
const SHOWN_LINES = 2000;
const SHOWN_CHARS = 512 << 10;
const SHARE_PREFIX = "#s=";
// A share link's data: at most this many characters after #s= (Chromium's
// whole URL limit is 2 MiB) and at most the engine's request limit once
// inflated, which covers every input the page takes with room for the
// escaping of its JSON; the inflater stops there.
const MAX_SHARE_CHARS = 1 << 20;
const MAX_SHARE_BYTES = MAX_REQUEST_BYTES;
// Compressed bytes fed to the inflater at a time: one slice inflates to at
// most about 1 MiB, so reading stops close to the cap.
const SHARE_SLICE = 1024;
// Rows of the pods table drawn at most; a 10,000-container node is summarised.
const MAX_POD_ROWS = 500;
// Inputs that are evidence for the diagnosis rather than kubelet checkpoints.
const EVIDENCE_KINDS = ["kubelet-log", "pod", "events", "kubelet-config", "machine-info"];
// Where the README says how to get numascope's commands onto a node.
const INSTALL_URL = "https://github.com/numascope/numascope#install-without-go";

const $ = (id) => document.getElementById(id);

// h builds an element; attrs with a function value become listeners, and
// children are nodes or text (never parsed as HTML).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// ---------------------------------------------------------------- state

const state = {
  files: [{ name: "", content: "" }],
  active: 0,
  cpuPolicy: "", // "" the kubelet configuration's, else the file's
  memoryPolicy: "",
  kubeletVersion: "", // the node's kubelet release; "" the newest
  lang: "en",
  theme: "auto",
  admit: null, // filled from the form
  caps: new Set(),
  examples: [],
  lastInspect: null,
};

let lang = "en";
// T is the string for key; with vars.n === 1 the key's "-one" form when the
// table has one ("1 pod", "2 pods").
const T = (key, vars) => t(lang, vars && vars.n === 1 && I18N.en[key + "-one"] !== undefined ? key + "-one" : key, vars);

// ---------------------------------------------------------------- engine

class Engine {
  constructor() {
    this.module = null;
    this.worker = null;
    this.pending = new Map();
    this.nextId = 1;
    this.readyPromise = null;
  }

  async load(onProgress) {
    let expected = 0;
    try {
      const m = await fetch("manifest.json", { cache: "no-cache" });
      if (m.ok) expected = (await m.json()).wasm.bytes || 0;
    } catch (_) { /* the manifest only improves the progress bar */ }
    const resp = await fetch("numascope.wasm");
    if (!resp.ok) throw new Error("numascope.wasm: HTTP " + resp.status);
    if (!expected && !resp.headers.get("Content-Encoding")) {
      expected = Number(resp.headers.get("Content-Length")) || 0;
    }
    const reader = resp.body.getReader();
    const chunks = [];
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      if (expected) onProgress(Math.min(99, Math.floor((got * 100) / expected)));
    }
    const bytes = new Uint8Array(got);
    let off = 0;
    for (const c of chunks) { bytes.set(c, off); off += c.length; }
    this.module = await WebAssembly.compile(bytes);
    onProgress(100);
    return this.start();
  }

  start() {
    this.worker = new Worker("worker.js");
    const worker = this.worker;
    this.readyPromise = new Promise((resolve, reject) => {
      worker.onmessage = (ev) => {
        const msg = ev.data;
        if (msg.type === "ready") resolve(msg.version);
        else if (msg.type === "fatal") { reject(new Error(msg.message)); this.failAll("panic", msg.message); }
        else if (msg.type === "result") {
          const p = this.pending.get(msg.id);
          if (!p) return;
          this.pending.delete(msg.id);
          clearTimeout(p.timer);
          const got = performance.timeOrigin + performance.now();
          let parsed;
          try { parsed = JSON.parse(msg.response); } catch (e) {
            parsed = { ok: false, error: { code: "engine", message: "unreadable answer: " + e.message } };
          }
          const t = msg.timing;
          if (t && parsed && typeof parsed === "object") {
            timingOf.set(parsed, { toWorker: t.got - p.sentAt, call: t.callMs, phases: t.phases, toPage: got - t.posted,
              parse: performance.timeOrigin + performance.now() - got, chars: msg.response.length });
          }
          p.resolve(parsed);
        }
      };
      worker.onerror = (ev) => { reject(new Error(ev.message || "worker error")); this.failAll("panic", ev.message || "worker error"); };
    });
    worker.postMessage({ type: "init", module: this.module });
    return this.readyPromise;
  }

  failAll(code, message) {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, error: { code, message } });
      this.pending.delete(id);
    }
  }

  restart() {
    if (this.worker) this.worker.terminate();
    document.body.dataset.restarts = String((Number(document.body.dataset.restarts) || 0) + 1);
    this.failAll("timeout", T("timeout", { s: CALL_TIMEOUT_MS / 1000 }));
    return this.start();
  }

  // busySince is when the oldest unanswered call of the input tabs (sent
  // with opts.stale) was sent, or 0.
  busySince() {
    let since = 0;
    for (const p of this.pending.values()) if (p.stale && (!since || p.sent < since)) since = p.sent;
    return since;
  }

  // cancel stops the calls of the input tabs, whose inputs have changed: the
  // worker is replaced, each of those calls resolves with the code
  // "cancelled", and the other calls are sent again to the new worker.
  cancel() {
    if (!this.busySince()) return;
    if (this.worker) this.worker.terminate();
    document.body.dataset.cancels = String((Number(document.body.dataset.cancels) || 0) + 1);
    for (const [id, p] of this.pending) {
      if (!p.stale) continue;
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.resolve({ ok: false, error: { code: "cancelled", message: "the input changed" } });
    }
    this.start().catch(() => {});
    for (const [id, p] of this.pending) this.post(id, p.method, p.request);
  }

  // post sends a call to the worker. A request that is the one this worker
  // got last is not sent again (a structured clone of 24 MiB of inputs
  // takes the page's thread for a fifth of a second): the worker uses the
  // copy it kept (worker.js, msg.same).
  post(id, method, request) {
    if (this.sentTo === this.worker && this.sentLast === request) {
      this.worker.postMessage({ type: "call", id, method, same: true });
      return;
    }
    this.sentTo = this.worker;
    this.sentLast = request;
    this.worker.postMessage({ type: "call", id, method, request });
  }

  // call resolves to the engine's response object; it never rejects. The
  // call is stopped at opts.deadline (a performance.now() time) when one is
  // given, else after CALL_TIMEOUT_MS. opts.stale marks a call that a change
  // of the input tabs makes useless (see cancel).
  call(method, request, opts) {
    const id = this.nextId++;
    const sent = performance.now();
    const deadline = opts && opts.deadline;
    const wait = deadline ? Math.max(0, deadline - sent) : CALL_TIMEOUT_MS;
    // The request goes to the worker as an object (a structured clone, a
    // copy of each string): its JSON text is made there, by the engine's
    // glue, so that a 10 MB paste is not serialised on the page's thread.
    const body = request || {};
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: { code: "timeout", message: T("timeout", { s: Math.round(wait / 1000) }) } });
        this.restart().catch(() => {});
      }, wait);
      this.pending.set(id, { resolve, timer, sent, sentAt: performance.timeOrigin + sent, method, request: body, stale: !!(opts && opts.stale) });
      this.post(id, method, body);
    });
  }
}

// timingOf holds the timing marks of each engine answer (see worker.js):
// the time to reach the worker, the call, the engine's phases, the time back
// and the page's parse of the answer, in milliseconds.
const timingOf = new WeakMap();

const engine = new Engine();
let engineReady = false;

// ---------------------------------------------------------------- formatting

function fmtBytes(n) {
  if (n === undefined || n === null) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = Number(n), i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i === 0 ? String(v) : v.toFixed(2)) + " " + units[i];
}

function bytesEl(n) {
  return h("data", { value: String(n), title: n + " bytes" }, fmtBytes(n));
}

function nodesText(nodes) {
  return (nodes || []).join(" ");
}

// ---------------------------------------------------------------- i18n + theme

function applyLanguage(l) {
  lang = I18N[l] ? l : "en";
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = T(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", T(el.dataset.i18nAria));
  $("lang").value = lang;
  applyTheme(state.theme);
  renderTabs();
  renderAll();
}

function applyTheme(theme) {
  state.theme = theme;
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $("theme-name").textContent = T("theme-" + theme);
  $("theme").setAttribute("aria-pressed", theme === "dark" ? "true" : "false");
}

function store(key, value) {
  try { localStorage.setItem("numascope." + key, value); } catch (_) { /* private mode */ }
}
function load(key) {
  try { return localStorage.getItem("numascope." + key); } catch (_) { return null; }
}

// ---------------------------------------------------------------- files and tabs

function fileLabel(f, i) {
  return f.name || f.autoName || T("untitled", { n: i + 1 });
}

function renderTabs() {
  const tabs = $("tabs");
  tabs.replaceChildren();
  state.files.forEach((f, i) => {
    const selected = i === state.active;
    tabs.append(h("button", {
      type: "button", role: "tab", id: "tab-" + i, "aria-selected": selected ? "true" : "false",
      "aria-controls": "input", tabindex: selected ? "0" : "-1", class: "tab", "data-testid": "tab",
      onclick: () => selectFile(i),
      onkeydown: (ev) => {
        const n = state.files.length;
        let j = -1;
        if (ev.key === "ArrowRight") j = (i + 1) % n;
        else if (ev.key === "ArrowLeft") j = (i - 1 + n) % n;
        else if (ev.key === "Home") j = 0;
        else if (ev.key === "End") j = n - 1;
        if (j >= 0) { ev.preventDefault(); selectFile(j); $("tab-" + j).focus(); }
      },
    }, fileLabel(f, i)));
    markReadAs($("tab-" + i), f);
  });
  // Past a few rows the tabs scroll in their own box: keep the selected one in view.
  if (tabs.scrollHeight > tabs.clientHeight) {
    const r = $("tab-" + state.active).getBoundingClientRect(), box = tabs.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) tabs.scrollTop += r.top - box.top - 2;
  }
  const f = state.files[state.active];
  const shown = shownOf(f);
  const ta = $("input");
  ta.readOnly = shown.held;
  if (ta.value !== shown.text) ta.value = shown.text;
  renderHeld(f, state.active, shown);
  $("name").value = f.name;
  sendMarks();
  $("drop").setAttribute("aria-labelledby", "tab-" + state.active);
  $("remove").disabled = state.files.length === 1 && !f.content && !f.name;
}

// contentBytes is the size of a tab's content in UTF-8, counted once per
// content.
function contentBytes(f) {
  if (f.sizedFor !== f.content) { f.sizedFor = f.content; f.bytes = utf8Bytes(f.content); }
  return f.bytes;
}

// otherBytes is the size of every tab's content but tab i's.
function otherBytes(i) {
  let n = 0;
  state.files.forEach((f, j) => { if (j !== i) n += contentBytes(f); });
  return n;
}

// shownCut is where the text area's view of text ends: text.length when
// it shows all of it, else the end of the last whole line within
// SHOWN_LINES lines and SHOWN_CHARS characters (or SHOWN_CHARS itself, for
// a longer line).
function shownCut(text) {
  if (text.length <= SHOWN_CHARS && text.length < SHOWN_LINES) return text.length;
  let n = 0, at = -1;
  for (let i = text.indexOf("\n"); i !== -1 && i < SHOWN_CHARS; i = text.indexOf("\n", i + 1)) {
    if (++n >= SHOWN_LINES) return i + 1;
    at = i;
  }
  if (text.length <= SHOWN_CHARS) return text.length;
  if (at >= 0) return at + 1;
  const c = text.charCodeAt(SHOWN_CHARS - 1);
  return c >= 0xd800 && c < 0xdc00 ? SHOWN_CHARS - 1 : SHOWN_CHARS; // not inside a surrogate pair
}

// lineCount is the number of lines of text.
function lineCount(text) {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

// shownOf is what the text area shows of a tab: all of it, or (held) its
// beginning, with the whole content's line count. Kept per content.
function shownOf(f) {
  if (f.shownFor !== f.content) {
    const cut = shownCut(f.content);
    f.shownFor = f.content;
    f.shown = cut === f.content.length ? { text: f.content, held: false }
      : { text: f.content.slice(0, cut), held: true, lines: lineCount(f.content), shownLines: lineCount(f.content.slice(0, cut)) };
  }
  return f.shown;
}

// renderHeld says, under the text area, that the tab shown is held: read
// whole, shown in part.
function renderHeld(f, i, shown) {
  const box = $("held-notice");
  if (!shown.held) { box.hidden = true; box.textContent = ""; return; }
  box.textContent = T("held", {
    tab: fileLabel(f, i), size: fmtBytes(contentBytes(f)), lines: T("n-lines", { n: shown.lines }),
    shown: fmtBytes(utf8Bytes(shown.text)), shownLines: T("n-lines", { n: shown.shownLines }),
    maxLines: SHOWN_LINES, maxSize: fmtBytes(SHOWN_CHARS),
  });
  box.hidden = false;
}

// fitFiles takes, in order, the files that fit within the page's limits
// besides the tabs already there (tabs of them, holding bytes): at most
// MAX_TABS tabs, MAX_FILE_BYTES each and MAX_TOTAL_BYTES together. It
// returns them and a sentence for each reason some did not fit, naming
// them, or [] when all did (see not-loaded-do for what to do then).
function fitFiles(files, tabs, bytes) {
  const kept = [], tooMany = [], tooBig = [], overTotal = [];
  let total = bytes;
  for (const f of files) {
    const n = f.bytes !== undefined ? f.bytes : utf8Bytes(f.content);
    if (tabs + kept.length >= MAX_TABS) tooMany.push(f.name);
    else if (n > MAX_FILE_BYTES) tooBig.push(f.name + " (" + fmtBytes(n) + ")");
    else if (total + n > MAX_TOTAL_BYTES) overTotal.push(f.name + " (" + fmtBytes(n) + ")");
    else { kept.push(f); total += n; }
  }
  const out = [];
  if (tooBig.length) out.push(T("not-loaded-big", { names: nameList(tooBig), max: fmtBytes(MAX_FILE_BYTES) }));
  if (overTotal.length) out.push(T("not-loaded-total", { names: nameList(overTotal), max: fmtBytes(MAX_TOTAL_BYTES) }));
  if (tooMany.length) out.push(T("not-loaded-tabs", { names: nameList(tooMany), n: tooMany.length, max: MAX_TABS }));
  return { kept, refused: out };
}

// nameList is "a, b, c" for up to five names, else the first five and
// "and N more".
function nameList(names) {
  const shown = names.slice(0, 5).map((n) => n || "?").join(T("list-sep"));
  return names.length > 5 ? T("and-more", { names: shown, n: names.length - 5 }) : shown;
}

function renderTabLabels() {
  state.files.forEach((f, i) => {
    const tab = $("tab-" + i);
    if (tab) { tab.textContent = fileLabel(f, i); markReadAs(tab, f); }
  });
}

// markReadAs shows on a tab what the engine read its content as (whatever
// tab it was pasted into), or that it was not read, and why.
function markReadAs(tab, f) {
  if (!tab) return;
  const r = f.readAs;
  if (!r) {
    delete tab.dataset.readAs; delete tab.dataset.readStatus; delete tab.dataset.readAsLabel;
    tab.removeAttribute("title");
    return;
  }
  const used = r.status === "read" || r.status === "partial";
  tab.dataset.readAs = used ? r.kind : "not-read";
  tab.dataset.readStatus = r.status;
  tab.dataset.readAsLabel = used ? T("read-as", { kind: r.kind }) : T("not-read");
  tab.title = used ? T("read-as", { kind: r.kind }) + (r.warnings && r.warnings.length ? "\n" + r.warnings.join("\n") : "") : (r.error || r.note || T("not-read"));
}

// renderRefused lists, above the panes, the inputs the engine did not read.
function renderRefused() {
  const d = state.lastDiagnosis;
  const files = d && d.ok ? (d.result.files || []) : [];
  const bad = files.filter((x) => x && x.status && x.status !== "read" && x.status !== "partial" && x.note !== "empty");
  $("refused").hidden = bad.length === 0;
  $("refused-text").replaceChildren(...bad.map((x, i) => [i ? "; " : "", h("strong", {}, x.file || "?"), ": ", x.error || x.note || x.status]).flat());
}

function selectFile(i) {
  const was = state.active;
  state.active = i;
  renderTabs();
  if (was !== i && engineReady) updateShare();
}

function setFiles(files, opts) {
  state.files = files.length ? files.map((f) => ({ name: f.name || "", content: f.content || "" })) : [{ name: "", content: "" }];
  state.active = 0;
  renderTabs();
  if (!opts || !opts.quiet) changed();
}

// addFiles opens files chosen or dropped. Those past the page's limits
// (MAX_TABS tabs, MAX_FILE_BYTES each, MAX_TOTAL_BYTES together) are
// refused by their size, before a byte of them is read, and named.
async function addFiles(fileList) {
  const cur = state.files;
  const onlyEmpty = cur.length === 1 && !cur[0].content && !cur[0].name;
  const tabs = onlyEmpty ? 0 : cur.length, bytes = onlyEmpty ? 0 : otherBytes(-1);
  const single = fileList.length === 1 && fileList[0].size > MAX_FILE_BYTES;
  const { kept, refused } = fitFiles([...fileList].map((file) => ({ name: file.name, bytes: file.size, file })), tabs, bytes);
  const added = [];
  let total = bytes;
  for (const k of kept) {
    let content;
    try {
      content = await readOpened(k.file, Math.min(MAX_FILE_BYTES, MAX_TOTAL_BYTES - total));
    } catch (e) {
      if (!(e instanceof FileError)) throw e;
      refused.push(e.message);
      continue;
    }
    // Bytes that are not UTF-8 come back as U+FFFD, three bytes each.
    const n = utf8Bytes(content);
    if (total + n > MAX_TOTAL_BYTES) { refused.push(T("not-loaded-total", { names: k.name + " (" + fmtBytes(n) + ")", max: fmtBytes(MAX_TOTAL_BYTES) })); continue; }
    total += n;
    added.push({ name: k.name, content });
  }
  if (single) refused.splice(0, refused.length, T("too-big", { name: fileList[0].name, size: fmtBytes(fileList[0].size), max: fmtBytes(MAX_FILE_BYTES) }));
  else if (refused.length) refused.push(T("not-loaded-do"));
  if (refused.length) showInputError($("input-error"), refused.join("\n"));
  else clearInputError($("input-error"));
  if (!added.length) return;
  state.files = onlyEmpty ? added : cur.concat(added);
  state.active = onlyEmpty ? 0 : cur.length;
  renderTabs();
  changed({ now: true });
}

// ---------------------------------------------------------------- running the engine

let seq = 0;
let debounce = 0;
let runs = 0;

// inputChars is the number of characters in the input tabs.
function inputChars() {
  let n = 0;
  for (const f of state.files) n += f.content.length;
  return n;
}

// changed schedules a run for the new inputs. A run still working on the
// old inputs is dropped at once, and its worker replaced when it has been
// busy for a while (a short call is cheaper to finish than a restart).
// Typing waits for a pause, longer in large inputs, so that it does not start
// a run per key; a paste, a drop or an opened file (opts.now) runs at once.
//
// A run that starts at once starts in the event itself: its engine call is
// in the worker while the browser still lays out the text it was given (a
// 2 MB paste takes the page's thread for most of a second).
function changed(opts) {
  clearTimeout(debounce);
  seq++;
  const since = engine.busySince();
  if (since && performance.now() - since > 250) engine.cancel();
  if (opts && opts.now) {
    run();
    debounce = setTimeout(updateShare, 0);
    return;
  }
  const delay = inputChars() > (1 << 20) ? 700 : 200;
  debounce = setTimeout(() => { run(); updateShare(); }, delay);
}

// The answers of recent runs, by the key of their inputs (see runKey): a run
// whose inputs and policy are those of an earlier one (a tab selected, added
// empty or removed empty, a name typed back, the simulator's fields edited)
// shows the earlier answers without calling the engine. At most
// RUN_CACHE_SIZE runs and RUN_CACHE_CHARS characters of keys are kept.
const runCache = new Map();
const RUN_CACHE_SIZE = 8;
const RUN_CACHE_CHARS = 32 << 20;
let runCacheChars = 0;

// runKey is the key of one run's inputs: the policy, and each non-empty tab's
// name and content, in order. The contents themselves, not a digest of them:
// the key is there at once, before the engine is called (Web Crypto's digest
// answers a task later, after the browser has laid out a large paste), and a
// lookup compares strings, which takes a millisecond for megabytes. Each
// part is written after its length, which makes the key unambiguous
// without escaping anything (JSON.stringify of 24 MiB of inputs takes the
// page's thread for a fifth of a second; a join copies them).
function runKey() {
  const parts = [state.cpuPolicy || "", state.memoryPolicy || "", state.kubeletVersion || ""];
  for (const f of state.files) {
    if (f.content.trim() === "") continue;
    parts.push(f.name, f.content);
  }
  return parts.map((p) => p.length + ":" + p).join("\n");
}

function remember(key, answers) {
  if (runCache.has(key)) { runCache.delete(key); runCacheChars -= key.length; }
  if (key.length > RUN_CACHE_CHARS) return;
  runCache.set(key, answers);
  runCacheChars += key.length;
  while (runCache.size > RUN_CACHE_SIZE || runCacheChars > RUN_CACHE_CHARS) {
    const old = runCache.keys().next().value;
    runCacheChars -= old.length;
    runCache.delete(old);
  }
}

// settled says whether an answer depends on the inputs alone: a run that was
// cancelled, stopped or ran out of time is not remembered.
function settled(r) {
  return !!r && (r.ok || (!!r.error && ["bad-request", "too-large", "unknown-method"].includes(r.error.code)));
}

// requestFiles lists the non-empty tabs; unnamed ones are named by the engine
// after their kind. tabs[i] is the tab index of request file i.
function requestFiles() {
  const files = [], tabs = [];
  state.files.forEach((f, i) => {
    if (f.content.trim() === "") return;
    files.push({ name: f.name, content: f.content });
    tabs.push(i);
  });
  return { files, tabs };
}

async function run() {
  if (!engineReady) return;
  const my = ++seq;
  const began = performance.now();
  const { files, tabs } = requestFiles();
  const key = runKey();
  const result = $("result");
  result.setAttribute("aria-busy", "true");
  let inspect = null, diagnosis = null;
  const hit = runCache.get(key);
  if (hit) {
    document.body.dataset.cacheHits = String((Number(document.body.dataset.cacheHits) || 0) + 1);
    ({ inspect, diagnosis } = hit);
    show(inspect, diagnosis, tabs);
  } else if (files.length) {
    document.body.dataset.runs = String(++runs);
    // One time limit for the whole run: the answer, or the timeout message,
    // is on the page within runTimeout of the run's start.
    const limit = runTimeout(inputChars());
    const deadline = performance.now() + limit;
    const cpuPolicy = state.cpuPolicy || undefined;
    const memoryPolicy = state.memoryPolicy || undefined;
    const kubeletVersion = state.kubeletVersion || undefined;
    // began, answered and drawn are performance.now() times; the rest are
    // durations.
    const marks = { began, key: performance.now() - began };
    // One request object for both calls: the worker keeps the first's, and
    // the second is sent without copying the inputs again.
    const request = { files, cpuPolicy, memoryPolicy, kubeletVersion };
    inspect = await engine.call("inspect", request, { deadline, stale: true });
    document.body.dataset.inspectMs = String(Math.round(performance.now() - began));
    if (my !== seq) return; // a newer input superseded this one
    const diagnosing = state.caps.has("diagnose") && inspect.ok;
    // The verdicts are on the page while the diagnosis runs.
    let t = performance.now();
    show(inspect, null, tabs, diagnosing);
    marks.inspect = timingOf.get(inspect);
    marks.answered = t;
    marks.drawInspect = performance.now() - t;
    marks.drawn = performance.now();
    document.body.dataset.verdictMs = String(Math.round(performance.now() - began));
    if (diagnosing) {
      diagnosis = await engine.call("diagnose", request, { deadline, stale: true });
      if (my !== seq) return; // a newer input superseded this one
      t = performance.now();
      show(inspect, diagnosis, tabs);
      marks.diagnose = timingOf.get(diagnosis);
      marks.drawDiagnose = performance.now() - t;
    }
    // The timing marks of this run, for the benchmark and for a reader
    // who wonders where the time goes (see bench_test.go).
    document.body.dataset.phases = JSON.stringify(marks);
    if (settled(inspect) && (!diagnosing || settled(diagnosis))) remember(key, { inspect, diagnosis });
  } else {
    show(null, null, tabs);
  }
  if ($("tm-pod").value.trim()) runAdmit(); // the simulated node is the input tabs
  result.setAttribute("aria-busy", "false");
  if (files.length) document.body.dataset.runMs = String(Math.round(performance.now() - began));
  // One short sentence for screen readers instead of re-reading the result.
  if (inspect && inspect.ok) {
    const fs = inspect.result.files;
    const counts = countsText(state.items || []);
    announce(T("result-announce", { files: T("n-files", { n: fs.length }), findings: counts || T("no-problems-short") }));
  }
}

// show draws one run's answers; tabs[i] is the tab of request file i. While
// diagnosing, the findings pane says that the diagnosis is still running.
function show(inspect, diagnosis, tabs, diagnosing) {
  state.files.forEach((f) => { delete f.autoName; delete f.readAs; });
  if (diagnosis && diagnosis.ok) {
    (diagnosis.result.files || []).forEach((r, k) => {
      const f = state.files[tabs[k]];
      if (f) f.readAs = r;
    });
  }
  if (inspect && inspect.ok) {
    inspect.result.files.forEach((r, k) => {
      const f = state.files[tabs[k]];
      if (f && !f.name) f.autoName = r.file;
    });
  }
  renderTabLabels();
  state.lastInspect = inspect;
  state.lastDiagnosis = diagnosis;
  state.diagnosing = !!diagnosing;
  renderAll(!!diagnosing);
}

// ---------------------------------------------------------------- rendering

// While the diagnosis runs (verdictFirst), the NUMA view and the pods
// table, a thousand rows for a large node, are drawn after the frame that
// shows the verdicts, so that their layout does not hold the verdicts
// back; the diagnosis's answer draws everything again.
let drawToken = 0;
function renderAll(verdictFirst) {
  const my = ++drawToken;
  state.items = collectItems();
  renderPolicies();
  renderRefused();
  renderResult();
  renderFindings();
  sendMarks();
  const rest = () => { if (my === drawToken) { renderNUMA(); renderPods(); } };
  if (verdictFirst) requestAnimationFrame(() => setTimeout(rest, 0));
  else rest();
}

function errorBox(err) {
  return h("div", { class: "error", role: "alert", "data-testid": "error" },
    h("strong", {}, T("error") + (err.code ? " (" + err.code + ")" : "") + ": "),
    h("span", { class: "pre" }, err.message || String(err)));
}

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 };

// collectItems is what the Findings list shows: the diagnosis's findings
// and every problem of a file that no finding already reports (the same
// file, JSON pointer and code, or a finding that quotes the problem), worst
// first. Without a diagnosis the problems of the files alone.
function collectItems() {
  const r = state.lastInspect, d = state.lastDiagnosis;
  const items = [];
  const findings = d && d.ok ? (d.result.report.findings || []) : [];
  const locs = new Map();
  if (d && d.ok) for (const l of d.result.locations || []) locs.set(l.file + "#" + l.path, l);
  for (const f of findings) {
    items.push({
      kind: "finding", code: f.code, severity: f.severity || "info", title: f.title, finding: f,
      refs: (f.evidence || []).map((e) => {
        const l = e.path ? locs.get(e.file + "#" + e.path) : null;
        return { file: e.file, line: e.line || (l && l.line) || 0, column: (l && l.column) || 0, path: e.path || "", quote: e.quote || "" };
      }),
    });
  }
  if (r && r.ok) {
    for (const v of r.result.files) {
      for (const p of v.problems || []) {
        const covered = findings.some((f) => (f.evidence || []).some((e) => e.file === v.file && (e.path || "") === (p.path || "") &&
          ((p.code && p.code === f.code) || (p.path && e.path) || (f.explanation || "").includes(p.message) || (e.quote && p.message.includes(e.quote) && e.quote.length > 12))));
        if (covered) continue;
        items.push({
          kind: "problem", code: p.code || "", severity: p.severity || "error", title: p.message, problem: p, file: v.file,
          refs: [{ file: v.file, line: p.line || 0, column: p.column || 0, path: p.path || "", quote: "" }],
        });
      }
    }
  }
  items.sort((x, y) => (SEVERITY_RANK[x.severity] ?? 3) - (SEVERITY_RANK[y.severity] ?? 3));
  return items;
}

// counts is "1 error, 2 warnings" in words, or "".
function countsText(items) {
  const n = { error: 0, warning: 0, info: 0 };
  for (const it of items) if (n[it.severity] !== undefined) n[it.severity]++;
  return [["error", "n-errors"], ["warning", "n-warnings"], ["info", "n-infos"]]
    .filter(([k]) => n[k] > 0).map(([k, key]) => T(key, { n: n[k] })).join(T("list-sep"));
}

// headline is the banner's sentence for the worst item.
function headline(it) {
  if (it.kind === "finding") {
    const f = it.finding;
    if (f.code === "TopologyAffinityError" && f.pod) return T("banner-tae", { pod: f.pod });
    return texts(f).title;
  }
  return it.file + ": " + it.title;
}

// renderBanner draws the verdict above the result: the worst finding or
// problem and the counts, or, only when inputs were actually read and
// judged, that nothing is wrong.
function renderBanner() {
  const r = state.lastInspect;
  if (!r || !r.ok) return null;
  const files = r.result.files || [];
  if (!files.length) return null;
  const items = state.items || [];
  const worst = items.find((x) => x.severity === "error") || items.find((x) => x.severity === "warning");
  const counts = countsText(items);
  const read = files.filter((f) => f.kind).length;
  let cls, icon, text;
  if (worst) {
    cls = worst.severity === "error" ? "bad" : "warn";
    icon = worst.severity === "error" ? "✗" : "!";
    text = headline(worst);
  } else if (state.diagnosing) {
    // No verdict until the diagnosis has had its say.
    cls = "pending"; icon = "…";
    text = T("diagnosing");
  } else if (read) {
    cls = "ok"; icon = "✓";
    text = T("banner-ok", { n: read });
  } else {
    return null;
  }
  return h("div", { class: "banner-verdict " + cls, role: "status", "data-testid": "verdict-banner", "data-severity": worst ? worst.severity : cls === "pending" ? "pending" : "ok" },
    h("p", { class: "banner-line" }, h("span", { class: "badge " + cls, "aria-hidden": "true" }, icon), " ", h("strong", {}, text)),
    h("p", { class: "muted banner-counts", "data-testid": "verdict-counts" },
      [counts || (state.diagnosing ? "" : T("no-problems-short")), state.diagnosing && worst ? T("diagnosing") : "", T("files-read", { n: files.length })].filter(Boolean).join(" · "),
      items.length ? [" · ", h("a", { href: "#findings-heading" }, T("see-findings-all"))] : null));
}

function verdictEl(f) {
  if (EVIDENCE_KINDS.includes(f.kind)) {
    return h("div", { class: "verdict " + (f.kubeletAccepts ? "ok" : "bad"), "data-testid": "evidence-verdict" },
      h("p", { class: "verdict-line" }, f.kubeletAccepts ? T("evidence-read", { note: f.summary || f.kind }) : T("error")));
  }
  if (f.kind === "podresources") {
    return h("div", { class: "verdict " + (f.kubeletAccepts ? "ok" : "bad"), "data-testid": "podresources-verdict" },
      h("p", { class: "verdict-line" }, f.kubeletAccepts ? T("podresources-ok") : T("podresources-bad")));
  }
  const c = f.checksum;
  let text, cls;
  if (!c) { text = T("checksum-none"); cls = "bad"; }
  else if (c.valid && c.zeroSkipped) { text = T("checksum-zero"); cls = "warn"; }
  else if (c.valid) { text = T("checksum-valid", { stored: c.stored }); cls = "ok"; }
  else { text = T("checksum-invalid", { stored: c.stored }); cls = "bad"; }
  const accepts = f.kubeletAccepts;
  const computed = c && !c.valid && c.layouts && c.layouts.length
    ? T("checksum-computed", { list: c.layouts.map((l) => l.computed + " (" + l.name + ")").join(", ") }) : "";
  return h("div", { class: "verdict " + (accepts ? "ok" : "bad"), "data-testid": "checksum-verdict", "data-accepts": String(!!accepts), "data-valid": String(!!(c && c.valid)) },
    h("p", { class: "verdict-line" }, h("span", { class: "badge " + cls, "aria-hidden": "true" }, cls === "ok" ? "✓" : cls === "warn" ? "!" : "✗"), " ", T("checksum") + ": " + text),
    computed ? h("p", { class: "muted" }, computed) : null,
    c && c.era ? h("p", { class: "muted" }, c.era) : null,
    h("p", { class: "verdict-line strong" }, accepts ? T("accepts") : T("refuses")),
    f.reason ? h("p", {}, f.reason) : null,
    !accepts && f.onReject ? h("p", {}, h("strong", {}, T("consequence") + ": "), T("reject-" + f.onReject)) : null);
}

// The cards the reader opened, by file name: a re-run keeps them open.
const openCards = new Set();

// fileLine is a card's one-line summary: the verdict sign, the file, what it
// was read as and the verdict in words.
function fileLine(f) {
  const probs = f.problems || [];
  const errs = probs.filter((p) => p.severity === "error").length;
  const warns = probs.filter((p) => p.severity === "warning").length;
  let cls = "ok", icon = "✓", text;
  if (!f.kind) { cls = "bad"; icon = "✗"; text = T("not-read"); }
  else if (EVIDENCE_KINDS.includes(f.kind)) { text = f.kubeletAccepts ? T("evidence-read", { note: f.summary || f.kind }) : T("error"); if (!f.kubeletAccepts) { cls = "bad"; icon = "✗"; } }
  else if (f.kind === "podresources") { text = f.kubeletAccepts ? T("podresources-ok") : T("podresources-bad"); if (!f.kubeletAccepts) { cls = "bad"; icon = "✗"; } }
  else { text = f.kubeletAccepts ? T("accepts") : T("refuses"); if (!f.kubeletAccepts) { cls = "bad"; icon = "✗"; } }
  if (cls === "ok" && (errs || warns)) { cls = errs ? "bad" : "warn"; icon = errs ? "✗" : "!"; }
  const n = errs + warns;
  return h("summary", { class: "file-line", "data-testid": "file-line" },
    h("span", { class: "badge " + cls, "aria-hidden": "true" }, icon), " ",
    h("strong", { class: "fname" }, f.file), " ",
    f.kind ? h("span", { class: "muted" }, f.kind + (f.format ? " · " + f.format : "")) : null, " ",
    h("span", { class: "fverdict" }, text),
    n ? h("span", { class: "muted" }, " · " + T("n-problems", { n })) : null);
}

// renderJump repeats the banner's sentence above the panes on a narrow
// screen, where the result is below the input: a link to the result.
function renderJump(banner) {
  const jump = $("verdict-jump");
  if (!banner) { jump.hidden = true; jump.replaceChildren(); return; }
  jump.hidden = false;
  jump.className = "verdict-jump " + banner.className.replace("banner-verdict", "").trim();
  jump.replaceChildren(banner.querySelector(".banner-line").textContent.trim(), " ", h("span", { class: "muted" }, "↓ " + T("result")));
}

function renderResult() {
  const box = $("result");
  const r = state.lastInspect;
  if (!r || !r.ok) renderJump(null);
  if (!r) {
    box.replaceChildren(h("p", { class: "empty" }, engineReady ? T("empty") : T("loading")));
    return;
  }
  if (!r.ok) { box.replaceChildren(errorBox(r.error)); return; }
  const card = (f, ...body) => {
    const d = h("details", { class: "file card", "data-testid": "file-result", "data-kind": f.kind || "", "data-file": f.file },
      fileLine(f), h("div", { class: "file-body" }, ...body));
    // An input that could not be read at all shows why at once.
    if (openCards.has(f.file) || !f.kind) d.open = true;
    d.addEventListener("toggle", () => { if (d.open) openCards.add(f.file); else openCards.delete(f.file); });
    return d;
  };
  const banner = renderBanner();
  renderJump(banner);
  box.replaceChildren(banner || "", ...r.result.files.map((f) => !f.kind
    ? card(f, ...(f.problems || []).map((p) => errorBox({ message: p.message + (p.remedy ? "\n" + T("remedy") + ": " + p.remedy : "") })))
    : card(f,
      h("dl", { class: "facts" },
        h("dt", {}, T("kind")), h("dd", { "data-testid": "kind" }, f.kind || T("kind-unknown")),
        f.format ? h("dt", {}, T("format")) : null, f.format ? h("dd", {}, f.format) : null),
      f.summary && !EVIDENCE_KINDS.includes(f.kind) ? h("p", { class: "muted", "data-testid": "summary" }, f.summary) : null,
      verdictEl(f),
      f.holders ? holdersEl(f) : null,
      f.problems && f.problems.length ? h("p", { class: "muted" }, h("a", { href: "#findings-heading" }, T("see-findings", { n: f.problems.length }))) : null)));
}

// ---------------------------------------------------------------- who holds what

// MAX_HOLDER_ROWS bounds the rows of one NUMA node (or set of nodes) in a
// holders table: the rest is one "… N more" row.
const MAX_HOLDER_ROWS = 30;

// shortIds maps each pod UID to the shortest prefix of at least 8
// characters no other UID starts with, "…" appended when shortened (what
// inspect prints: internal/holdings' Shorten).
// given are the short forms the engine worked out over every pod of a file
// whose holders it summarised (holdersOmitted.shortPods): the longer wins.
function shortIds(ids, given) {
  const u = [...new Set(ids)].sort();
  const common = (a, b) => { let n = 0; while (n < a.length && n < b.length && a[n] === b[n]) n++; return n; };
  const out = new Map();
  u.forEach((id, i) => {
    let need = 0;
    if (i > 0) need = Math.max(need, common(id, u[i - 1]));
    if (i + 1 < u.length) need = Math.max(need, common(id, u[i + 1]));
    const n = Math.max(8, need + 1);
    out.set(id, id.length <= 12 || n >= id.length - 1 ? id : id.slice(0, n) + "…");
  });
  if (given) for (const [id, s] of out) { const g = given.get(id); if (g && g.length > s.length) out.set(id, g); }
  return out;
}

// numaKey is a holder's NUMA nodes as the tables show them: "0", "0,1",
// "none" for a device without topology, "–" when the file records none.
function numaKey(numa) {
  if (!numa || !numa.length) return "–";
  return numa.map((n) => (n === -1 ? T("numa-none") : String(n))).join(",");
}

// holderRows flattens a checkpoint's holders (FileView.holders, built by
// internal/holdings) into rows of one kind for every kind: the NUMA nodes,
// the pod, the container, the resource and the amount (a function that
// draws it: only the rows shown are drawn).
function holderRows(hd) {
  const rows = [];
  const row = (numa, pod, container, resource, amount, ids) => rows.push({ numa: numa || [], key: numaKey(numa), pod, container, resource, amount, ids });
  if (hd.memory) {
    for (const b of hd.memory) row(b.numa, b.podUID, b.podLevel ? T("pod-level") : b.container, b.type, () => bytesEl(b.size));
  }
  if (hd.cpu) {
    const c = hd.cpu;
    const cpus = (l) => () => h("code", { title: T("n-cpus", { n: l.count }) }, l.cpus || "∅");
    for (const x of c.holders || []) {
      const pod = x.containerID ? "" : x.podUID;
      const ctr = x.containerID ? x.containerID : x.podLevel ? T("pod-level") : x.container;
      if (x.numa && x.numa.length) for (const p of x.numa) row([p.node], pod, ctr, "cpu", cpus(p));
      else row(null, pod, ctr, "cpu", cpus(x));
    }
    if (c.nodes && c.nodes.length) {
      for (const n of c.nodes) if (n.shared.count) row([n.node], "", T("shared-pool"), "cpu", cpus(n.shared));
    } else if (c.shared.count) {
      row(null, "", T("shared-pool"), "cpu", cpus(c.shared));
    }
  }
  for (const a of hd.devices || []) {
    const by = new Map();
    for (const d of a.devices || []) {
      const k = numaKey(d.numa);
      if (!by.has(k)) by.set(k, { numa: d.numa, ids: [] });
      by.get(k).ids.push(d.id);
    }
    for (const g of by.values()) row(g.numa, a.podUID, a.container, a.resource, () => h("code", {}, g.ids.join(", ")), g.ids);
  }
  for (const c of hd.claims || []) {
    const devs = [];
    for (const d of c.drivers || []) {
      for (const x of d.devices || []) devs.push(d.driver + "/" + x.pool + "/" + x.device);
      for (const id of d.cdiDevices || []) devs.push(id);
    }
    const claim = T("claim", { name: (c.namespace ? c.namespace + "/" : "") + c.name });
    const pods = c.podUIDs && c.podUIDs.length ? c.podUIDs : [""];
    for (const p of pods) row(null, p, claim, "dra", () => h("code", {}, devs.join(", ") || "–"));
  }
  return rows;
}

// fileHolderRows are holderRows of a file's holders, with what the engine
// left out of a summary (FileView.holdersOmitted): rows.omitted maps a NUMA
// key to the rows of it not in the answer, rows.hidden is their number and
// rows.short the pods' short forms.
function fileHolderRows(f) {
  const rows = holderRows(f.holders);
  rows.omitted = new Map();
  rows.hidden = 0;
  rows.short = new Map();
  const o = f.holdersOmitted;
  if (!o) return rows;
  const kept = new Map();
  for (const r of rows) if (r.resource !== "cpu") kept.set(r.key, (kept.get(r.key) || 0) + 1);
  for (const c of o.byNUMA || []) {
    const key = numaKey(c.numa), n = c.blocks - (kept.get(key) || 0);
    if (n > 0) rows.omitted.set(key, { numa: c.numa || [], n });
  }
  rows.hidden = o.omitted || 0;
  for (const [id, s] of Object.entries(o.shortPods || {})) rows.short.set(id, s);
  return rows;
}

// joinRows appends the rows of b, and what b left out, to a.
function joinRows(a, b) {
  for (const x of b) a.push(x);
  for (const [k, v] of b.omitted) {
    const w = a.omitted.get(k);
    a.omitted.set(k, { numa: v.numa, n: v.n + (w ? w.n : 0) });
  }
  a.hidden += b.hidden;
  for (const [id, s] of b.short) a.short.set(id, s);
  return a;
}

// noRows is an empty list of rows that joinRows can add to.
function noRows() {
  return Object.assign([], { omitted: new Map(), hidden: 0, short: new Map() });
}

// numaOrder sorts NUMA keys: single nodes by number, then sets of nodes,
// then devices without topology, then holders the file places nowhere.
function numaOrder(a, b) {
  const rank = (r) => (r.key === "–" ? 3 : r.numa.includes(-1) ? 2 : r.numa.length > 1 ? 1 : 0);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  for (let i = 0; i < Math.min(a.numa.length, b.numa.length); i++) if (a.numa[i] !== b.numa[i]) return a.numa[i] - b.numa[i];
  return a.numa.length - b.numa.length;
}

// holdersTable draws rows grouped by their NUMA nodes, at most
// MAX_HOLDER_ROWS per group and a "… N more" row for the rest.
function holdersTable(rows, testid) {
  const sorted = rows.map((r, i) => ({ r, i })).sort((x, y) => numaOrder(x.r, y.r) || x.i - y.i).map((x) => x.r);
  const short = shortIds(rows.map((r) => r.pod).filter(Boolean), rows.short);
  const body = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j].key === sorted[i].key) j++;
    // the rows of this key that the engine left out of its answer
    const om = (rows.omitted && rows.omitted.get(sorted[i].key)) || { n: 0 };
    const more = j - i + om.n - Math.min(j - i, MAX_HOLDER_ROWS);
    for (const r of sorted.slice(i, Math.min(j, i + MAX_HOLDER_ROWS))) {
      body.push(h("tr", { "data-testid": "holder", "data-numa": r.key, "data-pod": r.pod || undefined },
        h("td", {}, r.key), h("td", {}, r.pod ? h("code", { title: r.pod }, short.get(r.pod)) : "–"),
        h("td", {}, r.container || "–"), h("td", {}, r.resource), h("td", {}, r.amount())));
    }
    if (more > 0) {
      body.push(h("tr", { class: "more", "data-testid": "holders-more", "data-numa": sorted[i].key },
        h("td", {}, sorted[i].key), h("td", { colspan: "4" }, T("holders-more", { n: more }))));
    }
    i = j;
  }
  return h("div", { class: "scroll" }, h("table", { class: "holders", "data-testid": testid },
    h("thead", {}, h("tr", {}, ["numa", "pod", "container", "resource", "amount"].map((k) => h("th", { scope: "col" }, T(k === "numa" ? "numa-affinity" : k))))),
    h("tbody", {}, body)));
}

// holdersEl is a state file's "who holds what": the table, or a sentence
// when nothing is held, and what the file cannot tell. Of a file the
// kubelet refuses it is what the file records, and says so (as inspect does).
function holdersEl(f) {
  const hd = f.holders;
  if (!f.kubeletAccepts && hd.cpu && !hd.cpu.policy && !hd.cpu.shared.count && !(hd.cpu.holders || []).length) {
    // nothing of the file could be read as CPU state
    return h("div", { class: "holders-box", "data-testid": "holders" }, h("p", { class: "caption" }, T("holders")),
      h("p", { class: "muted", "data-testid": "holders-note" }, T("holders-not-read")));
  }
  const rows = fileHolderRows(f);
  const notes = [];
  if (!f.kubeletAccepts) notes.push(T(f.onReject === "discards-data" ? "holders-refused-discard" : "holders-refused-start"));
  if (hd.kind === "cpu" && hd.cpu && !hd.cpu.topology) notes.push(T("holders-no-topology"));
  else if (hd.kind === "dra") notes.push(T("holders-dra"));
  for (const n of hd.notes || []) if (!/^cpu_manager_state records CPU ids|^dra_manager_state records no NUMA/.test(n)) notes.push(n);
  return h("div", { class: "holders-box", "data-testid": "holders" },
    h("p", { class: "caption" }, T("holders")),
    rows.length ? holdersTable(rows, "holders-table") : h("p", { class: "muted" }, T("holders-none")),
    notes.map((n) => h("p", { class: "muted small", "data-testid": "holders-note" }, n)));
}

// allHolderRows are the rows of every checkpoint's holders, for the NUMA
// view.
function allHolderRows() {
  const r = state.lastInspect;
  const rows = noRows();
  if (r && r.ok) for (const f of r.result.files) if (f.holders) joinRows(rows, fileHolderRows(f));
  return rows;
}

// bar draws one resource row: segments for system-reserved, hugepages carved
// out of memory, reserved and free, scaled to the largest total of the row.
function bar(res, scale) {
  const total = res.total || 0;
  const hp = Math.max(0, total - (res.systemReserved || 0) - (res.allocatable || 0));
  const segs = [["sysres", res.systemReserved], ["hp", hp], ["reserved", res.reserved], ["free", res.free]];
  const width = scale > 0 ? (100 * total) / scale : 0;
  const outer = h("div", { class: "meter", role: "img",
    "aria-label": `${res.name}: ${T("total")} ${fmtBytes(total)}, ${T("system-reserved")} ${fmtBytes(res.systemReserved)}, ${T("reserved")} ${fmtBytes(res.reserved)}, ${T("free")} ${fmtBytes(res.free)}` });
  const inner = h("div", { class: "meter-inner" });
  inner.style.width = width.toFixed(2) + "%";
  for (const [cls, v] of segs) {
    if (!v || !total) continue;
    const s = h("span", { class: "seg " + cls, title: cls + ": " + fmtBytes(v) });
    s.style.width = ((100 * v) / total).toFixed(3) + "%";
    inner.append(s);
  }
  outer.append(inner);
  return outer;
}

function resourceTable(resources, scales, extraClass) {
  return h("div", { class: "scroll" }, h("table", { class: "res " + (extraClass || "") },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, T("resource")), h("th", { scope: "col" }, T("total")),
      h("th", { scope: "col" }, T("system-reserved")), h("th", { scope: "col" }, T("reserved")),
      h("th", { scope: "col" }, T("free")), h("th", { scope: "col", class: "barcol" }, h("span", { class: "visually-hidden" }, "bar")))),
    h("tbody", {}, resources.map((r) => h("tr", { "data-resource": r.name },
      h("th", { scope: "row" }, r.name),
      h("td", { "data-col": "total" }, bytesEl(r.total)),
      h("td", { "data-col": "systemReserved" }, bytesEl(r.systemReserved)),
      h("td", { "data-col": "reserved" }, bytesEl(r.reserved)),
      h("td", { "data-col": "free" }, bytesEl(r.free)),
      h("td", { class: "barcol" }, bar(r, scales[r.name] || 0)))))));
}

function renderNUMA() {
  const sec = $("numa-section");
  const box = $("numa-groups");
  const r = state.lastInspect;
  const numa = r && r.ok && r.result.numa;
  if (!numa || !numa.nodes || !numa.nodes.length) {
    sec.hidden = true;
    box.replaceChildren();
    return;
  }
  sec.hidden = false;
  const scales = {};
  for (const n of numa.nodes) for (const res of n.resources || []) scales[res.name] = Math.max(scales[res.name] || 0, res.total || 0);
  const byId = new Map(numa.nodes.map((n) => [n.id, n]));
  const groups = numa.groups && numa.groups.length ? numa.groups : numa.nodes.map((n) => ({ nodes: [n.id], resources: n.resources }));
  const held = allHolderRows();
  box.replaceChildren(...groups.map((g) => {
    const multi = g.nodes.length > 1;
    const label = multi ? T("group", { nodes: nodesText(g.nodes) }) : T("node", { id: g.nodes[0] });
    const gscales = {};
    for (const res of g.resources || []) gscales[res.name] = Math.max(scales[res.name] || 0, res.total || 0) * (multi ? g.nodes.length : 1);
    return h("section", { class: "group" + (multi ? " multi" : ""), "data-testid": "numa-group", "data-nodes": nodesText(g.nodes), "aria-label": label },
      h("h4", {}, label),
      multi && g.resources && g.resources.length
        ? h("div", { class: "group-sum", "data-testid": "group-sum" }, h("p", { class: "caption" }, T("group-sum")), resourceTable(g.resources, gscales, "sum"))
        : null,
      h("div", { class: "nodes" }, g.nodes.map((id) => nodeCard(byId.get(id) || { id }, scales, multi, heldOn(held, id)))));
  }));
}

// heldOn are the rows of held on NUMA node id, with what the engine left
// out of them.
function heldOn(held, id) {
  const rows = Object.assign(held.filter((x) => x.numa.includes(id)), { omitted: new Map(), hidden: 0, short: held.short });
  for (const [k, v] of held.omitted) if (v.numa.includes(id)) rows.omitted.set(k, v);
  return rows;
}

// nodeCard is one NUMA node: its memory table, CPUs, and who holds what on
// it (held: the checkpoints' holder rows on this node; the devices of a
// PodResources answer are listed below them).
function nodeCard(n, scales, titled, held) {
  const assigned = n.assignments !== undefined ? T("assignments", { n: n.assignments }) : "";
  const inTable = new Set((held || []).flatMap((x) => (x.ids || []).map((id) => x.resource + "\0" + id)));
  const devices = (n.devices || []).filter((d) => !inTable.has(d.resource + "\0" + d.id));
  return h("div", { class: "node" + (titled ? "" : " bare"), "data-testid": "numa-node", "data-node": String(n.id) },
    titled ? h("h5", {}, T("node", { id: n.id }), assigned ? h("span", { class: "muted" }, " · " + assigned) : null)
      : assigned ? h("p", { class: "muted small" }, assigned) : null,
    n.resources && n.resources.length ? resourceTable(n.resources, scales) : null,
    n.cpus !== undefined ? h("p", {}, h("strong", {}, T("cpus") + ": "), h("code", {}, n.cpus || "∅")) : null,
    n.machineMemory ? h("p", {}, h("strong", {}, T("machine-memory") + ": "), bytesEl(n.machineMemory)) : null,
    held && held.length ? h("div", { class: "holders-box", "data-testid": "node-holders" }, h("p", { class: "caption" }, T("held-here")), holdersTable(held, "node-holders-table")) : null,
    devices.length ? h("div", { class: "devices" }, h("p", { class: "caption" }, T("devices")),
      h("ul", { class: "devs" }, devices.map((d) => h("li", {},
        h("code", {}, d.resource), " ", h("strong", {}, d.id), " ",
        h("span", { class: "muted" }, d.pod ? "→ " + d.pod + (d.container ? " / " + d.container : "") : T("device-free")))))) : null);
}

function renderPods() {
  const sec = $("pods-section");
  const box = $("pods");
  const r = state.lastInspect;
  // A PodResources answer's assignments, and every checkpoint's holders
  // (the model the file cards and the NUMA view draw); omitted counts the
  // rows the engine left out of a summarised file.
  const rows = [];
  let omitted = 0;
  if (r && r.ok) {
    for (const f of r.result.files) {
      for (const a of f.assignments || []) {
        rows.push({ pod: a.pod, container: a.container, resource: a.resource, key: a.numa && a.numa.length ? "[" + nodesText(a.numa) + "]" : "–",
          amount: () => (a.bytes !== undefined ? bytesEl(a.bytes) : (a.amount || "")) });
      }
      if (f.holders) {
        const fr = fileHolderRows(f);
        for (const x of fr) rows.push({ ...x, pod: x.pod || "–", key: x.key === "–" ? "–" : "[" + x.key.replaceAll(",", " ") + "]" });
        omitted += fr.hidden;
      }
    }
  }
  if (!rows.length) { sec.hidden = true; box.replaceChildren(); return; }
  sec.hidden = false;
  const hidden = Math.max(0, rows.length + omitted - MAX_POD_ROWS);
  box.replaceChildren(h("div", { class: "scroll" }, h("table", { class: "pods" },
    h("thead", {}, h("tr", {}, ["pod", "container", "resource", "numa-affinity", "amount"].map((k) => h("th", { scope: "col" }, T(k))))),
    h("tbody", {}, rows.slice(0, MAX_POD_ROWS).map((a) => h("tr", {},
      h("td", {}, h("code", {}, a.pod)), h("td", {}, a.container), h("td", {}, a.resource),
      h("td", {}, a.key), h("td", {}, a.amount())))))),
    hidden ? h("p", { class: "muted", "data-testid": "rows-hidden" }, T("rows-hidden", { n: hidden, shown: MAX_POD_ROWS })) : "");
}

// texts are a finding's title, explanation and remedy in the page's
// language when findings-zh.js translates them (translated: true), else the
// engine's English.
function texts(f) {
  if (lang !== "en" && typeof findingTexts === "function") {
    try {
      const x = findingTexts(lang, f);
      if (x && x.translated) return { title: x.title || f.title, explanation: x.explanation || f.explanation, remedy: x.remedy || f.remedy, translated: true };
    } catch (_) { /* the English text below */ }
  }
  const title = typeof findingTitle === "function" ? findingTitle(lang, f.code, f.title) : f.title;
  return { title, explanation: f.explanation, remedy: f.remedy, translated: false };
}

// tabOf is the tab index that holds the file the engine calls name, or -1.
function tabOf(name) {
  let i = state.files.findIndex((f) => f.name === name);
  if (i < 0) i = state.files.findIndex((f) => !f.name && f.autoName === name);
  return i;
}

// refText is "file:line", "file:line:column" or "file#/pointer".
function refText(e) {
  if (e.path) return e.file + "#" + e.path;
  if (e.line) return e.file + ":" + e.line + (e.column ? ":" + e.column : "");
  return e.file;
}

// refLink is an evidence reference that selects its tab and its line.
function refLink(e) {
  return h("a", { href: "#input", class: "ref", "data-testid": "ref", "data-file": e.file, "data-line": e.line || undefined,
    title: (e.quote || "") + (e.line ? (e.quote ? " · " : "") + T("line-n", { n: e.line }) : ""),
    onclick: (ev) => { ev.preventDefault(); reveal(e); } }, h("code", {}, refText(e)));
}

// reveal selects the tab of a reference and, in it, the line (from the
// column on) the reference points at, and scrolls it into view.
function reveal(e) {
  const i = tabOf(e.file);
  if (i < 0) return;
  selectFile(i);
  const ta = $("input");
  const text = ta.value;
  let start = 0, end = text.length;
  if (e.line) {
    let line = 1, at = 0;
    while (line < e.line) { const nl = text.indexOf("\n", at); if (nl < 0) break; at = nl + 1; line++; }
    const nl = text.indexOf("\n", at);
    start = Math.min(at + Math.max(0, (e.column || 1) - 1), nl < 0 ? text.length : nl);
    end = nl < 0 ? text.length : nl;
    if (start === end) start = at;
  } else {
    end = 0;
  }
  ta.focus({ preventScroll: true });
  ta.setSelectionRange(start, end);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 18;
  ta.scrollTop = Math.max(0, ((e.line || 1) - 3) * lh);
  ta.scrollIntoView({ block: "nearest" });
  ta.dispatchEvent(new CustomEvent("numascope:reveal", { detail: { line: e.line || 0, column: e.column || 0 } }));
}

// marksOf are the marks of one tab: every problem and finding reference
// with a line in that tab's file.
function marksOf(i) {
  const f = state.files[i];
  if (!f) return [];
  const name = f.name || f.autoName;
  const out = [], seen = new Set();
  for (const it of state.items || []) {
    for (const e of it.refs) {
      if (e.file !== name || !e.line) continue;
      const key = e.line + ":" + (e.column || 0) + ":" + it.title;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ line: e.line, column: e.column || 1, severity: it.severity, message: it.kind === "finding" ? texts(it.finding).title : it.title });
    }
  }
  return out;
}

// sendMarks tells the editor (editor.js listens on the text area) the marks
// of the shown tab whenever they change; an empty list clears them.
let lastMarks = null;
function sendMarks() {
  const marks = marksOf(state.active);
  const key = state.active + ":" + JSON.stringify(marks);
  if (key === lastMarks) return;
  lastMarks = key;
  $("input").dispatchEvent(new CustomEvent("numascope:marks", { detail: marks }));
}

// taeTable is the requested/free/fits table of a TopologyAffinityError,
// one row per resource and NUMA node or group.
function taeTable(a) {
  const rows = (a && a.resources) || [];
  if (!rows.length) return null;
  return h("div", { class: "scroll", "data-testid": "tae-table" }, h("table", { class: "pods tae" },
    h("caption", { class: "caption" }, T("tae-caption")),
    h("thead", {}, h("tr", {}, ["col-resource", "col-numa", "col-requested", "col-free", "col-fits", "col-note"].map((k) => h("th", { scope: "col" }, T(k))))),
    h("tbody", {}, rows.map((x) => h("tr", { "data-fits": String(!!x.fits), "data-resource": x.resource },
      h("th", { scope: "row" }, x.resource),
      h("td", {}, (x.numaNodes || []).length > 1 ? T("group", { nodes: nodesText(x.numaNodes) }) : T("node", { id: (x.numaNodes || [])[0] })),
      h("td", {}, h("data", { value: x.requested }, x.requested)),
      h("td", {}, x.free ? h("data", { value: x.free }, x.free) : "–"),
      h("td", { class: x.fits ? "fits" : "nofit" }, x.fits ? "✓ " + T("fits") : "✗ " + T("does-not-fit")),
      h("td", { class: "muted" }, [x.note, x.source].filter(Boolean).join(" · ")))))));
}

// remedyEl shows a remedy, with a link to the README's install section
// when it names a numascope command to run on the node.
function remedyEl(text) {
  if (!text) return null;
  const cmd = /\b(inspect|diagnose|podresources|admit|agent|kubectl numascope)\b/.test(text);
  return h("p", { class: "remedy" }, h("strong", {}, T("remedy") + ": "), text,
    cmd ? [" ", h("a", { href: INSTALL_URL, target: "_blank", rel: "noopener noreferrer", "data-testid": "install-link" }, T("install-link"))] : null);
}

function findingEl(it) {
  if (it.kind === "problem") {
    const p = it.problem;
    return h("li", { class: "finding sev-" + it.severity, "data-testid": "finding", "data-code": it.code || "file-problem", "data-file": it.file },
      h("p", { class: "ftitle" }, h("span", { class: "badge sev" }, T("severity-" + it.severity)), " ", h("strong", {}, it.file), " ", refLink(it.refs[0])),
      h("p", {}, p.message),
      remedyEl(p.remedy));
  }
  const f = it.finding;
  const x = texts(f);
  return h("li", { class: "finding sev-" + it.severity, "data-code": f.code, "data-testid": "finding" },
    h("p", { class: "ftitle" }, h("span", { class: "badge sev" }, T("severity-" + it.severity)), " ", x.title, " ", h("code", { class: "muted" }, f.code)),
    f.pod ? h("p", { class: "muted" }, h("code", {}, f.pod)) : null,
    x.explanation ? h("p", {}, x.explanation) : null,
    f.topologyAffinityError && f.topologyAffinityError.cause ? h("p", {}, h("strong", {}, T("cause") + ": "), f.topologyAffinityError.cause) : null,
    f.code === "TopologyAffinityError" ? taeTable(f.topologyAffinityError) : null,
    remedyEl(x.remedy),
    it.refs.length ? h("p", { class: "refs muted" }, T("evidence") + ": ", it.refs.map((e, i) => [i ? ", " : "", refLink(e)])) : null,
    x.translated ? h("details", { class: "original" }, h("summary", {}, T("english-original")),
      h("p", { class: "ftitle" }, f.title), f.explanation ? h("p", {}, f.explanation) : null, f.remedy ? h("p", {}, f.remedy) : null) : null);
}

function renderFindings() {
  const box = $("findings");
  const d = state.lastDiagnosis;
  const r = state.lastInspect;
  box.setAttribute("aria-busy", state.diagnosing ? "true" : "false");
  if (!r) { box.replaceChildren(h("p", { class: "empty" }, T("no-findings"))); return; }
  if (!r.ok) { box.replaceChildren(errorBox(r.error)); return; }
  const items = state.items || [];
  const skipped = d && d.ok ? (d.result.skipped || []) : [];
  // what diagnose asks for when the inputs cannot show the problem
  const next = d && d.ok && d.result.report && typeof d.result.report.next === "string" ? d.result.report.next : "";
  box.replaceChildren(...[
    d && !d.ok && d.error.code !== "cancelled" ? errorBox(d.error) : null,
    items.length ? h("ul", { class: "findings" }, items.map(findingEl))
      : state.diagnosing ? null : h("p", { class: "empty", "data-testid": "no-problems" }, T("no-problems")),
    next && !state.diagnosing ? h("p", { class: "next", "data-testid": "next" }, h("strong", {}, T("next-evidence")), " ", next) : null,
    state.diagnosing ? h("p", { class: "empty", "data-testid": "diagnosing" }, T("diagnosing")) : null,
    skipped.length ? h("div", { class: "skipped" }, h("p", { class: "caption" }, T("skipped")),
      h("ul", {}, skipped.map((x) => h("li", {}, h("strong", {}, x.file), ": ", x.reason)))) : null].filter(Boolean));
}

// renderPolicies shows, in the policy selects, what a kubelet-config tab
// sets, and puts its Topology Manager policy and scope into the simulator
// when they change.
let lastConfig = "";
function renderPolicies() {
  const r = state.lastInspect;
  const c = r && r.ok ? r.result.config : null;
  for (const [id, field] of [["cpu-policy", "cpuManagerPolicy"], ["memory-policy", "memoryManagerPolicy"]]) {
    const opt = $(id).options[0];
    opt.textContent = c && c[field] ? T("policy-from-config", { policy: c[field], file: c.file }) : T("policy-as-file");
    $(id).dataset.fromConfig = c && c[field] ? c[field] : "";
  }
  const key = c ? JSON.stringify([c.file, c.topologyManagerPolicy, c.topologyManagerScope]) : "";
  $("tm-policy-source").textContent = c && c.topologyManagerPolicy ? T("tm-from-config", { file: c.file }) : "";
  if (key && key !== lastConfig) {
    if ([...$("tm-policy").options].some((o) => o.value === c.topologyManagerPolicy)) $("tm-policy").value = c.topologyManagerPolicy;
    if (c.topologyManagerScope === "pod" || c.topologyManagerScope === "container") $("tm-scope").value = c.topologyManagerScope;
    lastConfig = key;
    runAdmit();
  }
  if (!key) lastConfig = "";
}

// ---------------------------------------------------------------- admission simulator

function admitRequest() {
  let body;
  const text = $("tm-hints").value.trim();
  try { body = text ? JSON.parse(text) : {}; } catch (e) { return { error: { code: "bad-request", message: "hints JSON: " + e.message } }; }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { error: { code: "bad-request", message: "hints JSON: want an object like {\"numaNodes\":[0,1],\"providers\":[…]}" } };
  body.policy = $("tm-policy").value;
  const options = Object.assign({}, body.options || {});
  if ($("tm-closest").checked) options["prefer-closest-numa-nodes"] = "true"; else delete options["prefer-closest-numa-nodes"];
  const max = $("tm-max").value.trim();
  if (max && max !== "8") options["max-allowable-numa-nodes"] = max; else delete options["max-allowable-numa-nodes"];
  body.options = options;
  return { body };
}

function admitOptions() {
  const options = {};
  if ($("tm-closest").checked) options["prefer-closest-numa-nodes"] = "true";
  const max = $("tm-max").value.trim();
  if (max && max !== "8") options["max-allowable-numa-nodes"] = max;
  return options;
}

function hintText(hint) { return hint && hint.numaAffinity ? "[" + nodesText(hint.numaAffinity) + "]" : T("any-numa"); }
function hintEl(hint) { return h("code", {}, hintText(hint) + (hint && hint.preferred ? " ✓" : "")); }

// mergeWork shows how one merge picked its hint: the rule and each
// provider's hint list as it entered the merge.
function mergeWork(rep) {
  return [
    rep.rule ? h("p", { class: "muted" }, T("merge-rule", { rule: rep.rule, count: rep.bestNonPreferredAffinityCount, combos: String(rep.combinations) })) : null,
    rep.lists && rep.lists.length ? h("div", { class: "scroll" }, h("table", { class: "pods lists" },
      h("thead", {}, h("tr", {}, ["provider", "resource", "origin", "hints"].map((k) => h("th", { scope: "col" }, T("col-" + k))))),
      h("tbody", {}, rep.lists.map((l) => h("tr", {},
        h("td", {}, String(l.provider)), h("td", {}, l.resource || "–"), h("td", {}, h("code", {}, l.origin)),
        h("td", {}, (l.hints || []).map((x, i) => [i ? ", " : "", hintEl(x)]))))))) : null,
  ];
}

let admitSeq = 0;
async function runAdmit() {
  const box = $("admit-result");
  if (!engineReady) return;
  const my = ++admitSeq;
  const pod = $("tm-pod").value;
  if (pod.trim()) return runSimulate(box, my, pod);
  if (!state.admitTouched) {
    // The hints in the form are a sample: no verdict until someone asks.
    box.replaceChildren(h("p", { class: "muted", "data-testid": "admit-idle" }, T("admit-idle")));
    return;
  }
  if (!state.caps.has("merge")) {
    box.replaceChildren(h("p", { class: "muted" }, T("unavailable", { method: "merge" })));
    return;
  }
  const req = admitRequest();
  const resp = req.error ? { ok: false, error: req.error } : await engine.call("merge", req.body);
  if (my !== admitSeq) return;
  if (!resp.ok) { box.replaceChildren(errorBox(resp.error)); return; }
  const res = resp.result;
  const [rule, table] = mergeWork(res.report || {});
  box.replaceChildren(h("div", { class: "verdict " + (res.admit ? "ok" : "bad"), "data-admit": String(!!res.admit) },
    h("p", { class: "verdict-line strong" }, res.admit ? T("admitted") : T("rejected")),
    h("p", {}, T("best-hint") + ": ", h("code", {}, hintText(res.bestHint)), " · ",
      res.bestHint && res.bestHint.preferred ? T("preferred") : T("not-preferred")),
    res.why ? h("p", {}, res.why) : null,
    rule),
    ...[table].filter(Boolean));
}

// runSimulate admits the pod on the node the input tabs describe.
async function runSimulate(box, my, pod) {
  if (!state.caps.has("simulate")) {
    box.replaceChildren(h("p", { class: "muted" }, T("unavailable", { method: "simulate" })));
    return;
  }
  const resp = await engine.call("simulate", {
    pod, files: requestFiles().files,
    policy: $("tm-policy").value, scope: $("tm-scope").value, options: admitOptions(),
  }, { stale: true });
  if (my !== admitSeq) return;
  if (!resp.ok && resp.error.code === "cancelled") return; // the run for the new input simulates again
  if (!resp.ok) { box.replaceChildren(errorBox(resp.error)); return; }
  const res = resp.result;
  const used = Object.keys(res.used || {}).sort().map((k) => k + ": " + res.used[k]).join(", ");
  const steps = res.steps || [];
  box.replaceChildren(h("div", { class: "verdict " + (res.admit ? "ok" : "bad"), "data-admit": String(!!res.admit), "data-testid": "simulate-verdict" },
    h("p", { class: "verdict-line strong" }, res.admit ? T("admitted") : T("sim-rejected", { reason: res.reason || "?" })),
    h("p", {}, T("sim-pod", { pod: res.pod, qos: res.qos, policy: res.policy, scope: res.scope })),
    res.message ? h("p", {}, h("code", {}, res.message)) : null,
    h("p", { class: "strong" }, T("sim-account")),
    h("ul", { "data-testid": "simulate-account" }, (res.account || []).map((a) => h("li", {}, a))),
    res.notes && res.notes.length ? [h("p", { class: "strong" }, T("sim-notes")), h("ul", { class: "muted" }, res.notes.map((n) => h("li", {}, n)))] : null,
    used ? h("p", { class: "muted" }, T("sim-used", { files: used })) : null,
    res.skipped && res.skipped.length ? h("p", { class: "muted" }, T("sim-skipped", { files: res.skipped.join(", ") })) : null),
    ...(steps.length ? steps.map((st) => {
      const rep = st.merge || {};
      return h("section", { class: "sim-step", "data-testid": "simulate-step" },
        h("h4", {}, st.container ? T("sim-step", { name: st.container }) : T("sim-step-pod")),
        st.merge ? h("p", {}, T("best-hint") + ": ", hintEl(rep.bestHint), " · ",
          rep.bestHint && rep.bestHint.preferred ? T("preferred") : T("not-preferred"), " · ",
          rep.admit ? T("admitted") : T("sim-rejected", { reason: "TopologyAffinityError" })) : null,
        st.allocateError ? h("p", { class: "remedy" }, T("sim-allocate-error", { msg: st.allocateError })) : null,
        st.merge ? mergeWork(rep) : null);
    }) : [h("p", { class: "muted" }, T("sim-no-steps"))]));
}

// ---------------------------------------------------------------- sharing

function b64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// ShareError is a share link that cannot be opened; its message says why
// and what to do, in the page's language.
class ShareError extends Error {}

const SHARE_FAIL = {
  Err: ShareError,
  tooLarge: (cap) => T("share-too-large", { max: fmtBytes(cap) }),
  bad: (msg) => T("share-deflate", { msg }),
};

// FileError is an opened file that cannot be read; its message says why.
class FileError extends Error {}

// GZIP_LAYERS is how many gzip layers an opened file may have (a .gz of a
// .gz happens when a bundle is compressed again), as the command line reads.
const GZIP_LAYERS = 3;

// readOpened reads an opened or dropped file as text. A gzip file (one that
// starts with the gzip magic 1f 8b, whatever its name) is decompressed in the
// browser, up to GZIP_LAYERS layers, and refused as soon as it unpacks to
// more than cap bytes, so a journal.gz reads as the command line reads it.
async function readOpened(file, cap) {
  let bytes = new Uint8Array(await file.arrayBuffer());
  for (let layer = 0; bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b; layer++) {
    if (layer === GZIP_LAYERS) throw new FileError(T("gzip-layers", { name: file.name, n: GZIP_LAYERS }));
    bytes = await inflate(bytes, cap, "gzip", {
      Err: FileError,
      tooLarge: (max) => T("gzip-too-large", { name: file.name, max: fmtBytes(max) }),
      bad: (msg) => T("gzip-bad", { name: file.name, msg }),
    });
  }
  return new TextDecoder().decode(bytes);
}

function unb64url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new ShareError(T("share-base64"));
  let bin;
  try { bin = atob(s.replace(/-/g, "+").replace(/_/g, "/")); } catch (_) { throw new ShareError(T("share-base64")); }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// inflate decompresses raw deflate data (or, with format "gzip", one gzip
// layer) as a stream, feeding it a slice at a time and reading chunk by
// chunk, and stops as soon as the output passes cap: a bomb is refused after
// about cap bytes, not after all of it. fail names the errors: fail.tooLarge()
// and fail.bad(msg) give the messages, fail.Err their class (a share link's by
// default).
async function inflate(bytes, cap, format, fail) {
  fail = fail || SHARE_FAIL;
  const ds = new DecompressionStream(format || "deflate-raw");
  const writer = ds.writable.getWriter();
  const reader = ds.readable.getReader();
  let stop = false;
  const feeding = (async () => {
    for (let off = 0; off < bytes.length && !stop; off += SHARE_SLICE) {
      await writer.write(bytes.subarray(off, off + SHARE_SLICE));
    }
    if (!stop) await writer.close();
  })();
  feeding.catch(() => { /* reported by the reader */ });
  const chunks = [];
  let got = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got += value.length;
      if (got > cap) {
        stop = true;
        reader.cancel().catch(() => {});
        writer.abort().catch(() => {});
        throw new fail.Err(fail.tooLarge(cap));
      }
      chunks.push(value);
    }
    await feeding;
  } catch (e) {
    if (e instanceof fail.Err) throw e;
    throw new fail.Err(fail.bad((e && e.message) || String(e)));
  }
  const out = new Uint8Array(got);
  let off = 0;
  for (const c of chunks) { out.set(c, off); off += c.length; }
  return out;
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

// setPolicies selects the configured CPU and memory manager policies; a
// value the selects do not offer is "" (the kubelet configuration's or the
// file's).
function setPolicies(cpu, memory) {
  const pick = (id, v) => ([...$(id).options].some((o) => o.value === v) ? v : "");
  state.cpuPolicy = pick("cpu-policy", cpu);
  state.memoryPolicy = pick("memory-policy", memory);
  $("cpu-policy").value = state.cpuPolicy;
  $("memory-policy").value = state.memoryPolicy;
}

// setPolicy sets one policy named the kubelet's way: "none"/"static" is
// the CPU manager's, "None"/"Static" the memory manager's.
function setPolicy(p) {
  if (p === "none" || p === "static") setPolicies(p, state.memoryPolicy);
  else if (p === "None" || p === "Static") setPolicies(state.cpuPolicy, p);
}

// setKubeletVersion selects the kubelet release the verdicts are for; a
// value the select does not offer (an old or edited share link) is the
// newest.
function setKubeletVersion(v) {
  const sel = $("kubelet-version");
  state.kubeletVersion = [...sel.options].some((o) => o.value === v) ? v : "";
  sel.value = state.kubeletVersion;
}

function shareState() {
  return {
    v: 1,
    f: state.files.filter((f) => f.content || f.name).map((f) => [f.name || "", f.content]),
    c: state.cpuPolicy || undefined,
    m: state.memoryPolicy || undefined,
    t: state.active || undefined,
    l: lang,
    th: state.theme !== "auto" ? state.theme : undefined,
    k: state.kubeletVersion || undefined,
    a: {
      policy: $("tm-policy").value, scope: $("tm-scope").value, pod: $("tm-pod").value || undefined,
      closest: $("tm-closest").checked, max: $("tm-max").value, hints: $("tm-hints").value, u: state.admitTouched || undefined,
    },
  };
}

async function encodeShare(s) {
  return (await encodeShareSized(s)).frag;
}

// encodeShareSized is encodeShare's fragment and the size of the JSON it
// inflates to. The work is share-worker.js's: the page's thread only
// copies the state to it. Where that worker cannot run, it is done here.
let shareWorker = null, shareCalls = 0;
const shareWaiting = new Map();
function encodeShareSized(s) {
  if (shareWorker === null) {
    try {
      shareWorker = new Worker("share-worker.js");
      shareWorker.onmessage = (ev) => {
        const w = shareWaiting.get(ev.data.id);
        if (!w) return;
        shareWaiting.delete(ev.data.id);
        if (ev.data.error) w.here(); else w.resolve({ frag: ev.data.frag, inflated: ev.data.inflated });
      };
      shareWorker.onerror = () => { shareWorker = false; for (const w of shareWaiting.values()) w.here(); shareWaiting.clear(); };
    } catch (_) {
      shareWorker = false;
    }
  }
  return new Promise((resolve) => {
    const here = () => encodeShareHere(s).then(resolve);
    if (!shareWorker) { here(); return; }
    const id = ++shareCalls;
    shareWaiting.set(id, { resolve, here });
    shareWorker.postMessage({ id, state: s });
  });
}

async function encodeShareHere(s) {
  const json = new TextEncoder().encode(JSON.stringify(s));
  return { frag: SHARE_PREFIX + b64url(await pipe(json, new CompressionStream("deflate-raw"))), inflated: json.length };
}

// decodeShare reads a share link's fragment, refusing (with a ShareError)
// a link that is too long, that inflates past the cap, or that is not a
// version 1 share document.
async function decodeShare(hash) {
  const data = hash.slice(SHARE_PREFIX.length);
  if (data.length > MAX_SHARE_CHARS) {
    throw new ShareError(T("share-too-long", { size: fmtBytes(data.length), max: fmtBytes(MAX_SHARE_CHARS) }));
  }
  const bytes = unb64url(data);
  const json = new TextDecoder().decode(await inflate(bytes, MAX_SHARE_BYTES));
  let s;
  try { s = JSON.parse(json); } catch (e) { throw new ShareError(T("share-json", { msg: e.message })); }
  if (!s || typeof s !== "object" || Array.isArray(s)) throw new ShareError(T("share-shape"));
  if (s.v !== 1) throw new ShareError(T("share-version", { v: JSON.stringify(s.v === undefined ? null : s.v).slice(0, 20) }));
  const okFile = (f) => Array.isArray(f) && f.length === 2 && typeof f[0] === "string" && typeof f[1] === "string";
  if (!Array.isArray(s.f) || !s.f.every(okFile)) throw new ShareError(T("share-shape"));
  if (s.a !== undefined && (typeof s.a !== "object" || s.a === null || Array.isArray(s.a))) throw new ShareError(T("share-shape"));
  return s;
}

// updateShare makes the share link of the page's state. Calls while one is
// being made are served by one more after it, so that a burst of changes
// copies a large state to the share worker twice, not once per change; the
// promise resolves when the link is the current state's.
let shareRun = null, shareDirty = false;
function updateShare() {
  shareDirty = true;
  if (!shareRun) {
    shareRun = (async () => {
      try {
        while (shareDirty) {
          shareDirty = false;
          await makeShare().catch(() => { /* the link stays the last one made */ });
        }
      } finally {
        shareRun = null;
      }
    })();
  }
  return shareRun;
}

async function makeShare() {
  const { frag, inflated } = await encodeShareSized(shareState());
  const share = $("share");
  const long = frag.length - SHARE_PREFIX.length;
  if (long > MAX_SHARE_CHARS || inflated > MAX_SHARE_BYTES) {
    // A link this long would be refused when opened: say so instead.
    share.href = "#";
    share.dataset.unshareable = long > MAX_SHARE_CHARS ? T("share-unshareable", { size: fmtBytes(long), max: fmtBytes(MAX_SHARE_CHARS) })
      : T("share-unshareable-inflated", { size: fmtBytes(inflated), max: fmtBytes(MAX_SHARE_BYTES) });
    share.title = share.dataset.unshareable;
    share.classList.add("share-off");
    return;
  }
  delete share.dataset.unshareable;
  share.removeAttribute("title");
  share.classList.remove("share-off");
  share.href = location.href.split("#")[0] + frag;
}

// notLoaded says, in the banner above the panes, which inputs of a share
// link were not loaded and why; [] hides it.
function notLoaded(sentences) {
  const box = $("limit-notice");
  box.hidden = sentences.length === 0;
  $("limit-notice-text").textContent = sentences.join(" ");
  if (sentences.length) announce(T("limit-title") + " " + sentences.join(" "));
}

// applyAdmitState fills the admission simulator from a share link's a; a
// field's text over the fields' limits is left out, and a sentence for
// each such field is returned.
function applyAdmitState(a) {
  if (!a) return [];
  const left = [];
  for (const [k, key] of [["pod", "pod-label"], ["hints", "hints-label"]]) {
    if (typeof a[k] === "string" && !fieldFits(a[k])) {
      left.push(T("not-loaded-field", { field: fieldName(key), size: fmtBytes(utf8Bytes(a[k])), lines: T("n-lines", { n: lineCount(a[k]) }),
        max: fmtBytes(SHOWN_CHARS), maxLines: SHOWN_LINES }));
      a = { ...a, [k]: undefined };
    }
  }
  state.admitTouched = !!a.u;
  if (a.policy) $("tm-policy").value = a.policy;
  $("tm-closest").checked = !!a.closest;
  if (a.max) $("tm-max").value = a.max;
  if (typeof a.hints === "string") $("tm-hints").value = a.hints;
  $("tm-scope").value = a.scope === "pod" ? "pod" : "container";
  $("tm-pod").value = typeof a.pod === "string" ? a.pod : "";
  return left;
}

// showShareError puts a share link's problem in the banner above the panes,
// where it stays (the result pane is redrawn on every run) until dismissed
// or until a good link is opened.
function showShareError(msg) {
  $("share-error-text").textContent = msg;
  $("share-error").hidden = false;
  announce(T("bad-share", { msg }));
}

async function loadFromHash() {
  const hash = location.hash;
  if (!hash.startsWith(SHARE_PREFIX)) return false;
  let s;
  try {
    s = await decodeShare(hash);
  } catch (e) {
    showShareError(e instanceof ShareError ? e.message : T("share-shape") + " (" + ((e && e.message) || e) + ")");
    return false;
  }
  $("share-error").hidden = true;
  setPolicies(typeof s.c === "string" ? s.c : "", typeof s.m === "string" ? s.m : "");
  if (typeof s.p === "string") setPolicy(s.p); // a link from before the policies per kind
  if (typeof s.l === "string" && I18N[s.l]) applyLanguage(s.l);
  if (s.th === "light" || s.th === "dark") applyTheme(s.th);
  setKubeletVersion(typeof s.k === "string" ? s.k : "");
  const left = applyAdmitState(s.a);
  // The files that fit the page's limits are loaded, in order; the others
  // are named in the banner.
  const files = s.f.map(([name, content], i) => ({ name: name || T("untitled", { n: i + 1 }), content, given: name }));
  const { kept, refused } = fitFiles(files, 0, 0);
  setFiles(kept.map((f) => ({ name: f.given, content: f.content })), { quiet: true });
  const missing = refused.length ? refused.concat(T("not-loaded-do"), left) : left;
  notLoaded(missing.length ? [T("link-holds", { n: s.f.length, kept: kept.length })].concat(missing) : []);
  if (Number.isInteger(s.t) && s.t > 0 && s.t < state.files.length && kept.length === s.f.length) selectFile(s.t);
  return true;
}

// ---------------------------------------------------------------- examples

function renderExamples() {
  const sel = $("examples");
  const keep = sel.firstElementChild;
  sel.replaceChildren(keep);
  for (const ex of state.examples) {
    const title = (ex.title && (ex.title[lang] || ex.title.en)) || ex.id;
    sel.append(h("option", { value: ex.id }, title));
  }
}

function loadExample(id) {
  const ex = state.examples.find((e) => e.id === id);
  if (!ex) return;
  if (ex.files && ex.files.length) setFiles(ex.files, { quiet: true });
  if (ex.admission) {
    applyAdmitState({ u: true,
      policy: ex.admission.policy,
      closest: !!ex.admission.closest, max: ex.admission.max || "8",
      hints: ex.admission.hints ? compactJSON(ex.admission.hints) : $("tm-hints").value,
      scope: ex.admission.scope, pod: ex.admission.pod || "",
    });
  }
  setPolicies("", "");
  setPolicy(ex.policy || "");
  changed({ now: true });
  runAdmit();
}

// ---------------------------------------------------------------- misc

// compactJSON prints an object one key per line but keeps arrays and small
// objects on one line, so a hints document stays readable in a text area.
function compactJSON(v, indent) {
  indent = indent || "";
  const flat = JSON.stringify(v);
  if (flat === undefined || flat.length <= 72 || v === null || typeof v !== "object") return flat;
  const inner = indent + "  ";
  if (Array.isArray(v)) return "[\n" + v.map((x) => inner + compactJSON(x, inner)).join(",\n") + "\n" + indent + "]";
  return "{\n" + Object.entries(v).map(([k, x]) => inner + JSON.stringify(k) + ": " + compactJSON(x, inner)).join(",\n") + "\n" + indent + "}";
}

// utf8Bytes is the length of s in UTF-8, counted without encoding it.
function utf8Bytes(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    n += c < 0x800 || (c >= 0xd800 && c < 0xe000) ? 1 : 2; // a surrogate pair is 4 bytes
  }
  return n;
}

// insertedSize is the size in bytes the text area would hold once text
// replaces its selection, or a lower bound above limit when that is clear
// from the lengths alone (a 50 MB paste is not counted character by character).
function insertedSize(el, text, limit) {
  if (text.length > limit) return text.length;
  const v = el.value;
  const kept = v.length - (el.selectionEnd - el.selectionStart);
  if (kept + text.length > limit * 3) return kept + text.length;
  return utf8Bytes(v.slice(0, el.selectionStart)) + utf8Bytes(v.slice(el.selectionEnd)) + utf8Bytes(text);
}

function showInputError(box, msg) {
  box.textContent = msg;
  box.hidden = false;
  announce(msg);
}

function clearInputError(box) {
  if (!box.hidden) { box.hidden = true; box.textContent = ""; }
}

// guardInsert sees every paste, drop or insertion into a text area before
// the browser puts the text in it (a 50 MB paste blocks the page for a
// minute in the text area alone) and calls check(ev, text, bulk), which
// may cancel it: bulk is a paste, a drop or an insertion of more than a
// few words at once.
function guardInsert(el, check) {
  const see = (ev, text, bulk) => {
    if (typeof text !== "string" || text.length === 0) return;
    check(ev, text, bulk || text.length > 256);
  };
  el.addEventListener("paste", (ev) => see(ev, ev.clipboardData && ev.clipboardData.getData("text/plain"), true));
  el.addEventListener("beforeinput", (ev) => {
    // Every insertion: typed, pasted, dropped, or sent by an input method.
    if (!ev.inputType.startsWith("insert")) return;
    see(ev, typeof ev.data === "string" ? ev.data : ev.dataTransfer && ev.dataTransfer.getData("text/plain"), ev.inputType.startsWith("insertFrom"));
  });
}

function cancel(ev) {
  ev.preventDefault();
  ev.stopImmediatePropagation();
}

// guardTab is guardInsert's check of the input tabs' text area: an
// insertion that would take the tab past MAX_FILE_BYTES or all tabs past
// MAX_TOTAL_BYTES is refused and said so; a bulk one after which the tab
// is too large to show is made here, on the tab's content, which is then
// shown held (see shownOf) instead of laid out whole.
function guardTab(ev, text, bulk) {
  const el = $("input"), i = state.active, f = state.files[i];
  const tab = fileLabel(f, i);
  if (el.readOnly) {
    cancel(ev);
    showInputError($("input-error"), T("held-read-only", { tab }));
    return;
  }
  const size = insertedSize(el, text, MAX_FILE_BYTES);
  let msg = "";
  if (size > MAX_FILE_BYTES) msg = T("paste-too-big", { tab, size: fmtBytes(size), max: fmtBytes(MAX_FILE_BYTES) });
  else if (otherBytes(i) + size > MAX_TOTAL_BYTES) {
    msg = T("paste-total", { tab, size: fmtBytes(otherBytes(i) + size), max: fmtBytes(MAX_TOTAL_BYTES) });
  }
  if (msg) { cancel(ev); showInputError($("input-error"), msg); return; }
  if (!bulk) return;
  const v = el.value;
  const next = v.slice(0, el.selectionStart) + text + v.slice(el.selectionEnd);
  if (shownCut(next) === next.length) return; // the browser inserts it
  cancel(ev);
  f.content = next;
  f.sizedFor = next;
  f.bytes = size;
  $("remove").disabled = false;
  clearInputError($("input-error"));
  renderTabs();
  changed({ now: true });
}

// guardField is guardInsert's check of a field of the admission simulator:
// at most SHOWN_CHARS bytes and SHOWN_LINES lines.
function guardField(el, label) {
  return (ev, text) => {
    const size = insertedSize(el, text, SHOWN_CHARS);
    const v = el.value;
    const lines = size <= SHOWN_CHARS ? lineCount(v.slice(0, el.selectionStart) + text + v.slice(el.selectionEnd)) : 0;
    if (size <= SHOWN_CHARS && lines <= SHOWN_LINES) return;
    cancel(ev);
    showInputError($("admit-input-error"), T("field-too-big", {
      field: label(), size: size > SHOWN_CHARS ? fmtBytes(size) : T("n-lines", { n: lines }),
      max: fmtBytes(SHOWN_CHARS), lines: SHOWN_LINES,
    }));
  };
}

// fieldName is the short name of a field of the admission simulator, from
// its label (the i18n key).
function fieldName(key) {
  return T(key).split(/[:(（]/)[0].trim();
}

// fieldFits says whether a text fits a field of the admission simulator.
function fieldFits(text) {
  return utf8Bytes(text) <= SHOWN_CHARS && lineCount(text) <= SHOWN_LINES;
}

function announce(msg) {
  const a = $("announce");
  a.textContent = "";
  setTimeout(() => { a.textContent = msg; }, 50);
}

function setLoading(text, pct) {
  $("loading-text").textContent = text;
  const p = $("loading-progress");
  if (pct === undefined) p.removeAttribute("value"); else p.value = pct;
}

// ---------------------------------------------------------------- wiring

function wire() {
  guardInsert($("input"), guardTab);
  for (const [id, key] of [["tm-pod", "pod-label"], ["tm-hints", "hints-label"]]) {
    guardInsert($(id), guardField($(id), () => fieldName(key)));
    $(id).addEventListener("input", () => clearInputError($("admit-input-error")));
  }
  $("share-error-close").addEventListener("click", () => { $("share-error").hidden = true; });
  $("limit-notice-close").addEventListener("click", () => { $("limit-notice").hidden = true; });
  $("input").addEventListener("input", (ev) => {
    const f = state.files[state.active];
    // A held tab's text area shows part of it: nothing there is an edit.
    if ($("input").readOnly) return;
    const value = $("input").value;
    // An input event that changed nothing (a browser's insertion of a
    // multi-line text fires one per line, the text whole in each) must not
    // supersede the run the first one started.
    if (value === f.content) return;
    const before = f.content.length;
    f.content = value;
    $("remove").disabled = false;
    clearInputError($("input-error"));
    // A paste or drop, or any edit of more than a few words at once, is
    // complete when it arrives: no pause to wait for.
    // (A text replaced by one of the same length changes no length: the
    // inserted data says it.)
    const bulk = (ev.inputType || "").startsWith("insertFrom") || Math.abs(f.content.length - before) > 256 || (typeof ev.data === "string" && ev.data.length > 256);
    changed({ now: bulk });
  });
  $("name").addEventListener("input", () => {
    state.files[state.active].name = $("name").value;
    const tab = $("tab-" + state.active);
    if (tab) tab.textContent = fileLabel(state.files[state.active], state.active);
    changed();
  });
  $("add").addEventListener("click", () => {
    if (state.files.length >= MAX_TABS) {
      showInputError($("input-error"), T("tabs-full", { max: MAX_TABS }));
      return;
    }
    clearInputError($("input-error"));
    state.files.push({ name: "", content: "" });
    selectFile(state.files.length - 1);
    $("input").focus();
  });
  $("remove").addEventListener("click", () => {
    state.files.splice(state.active, 1);
    if (!state.files.length) state.files.push({ name: "", content: "" });
    state.active = Math.min(state.active, state.files.length - 1);
    renderTabs();
    changed();
  });
  // Copy the FileList: clearing the input empties the live list.
  $("open").addEventListener("change", (ev) => { addFiles([...ev.target.files]); ev.target.value = ""; });
  const drop = $("drop");
  drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("dragging"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", (ev) => {
    ev.preventDefault();
    drop.classList.remove("dragging");
    if (ev.dataTransfer && ev.dataTransfer.files.length) addFiles([...ev.dataTransfer.files]);
  });
  for (const id of ["cpu-policy", "memory-policy"]) {
    $(id).addEventListener("change", () => { setPolicies($("cpu-policy").value, $("memory-policy").value); changed({ now: true }); });
  }
  $("kubelet-version").addEventListener("change", () => { setKubeletVersion($("kubelet-version").value); changed({ now: true }); });
  $("examples").addEventListener("change", () => { loadExample($("examples").value); $("examples").value = ""; });
  $("lang").addEventListener("change", () => { store("lang", $("lang").value); applyLanguage($("lang").value); renderExamples(); runAdmit(); updateShare(); });
  $("theme").addEventListener("click", () => {
    const next = { auto: "light", light: "dark", dark: "auto" }[state.theme] || "auto";
    store("theme", next);
    applyTheme(next);
    updateShare();
  });
  $("copy").addEventListener("click", async () => {
    await updateShare();
    if ($("share").dataset.unshareable) { showInputError($("input-error"), $("share").dataset.unshareable); return; }
    try { await navigator.clipboard.writeText($("share").href); announce(T("copied")); } catch (_) { announce(T("copy-failed")); }
  });
  $("share").addEventListener("click", async (ev) => {
    // Put the link in the address bar without a reload, so it can be copied or bookmarked.
    ev.preventDefault();
    await updateShare();
    if ($("share").dataset.unshareable) { showInputError($("input-error"), $("share").dataset.unshareable); return; }
    history.replaceState(null, "", $("share").href);
  });
  for (const id of ["tm-policy", "tm-scope", "tm-closest", "tm-max", "tm-hints", "tm-pod"]) {
    $(id).addEventListener(id === "tm-hints" || id === "tm-max" || id === "tm-pod" ? "input" : "change", () => { state.admitTouched = true; runAdmit(); updateShare(); });
  }
  $("admit-form").addEventListener("submit", (ev) => ev.preventDefault());
  window.addEventListener("hashchange", async () => {
    if (await loadFromHash()) { run(); runAdmit(); updateShare(); }
  });
}

async function main() {
  wire();
  state.theme = load("theme") || "auto";
  applyLanguage(load("lang") || pickLanguage(navigator.languages || [navigator.language]));
  $("tm-hints").value = compactJSON({
    numaNodes: [0, 1],
    distances: { "0": [10, 20], "1": [20, 10] },
    providers: [{ cpu: [{ numaAffinity: [0], preferred: true }, { numaAffinity: [0, 1], preferred: false }] },
      { memory: [{ numaAffinity: [0], preferred: true }, { numaAffinity: [0, 1], preferred: false }] }],
  });
  const fromLink = await loadFromHash();
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("sw.js").catch(() => { /* offline use is a bonus */ });
  }
  try {
    setLoading(T("loading"), 0);
    const version = await engine.load((pct) => setLoading(T("loading-pct", { pct }), pct));
    engineReady = true;
    document.body.dataset.engine = "ready";
    $("loading").hidden = true;
    announce(T("engine-ready"));
    const caps = await engine.call("capabilities", {});
    if (caps.ok) for (const m of caps.result.methods) state.caps.add(m.method);
    if (caps.ok) state.engineLimits = caps.result.limits; // the browser tests compare them with the page's
    $("engine-info").textContent = "engine API v" + version + " · " + [...state.caps].sort().join(", ");
    if (state.caps.has("examples")) {
      const ex = await engine.call("examples", {});
      if (ex.ok) { state.examples = ex.result.examples || []; renderExamples(); }
    }
  } catch (e) {
    document.body.dataset.engine = "failed";
    setLoading(T("engine-failed", { msg: e.message }));
    return;
  }
  if (fromLink || requestFiles().files.length) await run();
  else renderAll();
  runAdmit();
  updateShare();
}

main();
