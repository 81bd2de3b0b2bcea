// The numascope playground's share-link worker: it turns the page's state
// into the fragment of a share link (JSON, raw deflate, unpadded base64url)
// away from the page's thread, where the JSON and its UTF-8 of the largest
// inputs the page takes (24 MiB) hold the page for most of a second.
// It answers {id, state} with {id, frag, inflated} (inflated: the JSON's
// size in bytes), or {id, error}.
"use strict";

function b64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

self.onmessage = async (ev) => {
  const { id, state } = ev.data;
  try {
    const json = new TextEncoder().encode(JSON.stringify(state));
    const deflated = new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("deflate-raw")));
    const frag = "#s=" + b64url(new Uint8Array(await deflated.arrayBuffer()));
    self.postMessage({ id, frag, inflated: json.length });
  } catch (e) {
    self.postMessage({ id, error: String((e && e.message) || e) });
  }
};
