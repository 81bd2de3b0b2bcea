package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
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

// The finding and problem tables of findings-zh.js, as the Go tests read
// them (the file keeps them as plain JSON for this).
type findingTable struct {
	Common map[string]string        `json:"common"`
	Codes  map[string]*findingEntry `json:"codes"`
}

type findingEntry struct {
	findingTexts
	Variants []findingVariant `json:"variants"`
}

type findingTexts struct {
	Title       string `json:"title"`
	Explanation string `json:"explanation"`
	Remedy      string `json:"remedy"`
	Why         string `json:"why"`
}

type findingVariant struct {
	When map[string]any `json:"when"`
	findingTexts
}

type problemEntry struct {
	Match struct {
		Remedy       *string `json:"remedy"`
		RemedyPrefix *string `json:"remedyPrefix"`
		Path         *string `json:"path"`
		Severity     *string `json:"severity"`
	} `json:"match"`
	Message string `json:"message"`
	Remedy  string `json:"remedy"`
}

const findingsJS = "web/findings-zh.js"

// jsTable decodes the JSON value assigned to `const name = ` in src.
func jsTable(t *testing.T, src, name string, v any) {
	t.Helper()
	marker := "const " + name + " = "
	i := strings.Index(src, marker)
	require.GreaterOrEqual(t, i, 0, "%s has no %q", findingsJS, marker)
	dec := json.NewDecoder(strings.NewReader(src[i+len(marker):]))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "%s: %s must be plain JSON (double-quoted keys, no trailing commas, no unknown fields)", findingsJS, name)
}

func zhTables(t *testing.T) (findingTable, []problemEntry) {
	t.Helper()
	b, err := os.ReadFile(findingsJS)
	require.NoError(t, err)
	var f map[string]findingTable
	var p map[string][]problemEntry
	jsTable(t, string(b), "FINDING_TEXTS", &f)
	jsTable(t, string(b), "PROBLEM_TEXTS", &p)
	require.Contains(t, f, "zh-CN")
	require.Contains(t, p, "zh-CN")
	return f["zh-CN"], p["zh-CN"]
}

// goConst is a string constant declared in package diagnose.
type goConst struct{ name, value, pos string }

// diagnoseConsts parses package diagnose and returns its string constants
// whose names match re (exported and unexported alike).
func diagnoseConsts(t *testing.T, re *regexp.Regexp) []goConst {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("../diagnose/*.go")
	require.NoError(t, err)
	more, err := filepath.Glob("../diagnose/evidence/*.go")
	require.NoError(t, err)
	paths = append(paths, more...)
	var out []goConst
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !re.MatchString(n.Name) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					pos := fset.Position(n.Pos())
					out = append(out, goConst{n.Name, v, fmt.Sprintf("diagnose/%s:%d", filepath.Base(pos.Filename), pos.Line)})
				}
			}
		}
	}
	return out
}

var (
	reTAECause   = regexp.MustCompile(`^Cause[A-Z]\w*$`)
	reInnerCause = regexp.MustCompile(`^Alloc[A-Z]\w*$`)
	// rePlaceholder is findings-zh.js's PLACEHOLDER.
	rePlaceholder = regexp.MustCompile(`\{([A-Za-z][\w.]*)(?:\|([^{}]*))?\}`)
	reOptional    = regexp.MustCompile(`\[\[([\s\S]*?)\]\]`)
)

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// Every finding code diagnose.Codes() lists has a Chinese title,
// explanation and remedy, and the file translates no other code.
func TestFindingTextsCoverDiagnoseCodes(t *testing.T) {
	table, _ := zhTables(t)
	codes := diagnose.Codes()
	require.GreaterOrEqual(t, len(codes), 25, "diagnose.Codes() has too few rows")
	known := map[string]bool{}
	for _, c := range codes {
		known[c.Name] = true
		e := table.Codes[c.Name]
		if e == nil {
			t.Errorf("finding code %q (%s) has no Chinese texts: add \"%s\": {\"title\": …, \"explanation\": …, \"remedy\": …} to FINDING_TEXTS[\"zh-CN\"].codes in playground/web/%s",
				c.Name, c.Means, c.Name, filepath.Base(findingsJS))
			continue
		}
		for field, s := range map[string]string{"title": e.Title, "explanation": e.Explanation, "remedy": e.Remedy} {
			if !hasHan(s) {
				t.Errorf("findings-zh.js: the zh-CN %s of finding code %q is empty or not Chinese: %q", field, c.Name, s)
			}
		}
	}
	for code := range table.Codes {
		if !known[code] {
			t.Errorf("findings-zh.js translates finding code %q, which diagnose.Codes() does not list: remove or rename it", code)
		}
	}
}

// Every cause value (of a TopologyAffinityError, and of the error an
// UnexpectedAdmissionError wraps) has its own variant.
func TestFindingTextsCoverCauses(t *testing.T) {
	table, _ := zhTables(t)
	covered := func(field, value string) (string, bool) {
		for code, e := range table.Codes {
			for _, v := range e.Variants {
				switch w := v.When[field].(type) {
				case string:
					if w == value {
						return code, true
					}
				case []any:
					for _, x := range w {
						if x == value {
							return code, true
						}
					}
				}
			}
		}
		return "", false
	}
	tae := diagnoseConsts(t, reTAECause)
	inner := diagnoseConsts(t, reInnerCause)
	require.Len(t, tae, 3, "TopologyAffinityError causes in diagnose")
	require.GreaterOrEqual(t, len(inner), 10, "UnexpectedAdmissionError causes in diagnose")
	for _, c := range tae {
		if code, ok := covered("topologyAffinityError.cause", c.value); !ok || code != diagnose.CodeTopologyAffinityError {
			t.Errorf("TopologyAffinityError cause %q (%s, %s) has no variant in findings-zh.js: add {\"when\": {\"topologyAffinityError.cause\": %q}, …} to the variants of TopologyAffinityError", c.value, c.name, c.pos, c.value)
		}
	}
	for _, c := range inner {
		if _, ok := covered("cause", c.value); !ok {
			t.Errorf("cause %q (%s, %s) has no variant in findings-zh.js: add {\"when\": {\"cause\": %q}, \"title\": …, \"explanation\": …, \"remedy\": …} to the code the cause is reported under", c.value, c.name, c.pos, c.value)
		}
	}
	// A variant for a cause that changes the meaning says so in its own
	// words: at least its title differs from the code's.
	for code, e := range table.Codes {
		for i, v := range e.Variants {
			if len(v.When) == 0 {
				t.Errorf("findings-zh.js: variant %d of %s has no conditions", i, code)
			}
			if v.Title == "" && v.Explanation == "" && v.Remedy == "" && v.Why == "" {
				t.Errorf("findings-zh.js: variant %d of %s changes no text", i, code)
			}
		}
	}
}

// Every placeholder and condition names a field of the finding JSON, and
// titles name fields only inside [[…]], so findingTitle(lang, code, title)
// works without the finding.
func TestFindingTextsUseFindingFields(t *testing.T) {
	table, problems := zhTables(t)
	typ := reflect.TypeOf(diagnose.Finding{})
	check := func(where, s string) {
		for _, m := range rePlaceholder.FindAllStringSubmatch(s, -1) {
			if err := jsonPath(typ, m[1]); err != nil {
				t.Errorf("findings-zh.js %s: placeholder {%s}: %v", where, m[1], err)
			}
		}
		if strings.Count(s, "[[") != strings.Count(s, "]]") {
			t.Errorf("findings-zh.js %s: unbalanced [[ ]] in %q", where, s)
		}
		if !hasHan(s) && s != "" {
			t.Errorf("findings-zh.js %s: not Chinese: %q", where, s)
		}
	}
	checkTitle := func(where, s string) {
		check(where, s)
		if rest := reOptional.ReplaceAllString(s, ""); rePlaceholder.MatchString(rest) {
			t.Errorf("findings-zh.js %s: title %q uses a field outside [[…]]; findingTitle has only the code", where, s)
		}
	}
	for k, s := range table.Common {
		check("common."+k, s)
	}
	n := 0
	for code, e := range table.Codes {
		checkTitle(code+".title", e.Title)
		check(code+".explanation", e.Explanation)
		check(code+".remedy", e.Remedy)
		check(code+".why", e.Why)
		for i, v := range e.Variants {
			where := fmt.Sprintf("%s.variants[%d]", code, i)
			for path := range v.When {
				if err := jsonPath(typ, path); err != nil {
					t.Errorf("findings-zh.js %s: condition on %s: %v", where, path, err)
				}
			}
			checkTitle(where+".title", v.Title)
			check(where+".explanation", v.Explanation)
			check(where+".remedy", v.Remedy)
			check(where+".why", v.Why)
			n++
		}
	}
	assert.Greater(t, n, 20, "variants found")
	for i, p := range problems {
		for _, s := range []string{p.Message, p.Remedy} {
			if !hasHan(s) {
				t.Errorf("findings-zh.js PROBLEM_TEXTS[%d]: empty or not Chinese: %q", i, s)
			}
			if m := rePlaceholder.FindString(s); m != "" {
				t.Errorf("findings-zh.js PROBLEM_TEXTS[%d]: problem texts take no placeholders, found %s", i, m)
			}
		}
	}
}

// jsonPath checks a dotted path ("evidence.0.file", "evidence.*.path")
// against the JSON tags of typ.
func jsonPath(typ reflect.Type, path string) error {
	for _, seg := range strings.Split(path, ".") {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Slice, reflect.Array:
			if _, err := strconv.Atoi(seg); err != nil && seg != "*" {
				return fmt.Errorf("%q: a list takes an index or *, not %q", path, seg)
			}
			typ = typ.Elem()
		case reflect.Struct:
			found := false
			for i := 0; i < typ.NumField(); i++ {
				f := typ.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if f.IsExported() && name == seg {
					typ, found = f.Type, true
					break
				}
			}
			if !found {
				return fmt.Errorf("%q: %s has no JSON field %q", path, typ.Name(), seg)
			}
		default:
			return fmt.Errorf("%q: %s has no fields", path, typ)
		}
	}
	return nil
}

// Every English remedy PROBLEM_TEXTS matches is still written by the Go
// code (statefile, or the playground's own input checks).
func TestProblemRemediesExistInGoSources(t *testing.T) {
	_, problems := zhTables(t)
	var src strings.Builder
	for _, dir := range []string{"../statefile", "../wasm/internal/api"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			src.Write(b)
		}
	}
	require.Greater(t, src.Len(), 10000)
	seen := map[string]bool{}
	for i, p := range problems {
		var english string
		switch {
		case p.Match.Remedy != nil:
			english = *p.Match.Remedy
		case p.Match.RemedyPrefix != nil:
			english = *p.Match.RemedyPrefix
		default:
			t.Errorf("findings-zh.js PROBLEM_TEXTS[%d] matches no remedy", i)
			continue
		}
		quoted := strconv.Quote(english)
		if !strings.Contains(src.String(), quoted[1:len(quoted)-1]) {
			t.Errorf("findings-zh.js PROBLEM_TEXTS[%d] matches the remedy %q, which statefile and wasm/internal/api no longer write: update or remove the entry", i, english)
		}
		if p.Match.Path != nil {
			_, err := regexp.Compile(*p.Match.Path)
			assert.NoError(t, err, "PROBLEM_TEXTS[%d].match.path", i)
		}
		key := english
		if p.Match.Path != nil {
			key += "\x00" + *p.Match.Path
		}
		if seen[key] {
			t.Errorf("findings-zh.js PROBLEM_TEXTS[%d] repeats the match of an earlier entry (%q)", i, english)
		}
		seen[key] = true
		if p.Remedy == english || p.Message == english {
			t.Errorf("findings-zh.js PROBLEM_TEXTS[%d] is not translated", i)
		}
	}
	assert.GreaterOrEqual(t, len(problems), 4, "problem remedies translated")
}

// The page loads findings-zh.js right after i18n.js, and it loads nothing
// from another host.
func TestFindingsScriptIsLoaded(t *testing.T) {
	s := fakeSite(t)
	f, ok := s.files["findings-zh.js"]
	require.True(t, ok, "the site lacks findings-zh.js")
	html := string(s.files["index.html"].data)
	i18n := strings.Index(html, `<script src="i18n.js" defer></script>`)
	zh := strings.Index(html, `<script src="findings-zh.js" defer></script>`)
	app := strings.Index(html, `<script src="app.js" defer></script>`)
	assert.True(t, i18n >= 0 && zh > i18n && (app < 0 || zh < app), "index.html must load findings-zh.js after i18n.js and before app.js")
	for _, bad := range []string{"http://", "https://", "//cdn", "import("} {
		assert.NotContains(t, string(f.data), bad, "findings-zh.js must load nothing from another host")
	}
	assert.NotContains(t, string(s.files["i18n.js"].data), "FINDING_TITLES", "the finding titles live in findings-zh.js")
}

// nodeHarness runs findings-zh.js in Node over the findings and problems
// in input and returns what each function returned.
const nodeHarness = `
const fs = require("fs"), vm = require("vm");
const [src, input] = process.argv.slice(1);
const ctx = {};
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(src, "utf8") +
  "\n;FINDING_TEXTS['zh-CN'].common.missing = '\u27e6missing\u27e7';" +
  "\n;this.api = { findingTexts, problemTexts, findingTitle };", ctx, { filename: src });
const { findingTexts, problemTexts, findingTitle } = ctx.api;
const data = JSON.parse(fs.readFileSync(input, "utf8"));
const run = (fn) => { try { return { ok: fn() }; } catch (e) { return { err: String(e && e.stack || e) }; } };
const out = {
  findings: data.findings.map((f) => ({
    zh: run(() => findingTexts("zh-CN", f)),
    en: run(() => findingTexts("en", f)),
    title: run(() => findingTitle("zh-CN", f.code, f.title)),
    bare: run(() => findingTitle("zh-CN", f.code, "")),
  })),
  problems: data.problems.map((p) => ({ zh: run(() => problemTexts("zh-CN", p)), en: run(() => problemTexts("en", p)) })),
  unknown: run(() => findingTexts("zh-CN", { code: "NoSuchCode", title: "T", explanation: "E", remedy: "R" })),
  // Input is untrusted: odd codes, languages and field types must not throw.
  hostile: (() => {
    const errs = [];
    const codes = ["constructor", "__proto__", "toString", "hasOwnProperty", "TopologyAffinityError", "CorruptCheckpoint", 7, null];
    const odd = [null, 1, "x", [], {}, { file: 3 }, [null, { file: "f", line: "x" }], { numaNodes: "0" }, { numaAffinity: "0" }, { numaAffinity: null, numaNodes: [0] }];
    for (const lang of ["zh-CN", "en", "__proto__", "constructor", undefined]) {
      for (const code of codes) {
        for (const v of odd) {
          const f = { code, title: v, pod: v, evidence: v, cause: v, knownBugs: v, severity: v, topologyAffinityError: v && typeof v === "object" && !Array.isArray(v) ? { ...v, resources: v, loggedBestHint: v } : v };
          for (const fn of [() => findingTexts(lang, f), () => findingTexts(lang, v), () => findingTitle(lang, code, v),
            () => problemTexts(lang, { path: v, remedy: v, message: v, severity: v }), () => problemTexts(lang, v)]) {
            const r = run(fn);
            if (r.err && errs.length < 20) errs.push(JSON.stringify([lang, code, v]) + ": " + r.err);
          }
        }
      }
    }
    return errs;
  })(),
};
process.stdout.write(JSON.stringify(out));
`

type jsResult[T any] struct {
	OK  *T     `json:"ok"`
	Err string `json:"err"`
}

type jsFindingTexts struct {
	Title       string `json:"title"`
	Explanation string `json:"explanation"`
	Remedy      string `json:"remedy"`
	Translated  bool   `json:"translated"`
}

type jsProblemTexts struct {
	Message    string `json:"message"`
	Remedy     string `json:"remedy"`
	Translated bool   `json:"translated"`
}

// scenarioFindings runs diagnose over every scenario in diagnose/testdata.
func scenarioFindings(t *testing.T) (findings []diagnose.Finding, where []string) {
	t.Helper()
	root, err := filepath.Abs("../diagnose/testdata")
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil || !e.IsDir() {
			continue
		}
		t.Run("scenario/"+e.Name(), func(t *testing.T) {
			t.Chdir(dir)
			src, err := evidence.SourcesFromDir(".")
			require.NoError(t, err)
			var files []string
			for _, f := range src.Files {
				switch filepath.Base(f) {
				case "README.md", "expected.json", "expected.txt":
					continue
				}
				files = append(files, f)
			}
			src.Files = files
			ev, err := evidence.Load(src)
			require.NoError(t, err)
			rep, err := diagnose.Run(context.Background(), ev)
			require.NoError(t, err)
			for i, f := range rep.Findings {
				findings = append(findings, f)
				where = append(where, fmt.Sprintf("%s finding %d (%s)", e.Name(), i, f.Code))
			}
		})
	}
	require.Greater(t, len(where), 50, "findings of the scenarios")
	return findings, where
}

// statefileProblems decodes the kubelet-written checkpoints in
// statefile/testdata and returns their problems.
func statefileProblems(t *testing.T) []statefile.Problem {
	t.Helper()
	var out []statefile.Problem
	paths, err := filepath.Glob("../statefile/testdata/kubelet/*/*.json")
	require.NoError(t, err)
	for _, path := range paths {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		// Files that are not checkpoints at all fail Decode: they have no problems.
		if f, err := statefile.Decode(b, statefile.Options{Name: filepath.Base(path)}); err == nil {
			out = append(out, f.Problems...)
		}
	}
	require.NoError(t, err)
	return out
}

// findingsZhInNode runs findings-zh.js in Node over the findings of every
// diagnose scenario and the problems of statefile's kubelet-written files.
func TestFindingsZhInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("NUMASCOPE_REQUIRE_BROWSER") != "" {
			t.Fatal("node is not installed (CI installs Debian's nodejs): findings-zh.js cannot be checked")
		}
		t.Skip("node is not installed; install Debian's nodejs to run findings-zh.js")
	}
	findings, where := scenarioFindings(t)
	problems := statefileProblems(t)
	require.Greater(t, len(problems), 20, "problems of statefile's testdata")
	tmp := t.TempDir()
	in, err := json.Marshal(map[string]any{"findings": findings, "problems": problems})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "in.json"), in, 0o600))
	src, err := filepath.Abs(findingsJS)
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, "-e", nodeHarness, src, filepath.Join(tmp, "in.json"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node: %s", stderr.String())
	var out struct {
		Findings []struct {
			ZH    jsResult[jsFindingTexts] `json:"zh"`
			EN    jsResult[jsFindingTexts] `json:"en"`
			Title jsResult[string]         `json:"title"`
			Bare  jsResult[string]         `json:"bare"`
		} `json:"findings"`
		Problems []struct {
			ZH jsResult[jsProblemTexts] `json:"zh"`
			EN jsResult[jsProblemTexts] `json:"en"`
		} `json:"problems"`
		Unknown jsResult[jsFindingTexts] `json:"unknown"`
		Hostile []string                 `json:"hostile"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	require.Len(t, out.Findings, len(findings))
	require.Len(t, out.Problems, len(problems))

	leftover := func(s string) string {
		switch {
		case rePlaceholder.MatchString(s):
			return "an unfilled " + rePlaceholder.FindString(s)
		case strings.Contains(s, "\u27e6missing\u27e7"):
			return "an empty field outside [[…]]"
		case strings.Contains(s, "[[") || strings.Contains(s, "]]") || strings.Contains(s, "{@"):
			return "template syntax"
		}
		return ""
	}
	codes := map[string]bool{}
	for i, r := range out.Findings {
		f := findings[i]
		codes[f.Code] = true
		if r.ZH.Err != "" || r.EN.Err != "" || r.Title.Err != "" || r.Bare.Err != "" {
			t.Errorf("%s: findings-zh.js threw: %s%s%s%s", where[i], r.ZH.Err, r.EN.Err, r.Title.Err, r.Bare.Err)
			continue
		}
		zh := *r.ZH.OK
		if !zh.Translated {
			t.Errorf("%s: no zh-CN translation for code %s", where[i], f.Code)
			continue
		}
		for field, pair := range map[string][2]string{"title": {zh.Title, f.Title}, "explanation": {zh.Explanation, f.Explanation}, "remedy": {zh.Remedy, f.Remedy}} {
			if bad := leftover(pair[0]); bad != "" {
				t.Errorf("%s: the zh-CN %s has %s: %q", where[i], field, bad, pair[0])
			}
			if !hasHan(pair[0]) || pair[0] == pair[1] {
				t.Errorf("%s: the zh-CN %s is empty or the English: %q", where[i], field, pair[0])
			}
		}
		if f.Pod != "" && !strings.Contains(zh.Title+zh.Explanation+zh.Remedy, f.Pod) {
			t.Errorf("%s: the zh-CN texts do not name pod %s", where[i], f.Pod)
		}
		for _, b := range f.KnownBugs {
			if !strings.Contains(zh.Explanation, b) {
				t.Errorf("%s: the zh-CN explanation does not name known bug %s", where[i], b)
			}
		}
		if a := f.TopologyAffinityError; a != nil && a.LoggedBestHint != nil && len(a.LoggedBestHint.NUMANodes) > 0 {
			nodes := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(a.LoggedBestHint.NUMANodes)), ","), "[]")
			assert.Contains(t, zh.Explanation, "NUMA 节点 "+nodes, "%s: the zh-CN explanation renders the logged best hint (numaAffinity)", where[i])
		}
		want := jsFindingTexts{Title: f.Title, Explanation: f.Explanation, Remedy: f.Remedy}
		if diff := cmp.Diff(want, *r.EN.OK); diff != "" {
			t.Errorf("%s: findingTexts(\"en\") must return the engine's texts (-want +got):\n%s", where[i], diff)
		}
		for _, s := range []string{*r.Title.OK, *r.Bare.OK} {
			if bad := leftover(s); bad != "" || !hasHan(s) {
				t.Errorf("%s: findingTitle gives %q", where[i], s)
			}
		}
	}
	assert.GreaterOrEqual(t, len(codes), 25, "distinct codes in the scenarios")
	translated := map[string]bool{}
	for i, r := range out.Problems {
		p := problems[i]
		if r.ZH.Err != "" || r.EN.Err != "" {
			t.Errorf("problem %q: findings-zh.js threw: %s%s", p.Message, r.ZH.Err, r.EN.Err)
			continue
		}
		want := jsProblemTexts{Message: p.Message, Remedy: p.Remedy}
		if diff := cmp.Diff(want, *r.EN.OK); diff != "" {
			t.Errorf("problemTexts(\"en\") must return the problem's texts (-want +got):\n%s", diff)
		}
		zh := *r.ZH.OK
		if !zh.Translated {
			continue
		}
		translated[p.Remedy] = true
		if !hasHan(zh.Message) || !hasHan(zh.Remedy) || leftover(zh.Message+zh.Remedy) != "" {
			t.Errorf("problem %q: zh-CN texts %q / %q", p.Message, zh.Message, zh.Remedy)
		}
	}
	assert.GreaterOrEqual(t, len(translated), 4, "distinct remedies translated among statefile's testdata problems")
	if u := out.Unknown; assert.Empty(t, u.Err) && assert.NotNil(t, u.OK) {
		assert.Equal(t, jsFindingTexts{Title: "T", Explanation: "E", Remedy: "R"}, *u.OK, "a code without translation keeps the engine's texts")
	}
	assert.Empty(t, out.Hostile, "findings-zh.js threw on odd input")
	t.Logf("%d findings of %d codes and %d problems (%d distinct remedies translated) checked in Node", len(findings), len(codes), len(problems), len(translated))
}
