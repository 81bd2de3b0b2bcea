module github.com/numascope/numascope/internal/conformance/legacy/verdicts

go 1.26.0
