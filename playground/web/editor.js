// The playground's editor over its <textarea>s: line numbers, highlighting
// of JSON, YAML and kubelet logs, problem marks, JSON formatting. The
// textarea stays the input (focus, value, "input" events, accessibility);
// the editor draws the visible lines behind its transparent text.
// Marks: textarea.dispatchEvent(new CustomEvent("numascope:marks", { detail:
// [{ line, column, severity: "error"|"warning"|"info", message }] })), 1-based,
// column in characters (0: the line only); [] clears, and so does a new value.
// "numascope:reveal" with { line, column } puts the caret there.
"use strict";
(() => {
const SELECTOR = "#input, #tm-pod, #tm-hints, textarea[data-editor]";
const SIZE_CAP = 8 << 20; // characters: above this the text is drawn plain
const LINE_CAP = 200000; // a longer line turns highlighting off
const WINDOW_CHARS = 1 << 20; // characters drawn per window at most
const MARGIN = 40; // lines drawn above and below the visible ones
const H_MARGIN = 1000; // characters highlighted left and right of the visible ones
const VALIDATE_CAP = 2 << 20; // JSON checked for the Format button while typing
const MAX_MARKS = 1000;
const LIST_MAX = 50;
const MSG_MAX = 500;

const TEXT = {
  en: {
    format: "Format JSON", formatTitle: "Indent by two spaces; keys and values stay as written",
    notJSON: "Not valid JSON",
    next: "Next problem", nextTitle: "F8; Shift+F8: previous",
    problems: (n) => (n === 1 ? "1 problem" : n + " problems"),
    at: (l, c) => "line " + l + (c ? ", column " + c : ""), lines: (n) => (n === 1 ? "1 line" : n + " lines"),
    plain: "highlighting off (large input)", sev: { error: "error", warning: "warning", info: "info" },
    list: "Problems in this input",
  },
  "zh-CN": {
    format: "格式化 JSON", formatTitle: "以两个空格缩进；键和值保持原样",
    notJSON: "不是有效的 JSON",
    next: "下一个问题", nextTitle: "F8；Shift+F8：上一个",
    problems: (n) => n + " 个问题",
    at: (l, c) => "第 " + l + " 行" + (c ? "，第 " + c + " 列" : ""), lines: (n) => n + " 行",
    plain: "已关闭高亮（内容过大）", sev: { error: "错误", warning: "警告", info: "提示" },
    list: "此输入中的问题",
  },
};
const tr = () => TEXT[document.documentElement.lang] || TEXT.en;
const describe = (m) => (m ? tr().at(m.line, m.column) + " · " + tr().sev[m.severity] + ": " + m.message : "");
const SEV_RANK = { info: 1, warning: 2, error: 3 };


// Bounded, anchored patterns without nested repetition: linear on any line.
const KLOG = /^\s*[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\s\]]+\]/;
const JOURNAL = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(\.\d+)? \S+ [^\s[:]+(\[\d+\])?: /;
const ISO = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/;
const YAMLKEY = /^(- +)?("[^"]*"|'[^']*'|[^\s:#"'{}[\],][^:#]*):(\s|$)/;

function sniff(text) {
  const n = Math.min(text.length, 65536);
  let i = 0, seen = 0, logs = 0, yaml = 0, first = "";
  while (i < n && seen < 40) {
    let j = text.indexOf("\n", i);
    if (j < 0 || j > n) j = n;
    const line = text.slice(i, Math.min(j, i + 400));
    i = j + 1;
    const t = line.trim();
    if (!t || t.startsWith("```") || t.startsWith("$ ")) continue;
    seen++;
    if (!first) first = t;
    if (KLOG.test(line) || JOURNAL.test(line) || ISO.test(line)) logs++;
    else if (YAMLKEY.test(t) || t === "---" || t.startsWith("- ") || t[0] === "#") yaml++;
  }
  if (!first) return "text";
  if (logs * 2 >= seen) return "log";
  if (first[0] === "{" || (first[0] === "[" && /^\[\s*([{["\d\]-]|true|false|null|$)/.test(first.slice(0, 16)))) return "json";
  if (yaml * 2 >= seen) return "yaml";
  return logs ? "log" : "text";
}

// Each appends (start, end, class) triples for one line to out. Classes:
// k key, s string, n number, b true/false/null, p punctuation, c comment,
// t time, h host or pid, f source or unit, a anchor or tag, lE lW lI lF levels.

const isDigit = (c) => c >= 48 && c <= 57;
const isWord = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace = (c) => c === 32 || c === 9;
const sp = (s, k) => { while (k < s.length && isSpace(s.charCodeAt(k))) k++; return k; };

// quoted scans a string from the quote at i; returns the index after it.
function quoted(s, i, q) {
  const n = s.length;
  let j = i + 1;
  while (j < n) {
    const c = s.charCodeAt(j);
    if (c === 92 && q === 34) j += 2;
    else if (c === q) {
      if (q === 39 && s.charCodeAt(j + 1) === 39) { j += 2; continue; } // YAML's ''
      return j + 1;
    } else j++;
  }
  return n;
}

function tokJSON(s, out, i = 0) {
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    let j = i + 1, cls = "";
    if (c === 34) cls = s[sp(s, (j = quoted(s, i, 34)))] === ":" ? "k" : "s";
    else if (isWord(c) || c === 45) {
      while (j < n && (isWord(s.charCodeAt(j)) || ".+-".includes(s[j]))) j++;
      const w = s.slice(i, j);
      cls = c === 45 || isDigit(c) ? "n" : /^(true|false|null)$/.test(w) ? "b" : s[sp(s, j)] === ":" ? "k" : "s";
    } else if ("{}[]:,".includes(s[i])) cls = "p";
    if (cls) out.push(i, j, cls);
    i = j;
  }
}

const YAML_NUM = /^[-+]?(\d[\d_]*(\.\d*)?(e[-+]?\d+)?|\.\d+|0x[\da-f]+|\.inf|\.nan)$/i;
const YAML_KW = new Set(["true", "false", "null", "~", "yes", "no", "on", "off"]);

function tokYAML(s, out) {
  const n = s.length;
  let i = sp(s, 0);
  if (i >= n) return;
  if (s[i] === "#") { out.push(i, n, "c"); return; }
  if (/^(---|\.\.\.)(\s|$)/.test(s)) { out.push(0, 3, "p"); i = sp(s, 3); }
  while (s[i] === "-" && (i + 1 === n || isSpace(s.charCodeAt(i + 1)))) { out.push(i, i + 1, "p"); i = sp(s, i + 1); } // "- " entries
  if (i >= n) return;
  // A key: quoted or plain, then ":" before a space or the end of the line.
  const colon = (j) => s[j] === ":" && (j + 1 === n || isSpace(s.charCodeAt(j + 1)));
  let k = -1, ke;
  if (s[i] === '"' || s[i] === "'") {
    ke = quoted(s, i, s.charCodeAt(i));
    if (colon(sp(s, ke))) k = sp(s, ke);
  } else if (!"{[&*!|>%@`#".includes(s[i])) {
    for (let j = i; j < n && !(s[j] === "#" && isSpace(s.charCodeAt(j - 1))); j++) if (colon(j)) { k = ke = j; break; }
    while (ke > i && isSpace(s.charCodeAt(ke - 1))) ke--;
  }
  if (k >= 0) { out.push(i, ke, "k", k, k + 1, "p"); i = k + 1; }
  yamlValue(s, i, out);
}

function yamlValue(s, i, out) {
  const n = s.length;
  while ((i = sp(s, i)) < n) {
    const c = s[i];
    let j = i + 1;
    if (c === "#") return out.push(i, n, "c");
    if (c === "{" || c === "[") return tokJSON(s, out, i);
    if ("&*!".includes(c)) {
      while (j < n && !isSpace(s.charCodeAt(j))) j++;
      out.push(i, j, "a");
    } else if (c === '"' || c === "'") out.push(i, (j = quoted(s, i, s.charCodeAt(i))), "s");
    else if ("|>".includes(c) && /^[|>][-+0-9]*\s*(#.*)?$/.test(s.slice(i, i + 64))) out.push(i, j, "p");
    else { // a plain scalar, up to a comment
      j = i;
      while (j < n && !(s[j] === "#" && isSpace(s.charCodeAt(j - 1)))) j++;
      let e = j;
      while (e > i && isSpace(s.charCodeAt(e - 1))) e--;
      const w = s.slice(i, e);
      out.push(i, e, YAML_KW.has(w.toLowerCase()) ? "b" : YAML_NUM.test(w) ? "n" : "s");
    }
    i = j;
  }
}

// A journald prefix, a timestamp, a CRI log's stream tag and a klog header.
const J_HDR = /([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?) (\S+) ([^\s[:]+(?:\[\d+\])?):/y;
const ISO_HDR = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: (?:stdout|stderr) [FP](?= ))?/y;
const K_HDR = /([IWEF])(\d{4} \d\d:\d\d:\d\d\.\d+) +(\d+) ([^\s\]]+)\]/y;

function tokLog(s, out) {
  const n = s.length;
  let i = 0;
  const at = (re) => {
    re.lastIndex = i = sp(s, i);
    return re.exec(s);
  };
  let m = at(J_HDR);
  if (m) {
    const a = i + m[1].length, b = a + 1 + m[2].length;
    out.push(i, a, "t", a + 1, b, "h", b + 1, b + 1 + m[3].length, "f");
    i = J_HDR.lastIndex;
  }
  m = at(ISO_HDR);
  if (m) { out.push(i, ISO_HDR.lastIndex, "t"); i = ISO_HDR.lastIndex; }
  m = at(K_HDR);
  if (m) {
    const ts = i + 1, te = ts + m[2].length, src = K_HDR.lastIndex - 1 - m[4].length, pid = src - 1 - m[3].length;
    out.push(i, ts, "l" + m[1], ts, te, "t", pid, pid + m[3].length, "h", src, src + m[4].length, "f");
    i = K_HDR.lastIndex;
  }
  // The message: quoted strings, key=value keys, numbers.
  while (i < n) {
    const c = s.charCodeAt(i);
    let j = i + 1;
    if (c === 34) out.push(i, (j = quoted(s, i, 34)), "s");
    else if (isWord(c) && !isWord(s.charCodeAt(i - 1))) {
      while (j < n && (isWord(s.charCodeAt(j)) || ".-".includes(s[j]))) j++;
      const w = s.slice(i, j);
      if (s[j] === "=") out.push(i, j, w === "err" || w === "error" ? "lE" : "k", j, ++j, "p");
      else if (isDigit(c)) out.push(i, j, "n");
      else if (w === "Warning") out.push(i, j, "lW");
    }
    i = j;
  }
}

const TOKENIZERS = { json: tokJSON, yaml: tokYAML, log: tokLog, text: tokLog };


// prettyJSON re-indents valid JSON by two spaces; strings, numbers and
// key order are copied exactly (JSON.stringify would round big numbers
// and reorder integer-like keys).
function prettyJSON(s) {
  const out = [], ind = [""];
  const nl = (d) => { while (ind.length <= d) ind.push(ind[ind.length - 1] + "  "); return "\n" + ind[d]; };
  const n = s.length;
  let i = 0, d = 0;
  while (i < n) {
    const c = s[i];
    if (c === '"') {
      const j = quoted(s, i, 34);
      out.push(s.slice(i, j));
      i = j;
    } else if (c === "{" || c === "[") {
      let k = i + 1;
      while (k < n && " \t\r\n".includes(s[k])) k++;
      if (s[k] === (c === "{" ? "}" : "]")) { out.push(c + s[k]); i = k + 1; } else { d++; out.push(c, nl(d)); i++; }
    } else if (c === "}" || c === "]") { d--; out.push(nl(d), c); i++; }
    else if (c === ",") { out.push(",", nl(d)); i++; }
    else if (c === ":") { out.push(": "); i++; }
    else if (" \t\r\n".includes(c)) i++;
    else {
      let j = i + 1;
      while (j < n && !" \t\r\n,:{}[]\"".includes(s[j])) j++;
      out.push(s.slice(i, j));
      i = j;
    }
  }
  return out.join("") + (s.endsWith("\n") ? "\n" : "");
}

function validJSON(s) {
  try { JSON.parse(s); return true; } catch (_) { return false; }
}

const valueProp = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
// el builds an element; text is set as text, never parsed as HTML.
const el = (tag, cls, text, attrs) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  return e;
};
const HIDDEN = { "aria-hidden": "true" }, BUTTON = { type: "button" };
const fire = (ta, inputType) => ta.dispatchEvent(new InputEvent("input", { bubbles: true, inputType }));
const esc = (t) => t.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
let canvas = null;

class Editor {
  constructor(ta) {
    Object.assign(this, { ta, marks: [], byLine: new Map(), starts: new Uint32Array(1024), lines: 1, first: 0, last: -1, dirty: true, renders: 0 });
    const wrap = (this.wrap = el("div", "ed"));
    const gutter = (this.gutter = el("div", "ed-gutter", undefined, HIDDEN));
    gutter.append((this.nums = el("div", "ed-nums")));
    const main = el("div", "ed-main");
    this.layer = el("div", "ed-layer", undefined, HIDDEN);
    this.layer.append((this.code = el("pre", "ed-code")));
    ta.replaceWith(wrap);
    main.append(this.layer, ta);
    wrap.append(gutter, main);
    ta.classList.add("ed-input");
    ta.setAttribute("wrap", "off");

    const bar = (this.bar = el("div", "ed-bar"));
    this.info = el("span", "ed-info");
    this.fmt = el("button", "btn small ed-format", undefined, BUTTON);
    this.next = el("button", "btn small ed-next", undefined, BUTTON);
    this.count = el("span", "ed-count");
    this.status = el("span", "ed-status", undefined, { role: "status" });
    this.list = el("ol", "ed-list");
    this.list.hidden = true;
    bar.append(this.info, this.fmt, this.count, this.next, this.status);
    // Outside any <label>: the buttons stay out of the textarea's name.
    const label = ta.closest("label");
    (label || wrap).after(bar, this.list);
    for (const e of [wrap, bar, this.list]) e.dataset.editorFor = ta.id || "";

    // The page sets .value when a tab changes: redraw then too.
    const self = this;
    Object.defineProperty(ta, "value", {
      configurable: true,
      get() { return valueProp.get.call(this); },
      set(v) {
        const before = this.value;
        valueProp.set.call(this, v);
        if (this.value !== before) { if (self.marks.length) self.setMarks([]); self.changed(); }
      },
    });
    ta.addEventListener("input", () => this.changed());
    ta.addEventListener("scroll", () => this.scrolled());
    ta.addEventListener("keydown", (ev) => {
      if (ev.key === "F8" && this.marks.length) { ev.preventDefault(); this.jumpNext(ev.shiftKey ? -1 : 1); }
      // Undo of a Format, which the browser's own undo does not know.
      if ((ev.ctrlKey || ev.metaKey) && !ev.shiftKey && ev.key === "z" && this.undo && ta.value === this.undo[1]) {
        ev.preventDefault();
        ta.value = this.undo[0];
        this.undo = null;
        fire(ta, "historyUndo");
      }
    });
    ta.addEventListener("numascope:marks", (ev) => this.setMarks(ev.detail));
    ta.addEventListener("numascope:reveal", (ev) => this.reveal(+(ev.detail || {}).line || 1, +(ev.detail || {}).column || 0));
    const jump = (ev) => {
      const e = ev.target.closest("[data-line]"), g = e && this.byLine.get(+e.dataset.line);
      if (g) this.reveal(g[0].line, e.dataset.column ? +e.dataset.column : g[0].column);
    };
    gutter.addEventListener("click", jump);
    this.list.addEventListener("click", jump);
    this.fmt.addEventListener("click", () => this.format());
    this.next.addEventListener("click", () => this.jumpNext(1));
    new ResizeObserver(() => this.measure()).observe(ta);
    this.measure();
    this.labels();
  }

  measure() {
    const cs = getComputedStyle(this.ta);
    this.lh = parseFloat(cs.lineHeight) || 19;
    this.padT = parseFloat(cs.paddingTop) || 0;
    this.padL = parseFloat(cs.paddingLeft) || 0;
    canvas = canvas || document.createElement("canvas").getContext("2d");
    canvas.font = cs.fontSize + " " + cs.fontFamily; // cs.font is "" with font-variant-ligatures set
    this.cw = canvas.measureText("0".repeat(100)).width / 100 || 8;
    this.layer.style.width = this.ta.clientWidth + "px";
    this.layer.style.height = this.ta.clientHeight + "px";
    this.last = -1;
    this.schedule();
  }

  changed() {
    this.dirty = true;
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  // index finds where each line starts and picks the language and mode.
  index() {
    const text = this.ta.value;
    let starts = this.starts, n = 1, prev = 0, max = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
      if (n === starts.length) { const s = new Uint32Array(starts.length * 2); s.set(starts); starts = s; }
      starts[n++] = i + 1;
      if (i - prev > max) max = i - prev;
      prev = i + 1;
    }
    this.starts = starts;
    this.lines = n;
    this.maxLine = Math.max(max, text.length - prev);
    this.lang = sniff(text);
    this.plain = text.length > SIZE_CAP || this.maxLine > LINE_CAP;
    this.text = text;
    this.dirty = false;
    Object.assign(this.wrap.dataset, { lang: this.lang, lines: n, mode: this.plain ? "plain" : "highlight" });
    this.wrap.classList.toggle("ed-plain", this.plain);
    this.gutter.style.width = "calc(" + Math.max(2, String(n).length) + "ch + 18px)";
    // JSON.parse takes milliseconds: after a pause, not on every keystroke;
    // above VALIDATE_CAP only when the button is pressed.
    clearTimeout(this.validTimer);
    this.jsonOK = this.lang === "json" && text.length > VALIDATE_CAP;
    if (this.lang === "json" && !this.jsonOK) this.validTimer = setTimeout(() => { this.jsonOK = validJSON(this.ta.value); this.labels(); }, 150);
    this.labels();
  }

  lineText(i) {
    const a = this.starts[i], b = i + 1 < this.lines ? this.starts[i + 1] - 1 : this.text.length;
    return this.text.slice(a, b);
  }

  visible() {
    const top = this.ta.scrollTop, h = this.ta.clientHeight;
    return [Math.max(0, Math.floor((top - this.padT) / this.lh)), Math.min(this.lines - 1, Math.ceil((top + h - this.padT) / this.lh))];
  }

  // columns is the range of the visible columns, counting in the width of
  // "0" (a line of wide characters is highlighted less far).
  columns() {
    const l = this.ta.scrollLeft;
    return [Math.floor(l / this.cw), Math.ceil((l + this.ta.clientWidth) / this.cw)];
  }

  render() {
    if (!this.wrap.isConnected) return;
    const t0 = performance.now();
    if (this.dirty) this.index();
    const [vf, vl] = this.visible(), [c0, c1] = this.columns();
    this.h0 = c0 - H_MARGIN;
    this.h1 = c1 + H_MARGIN;
    const first = Math.max(0, vf - MARGIN), last = Math.min(this.lines - 1, vl + MARGIN);
    const nums = document.createDocumentFragment(), code = document.createDocumentFragment();
    const tok = TOKENIZERS[this.lang];
    let budget = WINDOW_CHARS;
    for (let i = first; i <= last; i++) {
      const line = i + 1, marks = this.byLine.get(line);
      const num = el("div", "ed-n", String(line), { "data-line": line });
      if (marks) {
        num.classList.add("ed-" + marks.sev);
        num.title = marks.map((m) => tr().sev[m.severity] + ": " + m.message).join("\n");
      }
      nums.append(num);
      if (this.plain) continue;
      const text = this.lineText(i);
      budget -= text.length;
      code.append(this.drawLine(text, budget >= 0 ? tok : null, marks));
    }
    this.nums.replaceChildren(nums);
    this.code.replaceChildren(code);
    Object.assign(this, { first, last });
    // For the tests: renders, and the last one's ms.
    this.wrap.dataset.renders = String(++this.renders);
    this.wrap.dataset.ms = (performance.now() - t0).toFixed(1);
    this.position();
  }

  drawLine(text, tok, marks) {
    const div = el("div", "ed-l");
    const toks = [];
    if (tok && text) tok(text, toks);
    // Mark ranges: the token at the column, or the word, or one character.
    const ranges = [];
    if (marks) {
      div.classList.add("ed-" + marks.sev);
      for (const m of marks) {
        if (!m.column) continue;
        const c = Math.min(m.column - 1, text.length);
        let a = c, b = c + 1;
        for (let t = 0; t < toks.length; t += 3) {
          if (toks[t] <= c && c < toks[t + 1]) { a = toks[t]; b = toks[t + 1]; break; }
        }
        if (a === c && c < text.length && isWord(text.charCodeAt(c))) {
          while (a > 0 && isWord(text.charCodeAt(a - 1))) a--;
          while (b < text.length && isWord(text.charCodeAt(b))) b++;
        }
        ranges.push(a, b, m.severity);
      }
    }
    // The line as HTML: escaped text, spans with this file's classes. With
    // marks, the line is cut at every token and mark boundary.
    // Spans only near the visible columns: thousands on a line take 100 ms of layout.
    const html = [], h0 = this.h0, h1 = this.h1;
    const put = (a, b, cls) => {
      const t = esc(text.slice(a, b));
      html.push(cls && (cls.includes("ed-m") || (b > h0 && a < h1)) ? '<span class="' + cls + '">' + t + "</span>" : t);
    };
    let p = 0;
    if (!ranges.length) {
      for (let t = 0; t < toks.length; t += 3) {
        if (toks[t] > p) put(p, toks[t]);
        put(toks[t], (p = toks[t + 1]), toks[t + 2]);
      }
      if (p < text.length) put(p, text.length);
    } else {
      const cuts = new Set([0, text.length]);
      for (let t = 0; t < toks.length; t += 3) cuts.add(toks[t]).add(toks[t + 1]);
      for (let r = 0; r < ranges.length; r += 3) cuts.add(Math.min(ranges[r], text.length)).add(Math.min(ranges[r + 1], text.length));
      const points = [...cuts].sort((x, y) => x - y);
      let t = 0;
      for (; p + 1 < points.length; p++) {
        const a = points[p];
        while (t < toks.length && toks[t + 1] <= a) t += 3;
        const sev = markAt(ranges, a), cls = t < toks.length && toks[t] <= a ? toks[t + 2] : "";
        put(a, points[p + 1], (cls + (sev ? " ed-m ed-" + sev : "")).trim());
      }
      const end = markAt(ranges, text.length);
      if (end) html.push('<span class="ed-m ed-' + end + '"> </span>'); // past the end of the line
    }
    div.innerHTML = html.join("") || "\n"; // an empty line keeps its height
    return div;
  }

  position() {
    const y = this.padT + this.first * this.lh - this.ta.scrollTop;
    this.code.style.transform = "translate(" + (this.padL - this.ta.scrollLeft) + "px," + y + "px)";
    this.nums.style.transform = "translateY(" + y + "px)";
  }

  scrolled() {
    const [vf, vl] = this.visible(), [c0, c1] = this.columns();
    if (this.dirty || vf < this.first || vl > this.last || (this.maxLine > H_MARGIN && (c0 < this.h0 || c1 > this.h1))) this.render();
    else this.position();
  }

  setMarks(list) {
    const marks = [];
    for (const m of Array.isArray(list) ? list.slice(0, MAX_MARKS) : []) {
      const line = Math.floor(Number(m && m.line));
      if (!(line >= 1)) continue;
      const column = Math.max(0, Math.floor(Number(m.column)) || 0);
      const severity = SEV_RANK[m.severity] ? m.severity : "error";
      marks.push({ line, column, severity, message: String(m.message == null ? "" : m.message).slice(0, MSG_MAX) });
    }
    marks.sort((a, b) => a.line - b.line || a.column - b.column);
    this.marks = marks;
    this.byLine = new Map();
    for (const m of marks) {
      let g = this.byLine.get(m.line);
      if (!g) { g = []; g.sev = m.severity; this.byLine.set(m.line, g); }
      g.push(m);
      if (SEV_RANK[m.severity] > SEV_RANK[g.sev]) g.sev = m.severity;
    }
    this.wrap.dataset.marks = String(marks.length);
    this.status.textContent = "";
    this.labels(true);
    this.last = -1;
    this.render();
  }

  // labels sets the bar's texts; the list only with list (not per keystroke).
  labels(list) {
    const t = tr();
    const n = this.marks.length;
    this.info.textContent = ({ json: "JSON", yaml: "YAML" }[this.lang] || this.lang) + " · " + t.lines(this.lines) + (this.plain ? " · " + t.plain : "");
    this.fmt.hidden = this.lang !== "json";
    this.fmt.disabled = !this.jsonOK || this.ta.readOnly;
    this.fmt.textContent = t.format;
    this.fmt.title = this.jsonOK ? t.formatTitle : t.notJSON;
    this.next.textContent = t.next;
    this.next.title = t.nextTitle;
    this.next.hidden = n === 0;
    this.count.textContent = n ? t.problems(n) : "";
    this.list.hidden = n === 0;
    this.list.setAttribute("aria-label", t.list);
    if (!list) return;
    const items = this.marks.slice(0, LIST_MAX).map((m) => {
      const li = el("li", "ed-" + m.severity);
      li.append(el("button", "ed-jump", describe(m), { ...BUTTON, "data-line": m.line, "data-column": m.column }));
      return li;
    });
    this.list.replaceChildren(...items);
  }

  caretLine() {
    if (this.dirty) this.index();
    const pos = this.ta.selectionStart;
    let lo = 0, hi = this.lines - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid; else hi = mid - 1;
    }
    return [lo + 1, pos - this.starts[lo] + 1];
  }

  jumpNext(dir) {
    const [line, col] = this.caretLine();
    const ms = this.marks;
    let m;
    if (dir > 0) m = ms.find((x) => x.line > line || (x.line === line && x.column > col)) || ms[0];
    else m = [...ms].reverse().find((x) => x.line < line || (x.line === line && x.column && x.column < col)) || ms[ms.length - 1];
    if (m) this.reveal(m.line, m.column);
  }

  // reveal puts the caret at line and column and says what is marked there.
  reveal(line, column) {
    if (this.dirty) this.index();
    const ta = this.ta;
    const i = Math.min(Math.max(1, line), this.lines) - 1;
    const text = this.lineText(i);
    const c = Math.min(Math.max(0, (column || 1) - 1), text.length);
    const pos = this.starts[i] + c;
    ta.focus({ preventScroll: true });
    ta.setSelectionRange(pos, pos);
    ta.scrollTop = Math.max(0, this.padT + i * this.lh - ta.clientHeight / 3);
    const x = c * this.cw + this.padL; // near enough for scrolling there
    if (x < ta.scrollLeft || x > ta.scrollLeft + ta.clientWidth - 20) ta.scrollLeft = Math.max(0, x - ta.clientWidth / 2);
    this.wrap.scrollIntoView({ block: "nearest" });
    this.render();
    const g = this.byLine.get(i + 1);
    const m = g && (g.find((x) => x.column === column) || g[0]);
    this.status.textContent = describe(m);
  }

  format() {
    const ta = this.ta, text = ta.value;
    if (!validJSON(text)) { this.jsonOK = false; this.labels(); return; }
    const pretty = prettyJSON(text);
    if (pretty === text) return;
    // One replacement and one "input" event (execCommand would send one
    // per line, and take quadratic time), after the page's size guard has
    // seen it as a "beforeinput".
    ta.focus({ preventScroll: true });
    ta.select();
    const before = new InputEvent("beforeinput", { bubbles: true, cancelable: true, inputType: "insertReplacementText", data: pretty });
    if (!ta.dispatchEvent(before)) return;
    ta.value = pretty;
    this.undo = [text, pretty];
    fire(ta, "insertReplacementText");
    ta.setSelectionRange(0, 0);
    ta.scrollTop = ta.scrollLeft = 0;
  }
}

function markAt(ranges, a) {
  let best = "";
  for (let r = 0; r < ranges.length; r += 3) {
    if (ranges[r] <= a && a < ranges[r + 1] && (!best || SEV_RANK[ranges[r + 2]] > SEV_RANK[best])) best = ranges[r + 2];
  }
  return best;
}

function attach(ta) {
  if (!(ta instanceof HTMLTextAreaElement) || ta.numascopeEditor) return ta && ta.numascopeEditor;
  ta.numascopeEditor = new Editor(ta);
  return ta.numascopeEditor;
}

function start() {
  document.querySelectorAll(SELECTOR).forEach(attach);
  new MutationObserver(() => {
    document.querySelectorAll(SELECTOR).forEach((ta) => ta.numascopeEditor && ta.numascopeEditor.labels(true));
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}

window.numascopeEditor = { attach, prettyJSON, sniff };
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
})();
