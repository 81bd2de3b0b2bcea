module github.com/numascope/numascope

go 1.26
