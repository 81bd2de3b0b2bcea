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
		return fmt.Errorf("%s: %w: the cluster refused it; the missing permission is %s, granted by %s (kubectl auth can-i %s %s%s shows it; server said: %v)",
			doing, errForbidden, p, grantedBy(p), p.verb, p.resource, nsFlag(p.namespace), err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the cluster does not know these credentials: %w (check the kubeconfig's user and its exec plugin)", doing, err)
	}
	return fmt.Errorf("%s: %w", doing, plain(err))
}

// plain is the plugin's own error inside err (a refused redirect, an answer
// over its size or time), which says all, without the wrappings of
// net/http and client-go around it ("Get URL: ...", "unexpected error when
// reading response body. Please retry."); other errors are returned as
// they are.
func plain(err error) error {
	var ne *nodeError
	var le *limitError
	var re *redirectError
	var oe *offHostError
	switch {
	case errors.As(err, &ne):
		return ne
	case errors.As(err, &le):
		return le
	case errors.As(err, &re):
		return re
	case errors.As(err, &oe):
		return oe
	}
	return err
}

// nodeError is an error about one node's kubelet, whose message names the
// node and says what to do.
type nodeError struct {
	msg string
	err error
}

func (e *nodeError) Error() string { return e.msg }
func (e *nodeError) Unwrap() error { return e.err }

// kubeletError names the node in an error of a request that the API server
// passed to its kubelet (path, as the kubelet serves it): a redirect, which
// no kubelet answers to these requests, says the node may be compromised.
func kubeletError(node, path string, err error) error {
	var re *redirectError
	var le *limitError
	switch {
	case errors.As(err, &re):
		return &nodeError{err: err, msg: fmt.Sprintf("the kubelet of node %s answered %s with a redirect to %s: not followed, and nothing was sent there "+
			"(a kubelet does not redirect %s, and following would hand your kubeconfig's credentials to that address): check node %s, it may be compromised",
			node, path, re.location, path, node)}
	case errors.As(err, &le):
		return &nodeError{err: err, msg: le.Error()}
	case isRedirectRefused(err):
		// The API server itself follows no redirect of a kubelet's log
		// answer (genericrest.PreventRedirects), and says so.
		return &nodeError{err: err, msg: fmt.Sprintf("the kubelet of node %s answered %s with a redirect, which the API server refused to follow (%v): check node %s, it may be compromised",
			node, path, err, node)}
	}
	return err
}

// isRedirectRefused tells the API server's answer to a pod log request
// whose kubelet redirected it.
func isRedirectRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), "redirects forbidden")
}

// grantedBy names the manifest that grants p.
func grantedBy(p permission) string {
	if p.resource == "nodes/proxy" {
		return "the ClusterRole in examples/kubectl-numascope/rbac-kubelet.yaml, which also lets its holders run commands in every pod through the kubelet (README: Security)"
	}
	return "the ClusterRole in examples/kubectl-numascope/rbac.yaml"
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
