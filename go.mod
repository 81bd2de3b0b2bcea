module github.com/numascope/numascope

go 1.26

require (
	github.com/hashicorp/go-multierror v1.1.1
	k8s.io/utils v0.0.0-20260626114624-be93311217bd
)

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/hashicorp/errwrap v1.0.0 // indirect
)
