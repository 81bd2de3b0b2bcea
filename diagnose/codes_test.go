package diagnose

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/statefile"
)

// codeInfo returns the row of Codes for code.
func codeInfo(code string) (CodeInfo, bool) {
	for _, c := range Codes() {
		if c.Name == code {
			return c, true
		}
	}
	return CodeInfo{}, false
}

// TestCodesTable: every row is complete and named once, and every finding
// code constant of the package is declared in codes.go and has a row.
func TestCodesTable(t *testing.T) {
	seen := map[string]bool{}
	order := map[statefile.Severity]int{statefile.SeverityError: 0, statefile.SeverityWarning: 1, statefile.SeverityInfo: 2}
	for _, c := range Codes() {
		assert.False(t, seen[c.Name], "code %s has two rows", c.Name)
		seen[c.Name] = true
		assert.NotEmpty(t, c.Means, c.Name)
		assert.NotContains(t, c.Means, "\n", c.Name)
		assert.Contains(t, []string{"admission", "start-up", "runtime", "state", "evidence"}, c.Family, c.Name)
		require.NotEmpty(t, c.Severities, c.Name)
		assert.True(t, slices.IsSortedFunc(c.Severities, func(a, b statefile.Severity) int { return order[a] - order[b] }), "%s: severities %v, most serious first", c.Name, c.Severities)
		for _, s := range c.Severities {
			assert.Contains(t, order, s, c.Name)
		}
	}

	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	declared := map[string]bool{}
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
					if !regexp.MustCompile(`^[cC]ode[A-Z]`).MatchString(n.Name) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					assert.Equal(t, "codes.go", p, "finding code %s (%s) is declared outside codes.go", n.Name, v)
					assert.True(t, seen[v], "finding code %s (%s) has no row in codeTable", n.Name, v)
					declared[v] = true
				}
			}
		}
	}
	for code := range seen {
		assert.True(t, declared[code], "the row %s names no constant of codes.go", code)
	}
}

// readmeFindings reads the README's findings table: code -> severities.
func readmeFindings(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	start := slices.Index(lines, "| code | severity | what | scenario under `diagnose/testdata/` |")
	require.GreaterOrEqual(t, start, 0, "README.md has no findings table")
	rows := map[string][]string{}
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		require.Len(t, cells, 6, line)
		code := strings.Trim(strings.TrimSpace(cells[1]), "`")
		require.NotContains(t, rows, code, "README.md's findings table lists %s twice", code)
		var sevs []string
		for _, s := range strings.Split(cells[2], ",") {
			sevs = append(sevs, strings.TrimSpace(s))
		}
		rows[code] = sevs
	}
	require.Greater(t, len(rows), 20, "README.md's findings table: the parsing is broken")
	return rows
}

// TestReadmeListsEveryCode: the README's findings table has a row for
// every code, with the severities it is reported with, and no other row.
func TestReadmeListsEveryCode(t *testing.T) {
	rows := readmeFindings(t)
	for _, c := range Codes() {
		sevs, ok := rows[c.Name]
		if !assert.True(t, ok, "README.md's findings table has no row for %s (%s)", c.Name, c.Means) {
			continue
		}
		var want []string
		for _, s := range c.Severities {
			want = append(want, string(s))
		}
		assert.ElementsMatch(t, want, sevs, "README.md's severities of %s", c.Name)
	}
	for code := range rows {
		_, ok := codeInfo(code)
		assert.True(t, ok, "README.md's findings table lists %s, which Codes() does not have", code)
	}
}

// checkCodes holds every finding of a report to the codes table: a known
// code, with one of its severities.
func checkCodes(t *testing.T, rep Report) {
	t.Helper()
	for _, f := range rep.Findings {
		c, ok := codeInfo(f.Code)
		if assert.True(t, ok, "finding %q has code %s, which Codes() does not have", f.Title, f.Code) {
			assert.Contains(t, c.Severities, f.Severity, "finding %q: %s is not reported as %s in Codes()", f.Title, f.Code, f.Severity)
		}
	}
}
