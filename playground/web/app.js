// The numascope playground page: inputs, the engine in a Web Worker, the
// rendering of results, sharing through the URL fragment, language and theme.
// No framework and no network access beyond this site's own files.
"use strict";

// The time limit of one engine call; ?timeout=MS overrides it (for tests).
// It bounds one run (inspect and diagnose together), so that an answer or a
// timeout message is on the page within it.
const CALL_TIMEOUT_MS = Number(new URLSearchParams(location.search).get("timeout")) || 10000;
// The engine's limits (wasm/internal/api: MaxFileBytes, MaxRequestBytes).
const MAX_FILE_BYTES = 8 << 20;
const MAX_REQUEST_BYTES = 32 << 20;
const SHARE_PREFIX = "#s=";
// A share link's data: at most this many characters after #s= (Chromium's
// whole URL limit is 2 MiB) and at most the engine's request limit once
// inflated, which covers every input the engine accepts.
const MAX_SHARE_CHARS = 1 << 20;
const MAX_SHARE_BYTES = MAX_REQUEST_BYTES;
// Compressed bytes fed to the inflater at a time: one slice inflates to at
// most about 1 MiB, so reading stops close to the cap.
const SHARE_SLICE = 1024;
// Rows of the pods table drawn at most; a 10,000-container node is summarised.
const MAX_POD_ROWS = 500;
// Inputs that are evidence for the diagnosis rather than kubelet checkpoints.
const EVIDENCE_KINDS = ["kubelet-log", "pod", "events", "kubelet-config", "machine-info"];

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
  policy: "",
  kubeletVersion: "", // the node's kubelet release; "" the newest
  lang: "en",
  theme: "auto",
  admit: null, // filled from the form
  caps: new Set(),
  examples: [],
  lastInspect: null,
};

let lang = "en";
const T = (key, vars) => t(lang, key, vars);

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
          let parsed;
          try { parsed = JSON.parse(msg.response); } catch (e) {
            parsed = { ok: false, error: { code: "engine", message: "unreadable answer: " + e.message } };
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
    for (const [id, p] of this.pending) this.worker.postMessage({ type: "call", id, method: p.method, request: p.request });
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
        resolve({ ok: false, error: { code: "timeout", message: T("timeout", { s: CALL_TIMEOUT_MS / 1000 }) } });
        this.restart().catch(() => {});
      }, wait);
      this.pending.set(id, { resolve, timer, sent, method, request: body, stale: !!(opts && opts.stale) });
      this.worker.postMessage({ type: "call", id, method, request: body });
    });
  }
}

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
  const f = state.files[state.active];
  $("input").value = f.content;
  $("name").value = f.name;
  $("drop").setAttribute("aria-labelledby", "tab-" + state.active);
  $("remove").disabled = state.files.length === 1 && !f.content && !f.name;
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
  state.active = i;
  renderTabs();
}

function setFiles(files, opts) {
  state.files = files.length ? files.map((f) => ({ name: f.name || "", content: f.content || "" })) : [{ name: "", content: "" }];
  state.active = 0;
  renderTabs();
  if (!opts || !opts.quiet) changed();
}

// addFiles opens files chosen or dropped; one over the engine's limit is
// refused by its size, before a byte of it is read.
async function addFiles(fileList) {
  const added = [], refused = [];
  for (const file of fileList) {
    if (file.size > MAX_FILE_BYTES) {
      refused.push(T("too-big", { name: file.name, size: fmtBytes(file.size), max: fmtBytes(MAX_FILE_BYTES) }));
      continue;
    }
    added.push({ name: file.name, content: await file.text() });
  }
  if (refused.length) showInputError($("input-error"), refused.join("\n"));
  else clearInputError($("input-error"));
  if (!added.length) return;
  const cur = state.files;
  const onlyEmpty = cur.length === 1 && !cur[0].content && !cur[0].name;
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
function changed(opts) {
  clearTimeout(debounce);
  seq++;
  const since = engine.busySince();
  if (since && performance.now() - since > 250) engine.cancel();
  const delay = opts && opts.now ? 0 : inputChars() > (1 << 20) ? 700 : 200;
  debounce = setTimeout(() => { run(); updateShare(); }, delay);
}

// The answers of recent runs, by the key of their inputs (see runKey): a run
// whose inputs and policy are those of an earlier one (a tab selected, added
// empty or removed empty, a name typed back, the simulator's fields edited)
// shows the earlier answers without calling the engine.
const runCache = new Map();
const RUN_CACHE_SIZE = 8;

// contentKey is the SHA-256 of a tab's content, computed once per content:
// re-runs do not hash unchanged tabs again. Without Web Crypto (a page
// opened from a file: URL) the content itself is the key.
async function contentKey(f) {
  if (f.keyOf === f.content) return f.key;
  const content = f.content;
  let key = content;
  if (globalThis.crypto && crypto.subtle) {
    const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(content)));
    key = Array.from(sum, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  if (f.content === content) { f.keyOf = content; f.key = key; }
  return key;
}

// runKey is the key of one run's inputs: the policy, and each non-empty tab's
// name and content key, in order.
async function runKey() {
  const parts = [state.policy || "", state.kubeletVersion || ""];
  for (const f of state.files) {
    if (f.content.trim() === "") continue;
    parts.push(f.name, await contentKey(f));
  }
  return JSON.stringify(parts);
}

function remember(key, answers) {
  runCache.delete(key);
  runCache.set(key, answers);
  while (runCache.size > RUN_CACHE_SIZE) runCache.delete(runCache.keys().next().value);
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
  const key = await runKey();
  if (my !== seq) return; // a newer input superseded this one
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
    // is on the page within CALL_TIMEOUT_MS of the run's start.
    const deadline = performance.now() + CALL_TIMEOUT_MS;
    const policy = state.policy || undefined;
    const kubeletVersion = state.kubeletVersion || undefined;
    inspect = await engine.call("inspect", { files, policy, kubeletVersion }, { deadline, stale: true });
    document.body.dataset.inspectMs = String(Math.round(performance.now() - began));
    if (my !== seq) return; // a newer input superseded this one
    const diagnosing = state.caps.has("diagnose") && inspect.ok;
    // The verdicts are on the page while the diagnosis runs.
    show(inspect, null, tabs, diagnosing);
    document.body.dataset.verdictMs = String(Math.round(performance.now() - began));
    if (diagnosing) {
      diagnosis = await engine.call("diagnose", { files, policy, kubeletVersion }, { deadline, stale: true });
      if (my !== seq) return; // a newer input superseded this one
      show(inspect, diagnosis, tabs);
    }
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
    const refused = fs.filter((f) => !f.kubeletAccepts).length;
    const findings = diagnosis && diagnosis.ok ? (diagnosis.result.report.findings || []).length : 0;
    announce(T("result-announce", { n: fs.length, refused, findings }));
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
  renderAll();
}

// ---------------------------------------------------------------- rendering

function renderAll() {
  renderRefused();
  renderResult();
  renderNUMA();
  renderPods();
  renderFindings();
}

function errorBox(err) {
  return h("div", { class: "error", role: "alert", "data-testid": "error" },
    h("strong", {}, T("error") + (err.code ? " (" + err.code + ")" : "") + ": "),
    h("span", { class: "pre" }, err.message || String(err)));
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

function renderResult() {
  const box = $("result");
  const r = state.lastInspect;
  if (!r) {
    box.replaceChildren(h("p", { class: "empty" }, engineReady ? T("empty") : T("loading")));
    return;
  }
  if (!r.ok) { box.replaceChildren(errorBox(r.error)); return; }
  box.replaceChildren(...r.result.files.map((f) => !f.kind
    ? h("article", { class: "file card", "data-testid": "file-result", "data-kind": "" },
      h("h3", {}, f.file),
      ...(f.problems || []).map((p) => errorBox({ message: p.message + (p.remedy ? "\n" + T("remedy") + ": " + p.remedy : "") })))
    : h("article", { class: "file card", "data-testid": "file-result", "data-kind": f.kind || "" },
      h("h3", {}, f.file),
      h("dl", { class: "facts" },
        h("dt", {}, T("kind")), h("dd", { "data-testid": "kind" }, f.kind || T("kind-unknown")),
        f.format ? h("dt", {}, T("format")) : null, f.format ? h("dd", {}, f.format) : null),
      f.summary && !EVIDENCE_KINDS.includes(f.kind) ? h("p", { class: "muted", "data-testid": "summary" }, f.summary) : null,
      verdictEl(f),
      f.problems && f.problems.length ? h("p", { class: "muted" }, h("a", { href: "#findings-heading" }, T("see-findings", { n: f.problems.length }))) : null)));
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
  return h("table", { class: "res " + (extraClass || "") },
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
      h("td", { class: "barcol" }, bar(r, scales[r.name] || 0))))));
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
      h("div", { class: "nodes" }, g.nodes.map((id) => nodeCard(byId.get(id) || { id }, scales, multi))));
  }));
}

function nodeCard(n, scales, titled) {
  const assigned = n.assignments !== undefined ? T("assignments", { n: n.assignments }) : "";
  return h("div", { class: "node" + (titled ? "" : " bare"), "data-testid": "numa-node", "data-node": String(n.id) },
    titled ? h("h5", {}, T("node", { id: n.id }), assigned ? h("span", { class: "muted" }, " · " + assigned) : null)
      : assigned ? h("p", { class: "muted small" }, assigned) : null,
    n.resources && n.resources.length ? resourceTable(n.resources, scales) : null,
    n.cpus !== undefined ? h("p", {}, h("strong", {}, T("cpus") + ": "), h("code", {}, n.cpus || "∅")) : null,
    n.machineMemory ? h("p", {}, h("strong", {}, T("machine-memory") + ": "), bytesEl(n.machineMemory)) : null,
    n.devices && n.devices.length ? h("div", { class: "devices" }, h("p", { class: "caption" }, T("devices")),
      h("ul", { class: "devs" }, n.devices.map((d) => h("li", {},
        h("code", {}, d.resource), " ", h("strong", {}, d.id), " ",
        h("span", { class: "muted" }, d.pod ? "→ " + d.pod + (d.container ? " / " + d.container : "") : T("device-free")))))) : null);
}

function renderPods() {
  const sec = $("pods-section");
  const box = $("pods");
  const r = state.lastInspect;
  const rows = [];
  if (r && r.ok) for (const f of r.result.files) for (const a of f.assignments || []) rows.push(a);
  if (!rows.length) { sec.hidden = true; box.replaceChildren(); return; }
  sec.hidden = false;
  const hidden = Math.max(0, rows.length - MAX_POD_ROWS);
  box.replaceChildren(h("table", { class: "pods" },
    h("thead", {}, h("tr", {}, ["pod", "container", "resource", "numa-affinity", "amount"].map((k) => h("th", { scope: "col" }, T(k))))),
    h("tbody", {}, rows.slice(0, MAX_POD_ROWS).map((a) => h("tr", {},
      h("td", {}, h("code", {}, a.pod)), h("td", {}, a.container), h("td", {}, a.resource),
      h("td", {}, a.numa && a.numa.length ? "[" + nodesText(a.numa) + "]" : "–"),
      h("td", {}, a.bytes !== undefined ? bytesEl(a.bytes) : (a.amount || "")))))),
    hidden ? h("p", { class: "muted", "data-testid": "rows-hidden" }, T("rows-hidden", { n: hidden, shown: MAX_POD_ROWS })) : null);
}

function renderFindings() {
  const box = $("findings");
  const d = state.lastDiagnosis;
  const r = state.lastInspect;
  box.setAttribute("aria-busy", state.diagnosing ? "true" : "false");
  if (state.diagnosing) { box.replaceChildren(h("p", { class: "empty", "data-testid": "diagnosing" }, T("diagnosing"))); return; }
  if (d && d.ok) {
    const rep = d.result.report || {};
    const fs = rep.findings || [];
    const skipped = d.result.skipped || [];
    box.replaceChildren(...[
      fs.length ? h("ul", { class: "findings" }, fs.map((f) =>
        h("li", { class: "finding sev-" + f.severity, "data-code": f.code, "data-testid": "finding" },
          h("p", { class: "ftitle" }, h("span", { class: "badge sev" }, T("severity-" + f.severity)), " ",
            findingTitle(lang, f.code, f.title), " ", h("code", { class: "muted" }, f.code)),
          f.pod ? h("p", { class: "muted" }, h("code", {}, f.pod)) : null,
          lang !== "en" && findingTitle(lang, f.code, "") ? h("p", { class: "muted" }, f.title) : null,
          f.explanation ? h("p", {}, f.explanation) : null,
          f.topologyAffinityError && f.topologyAffinityError.cause ? h("p", {}, h("strong", {}, T("cause") + ": "), f.topologyAffinityError.cause) : null,
          f.remedy ? h("p", { class: "remedy" }, h("strong", {}, T("remedy") + ": "), f.remedy) : null,
          f.evidence && f.evidence.length ? h("p", { class: "refs muted" }, T("evidence") + ": ",
            f.evidence.map((e, i) => [i ? ", " : "", h("code", { title: e.quote || "" }, e.file + (e.line ? ":" + e.line : e.path ? "#" + e.path : ""))])) : null)))
        : h("p", { class: "empty" }, T("no-problems")),
      skipped.length ? h("div", { class: "skipped" }, h("p", { class: "caption" }, T("skipped")),
        h("ul", {}, skipped.map((x) => h("li", {}, h("strong", {}, x.file), ": ", x.reason)))) : null].filter(Boolean));
    return;
  }
  if (!r) { box.replaceChildren(h("p", { class: "empty" }, T("no-findings"))); return; }
  if (!r.ok) { box.replaceChildren(errorBox(r.error)); return; }
  if (d && !d.ok) { box.replaceChildren(errorBox(d.error)); return; }
  // Without diagnose, the findings are the problems of each file.
  const items = [];
  for (const f of r.result.files) for (const p of f.problems || []) items.push({ file: f.file, ...p });
  box.replaceChildren(items.length ? h("ul", { class: "findings" }, items.map((p) =>
    h("li", { class: "finding sev-" + (p.severity || "error") },
      h("p", { class: "ftitle" }, h("span", { class: "badge sev" }, T("severity-" + (p.severity || "error"))), " ", h("strong", {}, p.file), p.path ? [" ", h("code", {}, p.path)] : null),
      h("p", {}, p.message),
      p.remedy ? h("p", { class: "remedy" }, h("strong", {}, T("remedy") + ": "), p.remedy) : null)))
    : h("p", { class: "empty" }, T("no-problems")));
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
    rep.lists && rep.lists.length ? h("table", { class: "pods lists" },
      h("thead", {}, h("tr", {}, ["provider", "resource", "origin", "hints"].map((k) => h("th", { scope: "col" }, T("col-" + k))))),
      h("tbody", {}, rep.lists.map((l) => h("tr", {},
        h("td", {}, String(l.provider)), h("td", {}, l.resource || "–"), h("td", {}, h("code", {}, l.origin)),
        h("td", {}, (l.hints || []).map((x, i) => [i ? ", " : "", hintEl(x)])))))) : null,
  ];
}

let admitSeq = 0;
async function runAdmit() {
  const box = $("admit-result");
  if (!engineReady) return;
  const my = ++admitSeq;
  const pod = $("tm-pod").value;
  if (pod.trim()) return runSimulate(box, my, pod);
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

function unb64url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new ShareError(T("share-base64"));
  let bin;
  try { bin = atob(s.replace(/-/g, "+").replace(/_/g, "/")); } catch (_) { throw new ShareError(T("share-base64")); }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// inflate decompresses raw deflate data as a stream, feeding it a slice at a
// time and reading chunk by chunk, and stops as soon as the output passes
// cap: a deflate bomb is refused after about cap bytes, not after all of it.
async function inflate(bytes, cap) {
  const ds = new DecompressionStream("deflate-raw");
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
        throw new ShareError(T("share-too-large", { max: fmtBytes(cap) }));
      }
      chunks.push(value);
    }
    await feeding;
  } catch (e) {
    if (e instanceof ShareError) throw e;
    throw new ShareError(T("share-deflate", { msg: (e && e.message) || String(e) }));
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
    p: state.policy || undefined,
    k: state.kubeletVersion || undefined,
    a: {
      policy: $("tm-policy").value, scope: $("tm-scope").value, pod: $("tm-pod").value || undefined,
      closest: $("tm-closest").checked, max: $("tm-max").value, hints: $("tm-hints").value,
    },
  };
}

async function encodeShare(s) {
  const json = new TextEncoder().encode(JSON.stringify(s));
  return SHARE_PREFIX + b64url(await pipe(json, new CompressionStream("deflate-raw")));
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
  for (const [name, content] of s.f) {
    const n = utf8Bytes(content);
    if (n > MAX_FILE_BYTES) throw new ShareError(T("share-file-too-big", { name: name || "?", size: fmtBytes(n), max: fmtBytes(MAX_FILE_BYTES) }));
  }
  if (s.a !== undefined && (typeof s.a !== "object" || s.a === null || Array.isArray(s.a))) throw new ShareError(T("share-shape"));
  return s;
}

let shareSeq = 0;
async function updateShare() {
  const my = ++shareSeq;
  const frag = await encodeShare(shareState());
  if (my !== shareSeq) return;
  const share = $("share");
  const long = frag.length - SHARE_PREFIX.length;
  if (long > MAX_SHARE_CHARS) {
    // A link this long would be refused when opened: say so instead.
    share.href = "#";
    share.dataset.unshareable = T("share-unshareable", { size: fmtBytes(long), max: fmtBytes(MAX_SHARE_CHARS) });
    share.title = share.dataset.unshareable;
    share.classList.add("share-off");
    return;
  }
  delete share.dataset.unshareable;
  share.removeAttribute("title");
  share.classList.remove("share-off");
  share.href = location.href.split("#")[0] + frag;
}

function applyAdmitState(a) {
  if (!a) return;
  if (a.policy) $("tm-policy").value = a.policy;
  $("tm-closest").checked = !!a.closest;
  if (a.max) $("tm-max").value = a.max;
  if (typeof a.hints === "string") $("tm-hints").value = a.hints;
  $("tm-scope").value = a.scope === "pod" ? "pod" : "container";
  $("tm-pod").value = typeof a.pod === "string" ? a.pod : "";
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
  state.policy = typeof s.p === "string" ? s.p : "";
  $("policy").value = state.policy;
  setKubeletVersion(typeof s.k === "string" ? s.k : "");
  applyAdmitState(s.a);
  setFiles(s.f.map(([name, content]) => ({ name, content })), { quiet: true });
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
    applyAdmitState({
      policy: ex.admission.policy,
      closest: !!ex.admission.closest, max: ex.admission.max || "8",
      hints: ex.admission.hints ? compactJSON(ex.admission.hints) : $("tm-hints").value,
      scope: ex.admission.scope, pod: ex.admission.pod || "",
    });
  }
  state.policy = ex.policy || "";
  $("policy").value = state.policy;
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

// guardSize refuses a paste, drop or insertion that would take a text area
// past limit, before the browser puts the text in it (a 50 MB paste blocks
// the page for a minute in the text area alone): the event is cancelled
// and message(size) is shown in box.
function guardSize(el, limit, box, message) {
  const check = (ev, text) => {
    if (typeof text !== "string" || text.length === 0) return;
    const size = insertedSize(el, text, limit);
    if (size <= limit) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    showInputError(box, message(size));
  };
  el.addEventListener("paste", (ev) => check(ev, ev.clipboardData && ev.clipboardData.getData("text/plain")));
  el.addEventListener("beforeinput", (ev) => {
    // Every insertion: typed, pasted, dropped, or sent by an input method.
    if (!ev.inputType.startsWith("insert")) return;
    check(ev, typeof ev.data === "string" ? ev.data : ev.dataTransfer && ev.dataTransfer.getData("text/plain"));
  });
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
  guardSize($("input"), MAX_FILE_BYTES, $("input-error"), (size) => T("paste-too-big", {
    tab: fileLabel(state.files[state.active], state.active), size: fmtBytes(size), max: fmtBytes(MAX_FILE_BYTES),
  }));
  for (const [id, key] of [["tm-pod", "pod-label"], ["tm-hints", "hints-label"]]) {
    guardSize($(id), MAX_FILE_BYTES, $("admit-input-error"), (size) => T("field-too-big", {
      field: T(key).split(/[:(（]/)[0].trim(), size: fmtBytes(size), max: fmtBytes(MAX_FILE_BYTES),
    }));
    $(id).addEventListener("input", () => clearInputError($("admit-input-error")));
  }
  $("share-error-close").addEventListener("click", () => { $("share-error").hidden = true; });
  $("input").addEventListener("input", (ev) => {
    const f = state.files[state.active];
    const before = f.content.length;
    f.content = $("input").value;
    $("remove").disabled = false;
    clearInputError($("input-error"));
    // A paste or drop, or any edit of more than a few words at once, is
    // complete when it arrives: no pause to wait for.
    const bulk = (ev.inputType || "").startsWith("insertFrom") || Math.abs(f.content.length - before) > 256;
    changed({ now: bulk });
  });
  $("name").addEventListener("input", () => {
    state.files[state.active].name = $("name").value;
    const tab = $("tab-" + state.active);
    if (tab) tab.textContent = fileLabel(state.files[state.active], state.active);
    changed();
  });
  $("add").addEventListener("click", () => {
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
  $("policy").addEventListener("change", () => { state.policy = $("policy").value; changed({ now: true }); });
  $("kubelet-version").addEventListener("change", () => { setKubeletVersion($("kubelet-version").value); changed({ now: true }); });
  $("examples").addEventListener("change", () => { loadExample($("examples").value); $("examples").value = ""; });
  $("lang").addEventListener("change", () => { store("lang", $("lang").value); applyLanguage($("lang").value); renderExamples(); runAdmit(); });
  $("theme").addEventListener("click", () => {
    const next = { auto: "light", light: "dark", dark: "auto" }[state.theme] || "auto";
    store("theme", next);
    applyTheme(next);
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
    $(id).addEventListener(id === "tm-hints" || id === "tm-max" || id === "tm-pod" ? "input" : "change", () => { runAdmit(); updateShare(); });
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
