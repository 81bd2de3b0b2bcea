// The numascope engine's Web Worker: it instantiates the WebAssembly module
// that the page compiled and answers {id, method, request} messages with
// {id, response}. The page terminates this worker when a call runs too long,
// so a hostile input can never freeze the page.
"use strict";

importScripts("wasm_exec.js");

let ready = false;
const queue = [];

// answer runs one call. The request is an object (the page's) or JSON text;
// the engine's glue turns an object into JSON itself.
function answer(id, method, request) {
  let response;
  try {
    response = self.numascope.call(method, request);
  } catch (e) {
    // A Go runtime crash (not a recovered panic) ends the program; report it.
    response = JSON.stringify({ ok: false, error: { code: "panic", message: String(e && e.message || e) } });
  }
  self.postMessage({ type: "result", id, response });
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === "init") {
    try {
      const go = new Go();
      self.numascopeReady = () => {
        ready = true;
        self.postMessage({ type: "ready", version: self.numascope.version });
        for (const q of queue.splice(0)) answer(q.id, q.method, q.request);
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
    if (!ready) {
      queue.push(msg);
      return;
    }
    answer(msg.id, msg.method, msg.request);
  }
};
