// The numascope playground's service worker: it keeps a copy of the site's
// own files so the page works offline once it has been loaded. It asks the
// network first (so a new build is picked up) and falls back to the copy.
"use strict";

const CACHE = "numascope-playground-v1";
const FILES = ["./", "index.html", "style.css", "editor.css", "i18n.js", "findings-zh.js", "editor.js", "app.js", "worker.js", "share-worker.js", "wasm_exec.js", "numascope.wasm", "manifest.json"];

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (ev) => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== "GET" || url.origin !== self.location.origin) return;
  ev.respondWith(fetch(ev.request).then((resp) => {
    if (resp.ok) {
      const copy = resp.clone();
      caches.open(CACHE).then((c) => c.put(ev.request, copy));
    }
    return resp;
  }).catch(() => caches.match(ev.request, { ignoreSearch: true })));
});
