// The numascope engine's Web Worker: it instantiates the WebAssembly module
// that the page compiled and answers {id, method, request} messages with
// {id, response}. The page terminates this worker when a call runs too long,
// so a hostile input can never freeze the page.
"use strict";

importScripts("wasm_exec.js");

let ready = false;
const queue = [];
// The last request received; a call with same: true is for it again (the
// page does not copy the same inputs twice).
let lastRequest;

// answer runs one call. The request is an object (the page's) or JSON text;
// the engine's glue turns an object into JSON itself.
// With the answer go the timing marks of the call: when the worker got the
// message and posted the answer (performance.timeOrigin + now, comparable
// with the page's clock), and the engine's own phases (numascope.phases).
function answer(id, method, request, got) {
  let response, phases = [];
  const began = performance.now();
  try {
    response = self.numascope.call(method, request);
    // name, ms, count for each phase (wasm/main.go phasesValue)
    const flat = self.numascope.phases || [];
    for (let i = 0; i + 2 < flat.length; i += 3) phases.push({ name: flat[i], ms: flat[i + 1], count: flat[i + 2] });
  } catch (e) {
    // A Go runtime crash (not a recovered panic) ends the program; report it.
    response = JSON.stringify({ ok: false, error: { code: "panic", message: String(e && e.message || e) } });
  }
  const callMs = performance.now() - began;
  self.postMessage({ type: "result", id, response, timing: { got, callMs, phases, posted: performance.timeOrigin + performance.now() } });
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === "init") {
    try {
      const go = new Go();
      self.numascopeReady = () => {
        ready = true;
        self.postMessage({ type: "ready", version: self.numascope.version });
        for (const q of queue.splice(0)) answer(q.id, q.method, q.request, q.got);
      };
      const instance = await WebAssembly.instantiate(msg.module, go.importObject);
      go.run(instance).then(() => {
        self.postMessage({ type: "exit" });
      }, (e) => {
        self.postMessage({ type: "fatal", message: String(e && e.message || e) });
      });
    } catch (e) {
      self.postMessage({ type: "fatal", message: String(e && e.message || e) });
    }
    return;
  }
  if (msg.type === "call") {
    const got = performance.timeOrigin + performance.now();
    const request = msg.same ? lastRequest : msg.request;
    lastRequest = request;
    if (!ready) {
      queue.push({ id: msg.id, method: msg.method, request, got });
      return;
    }
    answer(msg.id, msg.method, request, got);
  }
};
