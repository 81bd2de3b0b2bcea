module github.com/numascope/numascope

go 1.26

require (
	k8s.io/utils v0.0.0-20261023123148-ca04ba58ecab
	sigs.k8s.io/yaml v1.6.0
)

require go.yaml.in/yaml/v2 v2.4.2 // indirect
