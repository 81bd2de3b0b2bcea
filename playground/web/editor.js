// The numascope playground's editor: line numbers, highlighting of JSON,
// YAML and kubelet logs, problem marks and a JSON formatter, laid over the
// page's own <textarea> elements. The textarea stays the real input (focus,
// value, "input" events, undo, accessibility); the editor only draws a
// highlighted copy of the visible lines behind its transparent text.
//
// Marks: dispatch on a textarea
//   new CustomEvent("numascope:marks", { detail: [{ line, column, severity, message }] })
// line and column are 1-based (column counts characters; 0 or absent marks
// the line only), severity is "error", "warning" or "info"; [] clears. A
// different value set by the page (another tab) clears the marks too.
// Jump: new CustomEvent("numascope:reveal", { detail: { line, column } })
// focuses the textarea with the caret there and scrolls it into view.
"use strict";
(() => {
  const SELECTOR = "#input, #tm-pod, #tm-hints, textarea[data-editor]";
  const SIZE_CAP = 8 << 20; // characters: above this the text is drawn plain
  const LINE_CAP = 200000; // a longer line turns highlighting off
  const WINDOW_CHARS = 1 << 20; // characters drawn per window at most
  const MARGIN = 40; // lines drawn above and below the visible ones
  const VALIDATE_CAP = 2 << 20; // JSON checked for the Format button while typing
  const FORMAT_CAP = 8 << 20;
  const MAX_MARKS = 1000;
  const LIST_MAX = 50;
  const MSG_MAX = 500;

  const TEXT = {
    en: {
      format: "Format JSON", formatTitle: "Indent the JSON by two spaces; every key and value stays as written",
      notJSON: "Not valid JSON: nothing to format", tooBig: "Too large to format here", formatted: "Already formatted",
      next: "Next problem", nextTitle: "Jump to the next problem (F8; Shift+F8 for the previous one)",
      problems: (n) => (n === 1 ? "1 problem" : n + " problems"), more: (n) => "… and " + n + " more",
      at: (l, c) => "line " + l + (c ? ", column " + c : ""), lines: (n) => (n === 1 ? "1 line" : n + " lines"),
      plain: "highlighting off (large input)", sev: { error: "error", warning: "warning", info: "info" },
      list: "Problems in this input",
    },
    "zh-CN": {
      format: "格式化 JSON", formatTitle: "以两个空格缩进 JSON；键和值保持原样",
      notJSON: "不是有效的 JSON：无法格式化", tooBig: "内容过大，无法在此格式化", formatted: "已是格式化的内容",
      next: "下一个问题", nextTitle: "跳到下一个问题（F8；Shift+F8 跳到上一个）",
      problems: (n) => n + " 个问题", more: (n) => "……另有 " + n + " 个",
      at: (l, c) => "第 " + l + " 行" + (c ? "，第 " + c + " 列" : ""), lines: (n) => n + " 行",
      plain: "已关闭高亮（内容过大）", sev: { error: "错误", warning: "警告", info: "提示" },
      list: "此输入中的问题",
    },
  };
  const tr = () => TEXT[document.documentElement.lang] || TEXT.en;
  const LANG_NAME = { json: "JSON", yaml: "YAML", log: "log", text: "text" };
  const SEV_RANK = { info: 1, warning: 2, error: 3 };

  // ------------------------------------------------------------ sniffing

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

  // ------------------------------------------------------------ tokenizers
  // Each appends (start, end, class) triples for one line to out.

  const isDigit = (c) => c >= 48 && c <= 57;
  const isWord = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  const isSpace = (c) => c === 32 || c === 9;

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

  function tokJSON(s, out, from) {
    const n = s.length;
    let i = from || 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        const j = quoted(s, i, 34);
        let k = j;
        while (k < n && isSpace(s.charCodeAt(k))) k++;
        out.push(i, j, s.charCodeAt(k) === 58 ? "k" : "s");
        i = j;
      } else if (c === 45 || isDigit(c)) {
        let j = i + 1;
        while (j < n && (isWord(s.charCodeAt(j)) || s[j] === "." || s[j] === "+" || s[j] === "-")) j++;
        out.push(i, j, "n");
        i = j;
      } else if (isWord(c)) {
        let j = i + 1;
        while (j < n && isWord(s.charCodeAt(j))) j++;
        const w = s.slice(i, j);
        let k = j;
        while (k < n && isSpace(s.charCodeAt(k))) k++;
        out.push(i, j, w === "true" || w === "false" || w === "null" ? "b" : s[k] === ":" ? "k" : "s");
        i = j;
      } else {
        if ("{}[]:,".includes(s[i])) out.push(i, i + 1, "p");
        i++;
      }
    }
  }

  const YAML_NUM = /^[-+]?(\.inf|\.nan|0x[0-9a-fA-F]+|0o[0-7]+|\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$/i;
  const YAML_KW = new Set(["true", "false", "null", "~", "yes", "no", "on", "off", "True", "False", "Null", "NULL", "TRUE", "FALSE"]);

  function tokYAML(s, out) {
    const n = s.length;
    let i = 0;
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    if (i >= n) return;
    if (s[i] === "#") { out.push(i, n, "c"); return; }
    if (i === 0 && (s.startsWith("---") || s.startsWith("...")) && (n === 3 || isSpace(s.charCodeAt(3)))) {
      out.push(0, 3, "p");
      i = 3;
    }
    for (;;) { // sequence entries and complex-key markers: "- ", "? "
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if ((s[i] === "-" || s[i] === "?") && (i + 1 === n || isSpace(s.charCodeAt(i + 1)))) { out.push(i, i + 1, "p"); i++; } else break;
    }
    if (i >= n) return;
    // A key: quoted or plain, then ":" before a space or the end of the line.
    let k = -1, ke = -1;
    if (s[i] === '"' || s[i] === "'") {
      const j = quoted(s, i, s.charCodeAt(i));
      let m = j;
      while (m < n && isSpace(s.charCodeAt(m))) m++;
      if (s[m] === ":" && (m + 1 === n || isSpace(s.charCodeAt(m + 1)))) { k = m; ke = j; }
    } else if (!"{[&*!|>%@`#".includes(s[i])) {
      for (let j = i; j < n; j++) {
        const c = s.charCodeAt(j);
        if (c === 58 && (j + 1 === n || isSpace(s.charCodeAt(j + 1)))) { k = j; ke = j; break; }
        if (c === 35 && isSpace(s.charCodeAt(j - 1))) break;
      }
      while (ke > i && isSpace(s.charCodeAt(ke - 1))) ke--;
    }
    if (k >= 0) {
      out.push(i, ke, "k", k, k + 1, "p");
      i = k + 1;
    }
    yamlValue(s, i, out);
  }

  function yamlValue(s, i, out) {
    const n = s.length;
    for (;;) {
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return;
      const c = s[i];
      if (c === "#") { out.push(i, n, "c"); return; }
      if (c === "&" || c === "*" || c === "!") {
        let j = i + 1;
        while (j < n && !isSpace(s.charCodeAt(j))) j++;
        out.push(i, j, "a");
        i = j;
        continue;
      }
      if (c === '"' || c === "'") {
        const j = quoted(s, i, s.charCodeAt(i));
        out.push(i, j, "s");
        i = j;
        continue;
      }
      if (c === "{" || c === "[") { tokJSON(s, out, i); return; }
      if ((c === "|" || c === ">") && /^[|>][-+0-9]*\s*(#.*)?$/.test(s.slice(i, i + 64))) {
        out.push(i, i + 1, "p");
        i++;
        continue;
      }
      // A plain scalar, up to a comment.
      let j = i;
      while (j < n && !(s.charCodeAt(j) === 35 && isSpace(s.charCodeAt(j - 1)))) j++;
      let e = j;
      while (e > i && isSpace(s.charCodeAt(e - 1))) e--;
      const w = s.slice(i, e);
      out.push(i, e, YAML_KW.has(w) ? "b" : YAML_NUM.test(w) ? "n" : "s");
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
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      re.lastIndex = i;
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
      if (c === 34) {
        const j = quoted(s, i, 34);
        out.push(i, j, "s");
        i = j;
      } else if (isWord(c) && (i === 0 || !isWord(s.charCodeAt(i - 1)))) {
        let j = i + 1;
        while (j < n && (isWord(s.charCodeAt(j)) || s[j] === "." || s[j] === "-")) j++;
        if (s[j] === "=") {
          const w = s.slice(i, j);
          out.push(i, j, w === "err" || w === "error" ? "lE" : "k", j, j + 1, "p");
          i = j + 1;
        } else {
          if (isDigit(c)) out.push(i, j, "n");
          else if (s.startsWith("Warning", i) && j - i === 7) out.push(i, j, "lW");
          i = j;
        }
      } else i++;
    }
  }

  const TOKENIZERS = { json: tokJSON, yaml: tokYAML, log: tokLog, text: tokLog };

  // ------------------------------------------------------------ formatting

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

  // ------------------------------------------------------------ the editor

  const valueProp = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  let canvas = null;

  class Editor {
    constructor(ta) {
      this.ta = ta;
      this.marks = []; // sorted by line, column
      this.byLine = new Map();
      this.starts = new Uint32Array(1024);
      this.lines = 1;
      this.first = 0;
      this.last = -1;
      this.dirty = true;
      this.frame = 0;
      this.jsonOK = false;
      this.renders = 0;

      const wrap = el("div", "ed");
      const gutter = el("div", "ed-gutter");
      gutter.setAttribute("aria-hidden", "true");
      const nums = el("div", "ed-nums");
      gutter.append(nums);
      const main = el("div", "ed-main");
      const layer = el("div", "ed-layer");
      layer.setAttribute("aria-hidden", "true");
      const code = el("pre", "ed-code");
      layer.append(code);
      ta.replaceWith(wrap);
      main.append(layer, ta);
      wrap.append(gutter, main);
      ta.classList.add("ed-input");
      ta.setAttribute("wrap", "off");
      Object.assign(this, { wrap, gutter, nums, layer, code });

      const bar = el("div", "ed-bar");
      this.info = el("span", "ed-info");
      this.fmt = el("button", "btn small ed-format");
      this.fmt.type = "button";
      this.next = el("button", "btn small ed-next");
      this.next.type = "button";
      this.count = el("span", "ed-count");
      this.status = el("span", "ed-status");
      this.status.setAttribute("role", "status");
      this.list = el("ol", "ed-list");
      this.list.hidden = true;
      bar.append(this.info, this.fmt, this.count, this.next, this.status);
      // Outside any <label>, so that the buttons do not become part of the
      // textarea's accessible name.
      const label = ta.closest("label");
      (label || wrap).after(bar, this.list);
      this.bar = bar;
      for (const e of [wrap, bar, this.list]) e.dataset.editorFor = ta.id || "";

      // The page sets .value when a tab changes: redraw then too.
      const self = this;
      Object.defineProperty(ta, "value", {
        configurable: true,
        get() { return valueProp.get.call(this); },
        set(v) {
          const before = valueProp.get.call(this);
          valueProp.set.call(this, v);
          if (valueProp.get.call(this) !== before) { if (self.marks.length) self.setMarks([]); self.changed(); }
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
          ta.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "historyUndo" }));
        }
      });
      for (const t of ["keyup", "click", "focus"]) ta.addEventListener(t, () => this.caretMessage());
      ta.addEventListener("mousemove", (ev) => this.hover(ev));
      ta.addEventListener("numascope:marks", (ev) => this.setMarks(ev.detail));
      ta.addEventListener("numascope:reveal", (ev) => {
        const d = ev.detail || {};
        this.reveal(Number(d.line) || 1, Number(d.column) || 0);
      });
      gutter.addEventListener("click", (ev) => {
        const row = ev.target.closest(".ed-n");
        const m = row && this.byLine.get(Number(row.dataset.line));
        if (m) this.reveal(m[0].line, m[0].column);
      });
      this.fmt.addEventListener("click", () => this.format());
      this.next.addEventListener("click", () => this.jumpNext(1));
      this.list.addEventListener("click", (ev) => {
        const b = ev.target.closest("button");
        if (b) this.reveal(Number(b.dataset.line), Number(b.dataset.column));
      });
      new ResizeObserver(() => this.measure()).observe(ta);
      this.measure();
      this.labels();
    }

    measure() {
      const cs = getComputedStyle(this.ta);
      this.lh = parseFloat(cs.lineHeight) || 19;
      this.padT = parseFloat(cs.paddingTop) || 0;
      this.padL = parseFloat(cs.paddingLeft) || 0;
      this.font = cs.font;
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

    // index finds where each line starts (one pass, no copies) and picks the
    // language and the mode.
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
      this.wrap.dataset.lang = this.lang;
      this.wrap.dataset.lines = String(n);
      this.wrap.dataset.mode = this.plain ? "plain" : "highlight";
      this.wrap.classList.toggle("ed-plain", this.plain);
      this.gutter.style.width = "calc(" + Math.max(2, String(n).length) + "ch + 18px)";
      clearTimeout(this.validTimer);
      this.jsonOK = false;
      // JSON.parse of a large text takes milliseconds: not on every keystroke.
      if (this.lang === "json" && text.length <= 65536) this.jsonOK = validJSON(text);
      else if (this.lang === "json" && text.length <= VALIDATE_CAP) this.validTimer = setTimeout(() => { this.jsonOK = validJSON(this.ta.value); this.labels(); }, 300);
      else if (this.lang === "json") this.jsonOK = true; // checked when the button is pressed
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

    render() {
      if (!this.wrap.isConnected) return;
      if (this.dirty) this.index();
      const [vf, vl] = this.visible();
      const first = Math.max(0, vf - MARGIN), last = Math.min(this.lines - 1, vl + MARGIN);
      const nums = document.createDocumentFragment(), code = document.createDocumentFragment();
      const tok = TOKENIZERS[this.lang];
      let budget = WINDOW_CHARS;
      for (let i = first; i <= last; i++) {
        const line = i + 1, marks = this.byLine.get(line);
        const num = el("div", "ed-n", String(line));
        num.dataset.line = String(line);
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
      this.first = first;
      this.last = last;
      this.renders++;
      this.wrap.dataset.renders = String(this.renders);
      this.position();
    }

    drawLine(text, tok, marks) {
      const div = el("div", "ed-l");
      const toks = [];
      if (tok && text) tok(text, toks);
      // Mark ranges: the token at the column, or the word, or one character.
      const ranges = [];
      if (marks) {
        div.classList.add("ed-l-" + marks.sev);
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
      const cuts = new Set([0, text.length]);
      for (let t = 0; t < toks.length; t += 3) { cuts.add(toks[t]); cuts.add(toks[t + 1]); }
      for (let r = 0; r < ranges.length; r += 3) { cuts.add(Math.min(ranges[r], text.length)); cuts.add(Math.min(ranges[r + 1], text.length)); }
      const points = [...cuts].sort((x, y) => x - y);
      let t = 0;
      for (let p = 0; p + 1 < points.length; p++) {
        const a = points[p], b = points[p + 1];
        while (t < toks.length && toks[t + 1] <= a) t += 3;
        const cls = t < toks.length && toks[t] <= a ? toks[t + 2] : "";
        const sev = markAt(ranges, a);
        if (!cls && !sev) { div.append(text.slice(a, b)); continue; }
        const span = el("span", cls, text.slice(a, b));
        if (sev) span.classList.add("ed-m", "ed-m-" + sev);
        div.append(span);
      }
      const end = markAt(ranges, text.length);
      if (end) div.append(el("span", "ed-m ed-m-" + end, " ")); // past the end of the line
      if (!div.firstChild) div.append("\n"); // an empty line keeps its height
      return div;
    }

    position() {
      const y = this.padT + this.first * this.lh - this.ta.scrollTop;
      this.code.style.transform = "translate(" + (this.padL - this.ta.scrollLeft) + "px," + y + "px)";
      this.nums.style.transform = "translateY(" + y + "px)";
    }

    scrolled() {
      const [vf, vl] = this.visible();
      if (this.dirty || vf < this.first || vl > this.last) this.render();
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
      this.ta.removeAttribute("title");
      this.labels();
      this.last = -1;
      this.render();
    }

    labels() {
      const t = tr();
      const n = this.marks.length;
      this.info.textContent = LANG_NAME[this.lang || "text"] + " · " + t.lines(this.lines) + (this.plain ? " · " + t.plain : "");
      const big = (this.text || "").length > FORMAT_CAP;
      this.fmt.hidden = this.lang !== "json";
      this.fmt.disabled = !this.jsonOK || big;
      this.fmt.textContent = t.format;
      this.fmt.title = big ? t.tooBig : this.jsonOK ? t.formatTitle : t.notJSON;
      this.next.textContent = t.next;
      this.next.title = t.nextTitle;
      this.next.hidden = n === 0;
      this.count.textContent = n ? t.problems(n) : "";
      this.list.hidden = n === 0;
      this.list.setAttribute("aria-label", t.list);
      const items = this.marks.slice(0, LIST_MAX).map((m) => {
        const li = el("li", "ed-" + m.severity);
        const b = el("button", "ed-jump", t.at(m.line, m.column) + " · " + t.sev[m.severity] + ": " + m.message);
        b.type = "button";
        b.dataset.line = String(m.line);
        b.dataset.column = String(m.column);
        li.append(b);
        return li;
      });
      if (n > LIST_MAX) items.push(el("li", "ed-more", t.more(n - LIST_MAX)));
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

    caretMessage() {
      if (!this.marks.length) return;
      const [line] = this.caretLine();
      const g = this.byLine.get(line);
      const msg = g ? tr().at(line, g[0].column) + " · " + tr().sev[g[0].severity] + ": " + g[0].message : "";
      if (this.status.textContent !== msg) this.status.textContent = msg;
    }

    hover(ev) {
      if (!this.marks.length) return;
      const line = Math.floor((ev.offsetY + this.ta.scrollTop - this.padT) / this.lh) + 1;
      const g = this.byLine.get(line);
      if (g) this.ta.title = g.map((m) => tr().sev[m.severity] + ": " + m.message).join("\n");
      else this.ta.removeAttribute("title");
    }

    jumpNext(dir) {
      const [line, col] = this.caretLine();
      const ms = this.marks;
      let m;
      if (dir > 0) m = ms.find((x) => x.line > line || (x.line === line && x.column > col)) || ms[0];
      else m = [...ms].reverse().find((x) => x.line < line || (x.line === line && x.column && x.column < col)) || ms[ms.length - 1];
      if (m) this.reveal(m.line, m.column);
    }

    // reveal puts the caret at line and column, scrolls there and says what
    // is marked there.
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
      if (!canvas) canvas = document.createElement("canvas").getContext("2d");
      canvas.font = this.font;
      const x = canvas.measureText(text.slice(Math.max(0, c - 20000), c).replace(/\t/g, "        ")).width + this.padL;
      if (x < ta.scrollLeft || x > ta.scrollLeft + ta.clientWidth - 20) ta.scrollLeft = Math.max(0, x - ta.clientWidth / 2);
      this.wrap.scrollIntoView({ block: "nearest" });
      this.render();
      const g = this.byLine.get(i + 1);
      const m = g && (g.find((x) => x.column === column) || g[0]);
      this.status.textContent = m ? tr().at(m.line, m.column) + " · " + tr().sev[m.severity] + ": " + m.message : "";
    }

    format() {
      const ta = this.ta, text = ta.value;
      if (text.length > FORMAT_CAP || !validJSON(text)) { this.jsonOK = false; this.labels(); return; }
      const pretty = prettyJSON(text);
      if (pretty === text) { this.status.textContent = tr().formatted; return; }
      // One replacement and one "input" event (execCommand would send one
      // per line, and take quadratic time), after the page's size guard has
      // seen it as a "beforeinput".
      ta.focus({ preventScroll: true });
      ta.select();
      const before = new InputEvent("beforeinput", { bubbles: true, cancelable: true, inputType: "insertReplacementText", data: pretty });
      if (!ta.dispatchEvent(before)) return;
      ta.value = pretty;
      this.undo = [text, pretty];
      ta.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertReplacementText" }));
      ta.setSelectionRange(0, 0);
      ta.scrollTop = 0;
      ta.scrollLeft = 0;
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
      document.querySelectorAll(SELECTOR).forEach((ta) => ta.numascopeEditor && ta.numascopeEditor.labels());
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }

  const tokens = (lang, line) => { const out = []; TOKENIZERS[lang](line, out); const r = []; for (let i = 0; i < out.length; i += 3) r.push([line.slice(out[i], out[i + 1]), out[i + 2]]); return r; };
  window.numascopeEditor = { attach, prettyJSON, sniff, tokens };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
