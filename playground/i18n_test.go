package main

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// dictionary extracts the keys of one language block of i18n.js.
func dictionary(t *testing.T, src, lang string) map[string]bool {
	t.Helper()
	start := strings.Index(src, "\n  "+lang+": {")
	if start < 0 {
		start = strings.Index(src, "\n  \""+lang+"\": {")
	}
	if start < 0 {
		t.Fatalf("i18n.js has no %s block", lang)
	}
	end := strings.Index(src[start:], "\n  }")
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"([a-z0-9-]+)":`).FindAllStringSubmatch(src[start:start+end], -1) {
		keys[m[1]] = true
	}
	if len(keys) < 50 {
		t.Fatalf("found only %d keys for %s", len(keys), lang)
	}
	return keys
}

func TestEveryStringHasBothLanguages(t *testing.T) {
	s := fakeSite(t)
	src := string(s.files["i18n.js"].data)
	en, zh := dictionary(t, src, "en"), dictionary(t, src, "zh-CN")
	var missing []string
	for k := range en {
		if !zh[k] {
			missing = append(missing, "zh-CN lacks "+k)
		}
	}
	for k := range zh {
		if !en[k] {
			missing = append(missing, "en lacks "+k)
		}
	}
	// Every key the page uses must exist in English.
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-i18n(?:-aria)?="([a-z0-9-]+)"`).FindAllStringSubmatch(string(s.files["index.html"].data), -1) {
		used[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\bT\("([a-z0-9-]+)"`).FindAllStringSubmatch(string(s.files["app.js"].data), -1) {
		used[m[1]] = true
	}
	for k := range used {
		if strings.HasSuffix(k, "-") { // a prefix completed at run time, such as "severity-"
			continue
		}
		if !en[k] {
			missing = append(missing, "the page uses "+k+" but i18n.js does not define it")
		}
	}
	for _, k := range []string{"severity-error", "severity-warning", "severity-info", "reject-refuses-to-start", "reject-discards-data", "theme-auto", "theme-light", "theme-dark"} {
		if !en[k] {
			missing = append(missing, "i18n.js lacks "+k)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m)
	}
	if len(used) < 40 {
		t.Errorf("found only %d keys used by the page: the extraction is broken", len(used))
	}
}

// Finding titles are translated by the codes package diagnose defines.
func TestFindingTitlesCoverDiagnoseCodes(t *testing.T) {
	s := fakeSite(t)
	src := string(s.files["i18n.js"].data)
	start := strings.Index(src, "const FINDING_TITLES")
	if start < 0 {
		t.Fatal("no FINDING_TITLES in i18n.js")
	}
	titles := src[start:]
	for _, code := range diagnoseCodes(t) {
		if !strings.Contains(titles, `"`+code+`":`) {
			t.Errorf("no Chinese title for finding code %s", code)
		}
	}
}
