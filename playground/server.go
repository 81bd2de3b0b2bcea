package main

import (
	"net/http"
	"strconv"
	"strings"
)

// contentSecurityPolicy keeps the page from talking to any other host: the
// engine runs here and the share link lives in the URL fragment.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
	"connect-src 'self'; img-src 'self' data:; style-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// handler serves the site from memory, brotli- or gzip-encoded when the
// client accepts it (brotli first: it is the smaller).
func (s *site) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		f, ok := s.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Set("Vary", "Accept-Encoding")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := f.data
		ae := r.Header.Get("Accept-Encoding")
		switch {
		case f.br != nil && accepts(ae, "br"):
			h.Set("Content-Encoding", "br")
			body = f.br
		case f.gz != nil && accepts(ae, "gzip"):
			h.Set("Content-Encoding", "gzip")
			body = f.gz
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}

// accepts reports whether an Accept-Encoding header allows the coding: named
// with a q-value other than zero, or, when it is not named, "*" so.
func accepts(ae, coding string) bool {
	named, star := false, false
	for _, part := range strings.Split(ae, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		enc = strings.ToLower(strings.TrimSpace(enc))
		ok := true
		if q, found := strings.CutPrefix(strings.ReplaceAll(strings.TrimSpace(params), " ", ""), "q="); found {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				ok = false
			}
		}
		switch enc {
		case coding:
			return ok
		case "*":
			named, star = true, ok
		}
	}
	return named && star
}
