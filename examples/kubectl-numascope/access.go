package main

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// permission names one RBAC rule: verb on resource (resource/subresource) in
// an API group, in a namespace or cluster-wide.
type permission struct {
	verb, group, resource, namespace string
}

func (p permission) String() string {
	g := p.group
	if g == "" {
		g = `"" (core)`
	}
	where := "cluster-wide"
	if p.namespace != "" {
		where = "in namespace " + p.namespace
	}
	return fmt.Sprintf("%s %s (API group %s, %s)", p.verb, p.resource, g, where)
}

// errForbidden is wrapped by every error of a call the cluster refused.
var errForbidden = errors.New("forbidden")

// checked turns a Forbidden or Unauthorized answer into an error that names
// the permission missing and where it is granted; other errors are wrapped
// with what was being done.
func checked(err error, p permission, doing string) error {
	if err == nil {
		return nil
	}
	switch {
	case apierrors.IsForbidden(err) && !isRBACDenial(err):
		// Admission refused it (Pod Security, a quota, a policy engine),
		// not RBAC: a missing permission would be the wrong answer.
		return fmt.Errorf("%s: %w: the cluster's admission control refused it: %v", doing, errForbidden, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: %w: the cluster refused it; the missing permission is %s, granted by the ClusterRole in examples/kubectl-numascope/rbac.yaml (kubectl auth can-i %s %s%s shows it; server said: %v)",
			doing, errForbidden, p, p.verb, p.resource, nsFlag(p.namespace), err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the cluster does not know these credentials: %w (check the kubeconfig's user and its exec plugin)", doing, err)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

func nsFlag(ns string) string {
	if ns == "" {
		return ""
	}
	return " -n " + ns
}

// isRBACDenial tells an authorization denial (`User "x" cannot get resource
// "pods" ...`) from an admission one, both 403 Forbidden.
func isRBACDenial(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, " cannot ") && strings.Contains(msg, "resource ")
}
