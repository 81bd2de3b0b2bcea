package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/numascope/numascope/internal/nodebundle"
)

// Where the short-lived pod sees the host's files.
const (
	hostKubelet = "/host/var/lib/kubelet"
	hostSys     = "/host/sys"
	// gatherLabel marks the short-lived pods (kubectl delete pods -l
	// app.kubernetes.io/name=numascope-gather cleans up after a killed run).
	gatherLabel = "app.kubernetes.io/name"
	gatherValue = "numascope-gather"
	// agentLabel selects the agent DaemonSet's pods (examples/agent/daemonset.yaml).
	agentLabel = "app=numascope-agent"
)

// agentImage is --agent-image, else the image of the agent DaemonSet.
func agentImage(ctx context.Context, k *kube, o options) (string, error) {
	if o.agentImage != "" {
		return o.agentImage, nil
	}
	ds, err := k.cs.AppsV1().DaemonSets(o.agentNamespace).Get(ctx, "numascope-agent", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", fmt.Errorf("no numascope-agent DaemonSet in namespace %s to take the agent image from: pass --agent-image REGISTRY/numascope-agent@sha256:..., or --no-node-access", o.agentNamespace)
	}
	if err != nil {
		return "", checked(err, permission{"get", "apps", "daemonsets", o.agentNamespace}, "getting the agent DaemonSet's image")
	}
	for _, c := range ds.Spec.Template.Spec.Containers {
		if c.Name == "agent" {
			return c.Image, nil
		}
	}
	return "", fmt.Errorf("the numascope-agent DaemonSet has no container named agent: pass --agent-image")
}

// gatherPod is the short-lived pod: the agent image, the kubelet's
// directory and sysfs mounted read-only, one round printing the bundle.
func gatherPod(node, image, ns string) *corev1.Pod {
	var suffix [3]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	// A DNS subdomain: each dot-separated label starts and ends alphanumeric.
	name := "numascope-gather-" + strings.TrimRight(truncate(strings.ToLower(node), 40), "-.") + "-" + hex.EncodeToString(suffix[:])
	no, yes := false, true
	root := int64(0)
	deadline := int64(120)
	grace := int64(0)
	hostPath := func(p string) corev1.VolumeSource {
		t := corev1.HostPathDirectory
		return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: p, Type: &t}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{gatherLabel: gatherValue}},
		Spec: corev1.PodSpec{
			NodeName:                      node, // no scheduling: this node, even when it is full or cordoned
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         &deadline,
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  &no,
			EnableServiceLinks:            &no,
			HostUsers:                     &yes, // uid 0 of the host reads the kubelet's 0600 files
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: &root, RunAsGroup: &root, RunAsNonRoot: &no,
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name:  "agent",
				Image: image,
				Args: []string{"--once", "--report", "bundle", "--listen", "", "--node", node,
					"--state-dir", hostKubelet, "--sysfs", hostSys},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "kubelet", MountPath: hostKubelet, ReadOnly: true},
					{Name: "sys", MountPath: hostSys, ReadOnly: true},
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: []corev1.Volume{
				{Name: "kubelet", VolumeSource: hostPath("/var/lib/kubelet")},
				{Name: "sys", VolumeSource: hostPath("/sys")},
			},
		},
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// collectOnNode runs the short-lived pod on node, reads the bundle from its
// log and deletes it.
func collectOnNode(ctx context.Context, k *kube, o options, c *collection, node string) error {
	image, err := agentImage(ctx, k, o)
	if err != nil {
		return err
	}
	pod := gatherPod(node, image, o.agentNamespace)
	ns := pod.Namespace
	created, err := k.cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		err = checked(err, permission{"create", "", "pods", ns}, "starting the short-lived pod on node "+node)
		if strings.Contains(err.Error(), "PodSecurity") {
			err = fmt.Errorf("%w (the pod mounts host paths read-only: give namespace %s the privileged level, kubectl label namespace %s pod-security.kubernetes.io/enforce=privileged, as examples/agent/daemonset.yaml does, or pass --agent-namespace)", err, ns, ns)
		}
		return err
	}
	defer func() {
		// Deleted even when the run was interrupted.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		grace := int64(0)
		if err := k.cs.CoreV1().Pods(ns).Delete(dctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil && !apierrors.IsNotFound(err) {
			c.note("%v: delete it with kubectl delete pod -n %s %s", checked(err, permission{"delete", "", "pods", ns}, "deleting the short-lived pod"), ns, created.Name)
		}
	}()
	wctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	phase, err := waitDone(wctx, k, ns, created.Name)
	if err != nil {
		return err
	}
	limit := int64(nodebundle.MaxBytes)
	rc, err := k.cs.CoreV1().Pods(ns).GetLogs(created.Name, &corev1.PodLogOptions{Container: "agent", LimitBytes: &limit}).Stream(withStream(ctx, limit+1))
	if err != nil {
		return kubeletError(node, "the log of pod "+ns+"/"+created.Name, checked(err, permission{"get", "", "pods/log", ns}, "reading the short-lived pod's log"))
	}
	defer rc.Close()
	b, err := nodebundle.Read(rc, "the log of pod "+ns+"/"+created.Name)
	if err != nil {
		err = kubeletError(node, "the log of pod "+ns+"/"+created.Name, err)
		if phase == corev1.PodFailed {
			return fmt.Errorf("the short-lived pod failed and printed no bundle: %w", err)
		}
		return err
	}
	if b.Node != "" && b.Node != node {
		return fmt.Errorf("the bundle is from node %s, not %s", b.Node, node)
	}
	for _, e := range b.Errors {
		c.note("node %s: the agent could not read %s: %s", node, e.Path, e.Message)
	}
	for _, f := range b.Files {
		c.add(f.Path, bundleKind(f.Path), f.Data)
	}
	return nil
}

// bundleKind is the diagnose reader of a bundle file.
func bundleKind(p string) string {
	switch {
	case strings.HasPrefix(p, "sys/"):
		return "sysfs"
	case p == "config.yaml":
		return "kubelet-config"
	case strings.HasPrefix(p, "podresources"):
		return "podresources"
	case strings.HasPrefix(p, "machine-info"):
		return "topology"
	}
	return "state"
}

// waitDone polls the pod until its container has run (Succeeded or Failed);
// a pod that cannot start is reported with what its status says.
func waitDone(ctx context.Context, k *kube, ns, name string) (corev1.PodPhase, error) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	last := ""
	for {
		p, err := k.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("the short-lived pod %s/%s did not finish in time (%s)", ns, name, last)
			}
			return "", checked(err, permission{"get", "", "pods", ns}, "watching the short-lived pod")
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			return p.Status.Phase, nil
		}
		last = "phase " + string(p.Status.Phase)
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" {
				last += ", " + w.Reason + ": " + w.Message
				if w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff" || w.Reason == "InvalidImageName" {
					return "", fmt.Errorf("the short-lived pod cannot pull its image (%s): pass --agent-image with an image the node can pull", last)
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the short-lived pod %s/%s did not finish in time (%s): see kubectl describe pod -n %s %s", ns, name, last, ns, name)
		case <-t.C:
		}
	}
}

// agentPods maps node names to the running agent pod on it.
func agentPods(ctx context.Context, k *kube, ns string) (map[string]corev1.Pod, error) {
	sel, _ := labels.Parse(agentLabel)
	out := map[string]corev1.Pod{}
	opts := metav1.ListOptions{LabelSelector: sel.String(), Limit: pageSize}
	for {
		list, err := k.cs.CoreV1().Pods(ns).List(ctx, opts)
		if err != nil {
			return nil, checked(err, permission{"list", "", "pods", ns}, "listing the agent's pods")
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
				out[p.Spec.NodeName] = p
			}
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}
