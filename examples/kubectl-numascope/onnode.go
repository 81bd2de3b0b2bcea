package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/numascope/numascope/internal/nodebundle"
	"github.com/numascope/numascope/statefile"
)

// The short-lived pod's names.
const (
	// gatherLabel marks the short-lived pods (kubectl delete pods -l
	// app.kubernetes.io/name=numascope-gather cleans up after a killed run).
	gatherLabel = "app.kubernetes.io/name"
	gatherValue = "numascope-gather"
	// agentLabel selects the agent DaemonSet's pods (examples/agent/daemonset.yaml).
	agentLabel = "app=numascope-agent"
	// kubeletRoot is the kubelet's root directory on the node (--root-dir),
	// and hostKubelet where the short-lived pod sees the files it mounts
	// from there, each at its path under it.
	kubeletRoot = "/var/lib/kubelet"
	hostKubelet = "/host" + kubeletRoot
)

// nodeFile is a host file the short-lived pod mounts, alone and read-only:
// the pod sees nothing else of the node but its own /sys (the NUMA
// topology, which sysfs shows every container).
type nodeFile struct {
	volume string              // the pod's volume name
	path   string              // under kubeletRoot, slash-separated
	typ    corev1.HostPathType // File or Socket: the kubelet checks it before mounting
}

// nodeFiles are what the agent reads on a node: the four checkpoints and
// the PodResources socket. rbac.yaml's ValidatingAdmissionPolicy allows
// exactly these mounts, and TestNodeAccessPolicy checks that the two agree.
var nodeFiles = func() []nodeFile {
	var fs []nodeFile
	for _, kind := range statefile.Kinds() {
		fs = append(fs, nodeFile{volume: "state-" + string(kind), path: filepath.ToSlash(kind.PathIn("")), typ: corev1.HostPathFile})
	}
	return append(fs, nodeFile{volume: "pod-resources", path: "pod-resources/kubelet.sock", typ: corev1.HostPathSocket})
}()

// agentImage is --agent-image, else the image of the agent DaemonSet.
func agentImage(ctx context.Context, k *kube, o clusterFlags) (string, error) {
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

// gatherPod is the short-lived pod: the agent image, one round printing
// the bundle, with the node's files of nodeFiles mounted read-only but
// those in skip (which the node does not have). It runs as user 0 of the
// host, without any capability: the kubelet writes its checkpoints mode
// 0600 (os.CreateTemp, then a rename) and creates its socket writable by
// root only, so only their owner can read them and connect.
func gatherPod(node, image, ns string, skip map[string]string) *corev1.Pod {
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
	socket := "none"
	var mounts []corev1.VolumeMount
	var volumes []corev1.Volume
	for _, f := range nodeFiles {
		if _, ok := skip[f.volume]; ok {
			continue
		}
		t := f.typ
		if t == corev1.HostPathSocket {
			socket = hostKubelet + "/" + f.path
		}
		mounts = append(mounts, corev1.VolumeMount{Name: f.volume, MountPath: hostKubelet + "/" + f.path, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: f.volume, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: kubeletRoot + "/" + f.path, Type: &t}}})
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
			HostUsers:                     &yes, // user 0 of the host, the owner of the files
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: &root, RunAsGroup: &root, RunAsNonRoot: &no,
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name:  "agent",
				Image: image,
				Args: []string{"--once", "--report", "bundle", "--listen", "", "--node", node,
					"--state-dir", hostKubelet, "--socket", socket,
					"--kubelet-config", "none", "--sysfs", "/sys"},
				SecurityContext: &corev1.SecurityContext{Privileged: &no, AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				VolumeMounts:             mounts,
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: volumes,
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
// log and deletes it. A file the node does not have (a kubelet without the
// DRA manager writes no dra_manager_state) keeps the pod from starting:
// the kubelet's hostPath check refuses to mount it, and says so in an
// event. The pod is then made again without it, and a note says which file
// the node lacks.
func collectOnNode(ctx context.Context, k *kube, o clusterFlags, c *collection, node string) error {
	image, err := agentImage(ctx, k, o)
	if err != nil {
		return err
	}
	skip := map[string]string{}
	for {
		b, missing, err := runGatherPod(ctx, k, o, c, node, image, skip)
		if err != nil {
			return err
		}
		if len(missing) == 0 {
			for _, e := range b.Errors {
				c.note("node %s: the agent could not read %s: %s", node, e.Path, e.Message)
			}
			for _, f := range b.Files {
				c.add(f.Path, bundleKind(f.Path), f.Data)
			}
			return nil
		}
		progress := false
		for _, f := range nodeFiles {
			if msg, ok := missing[f.volume]; ok && skip[f.volume] == "" {
				skip[f.volume], progress = msg, true
				c.note("node %s has no %s/%s: the evidence goes without it (the kubelet: %s)", node, kubeletRoot, f.path, msg)
			}
		}
		if !progress {
			return fmt.Errorf("the kubelet of node %s refused again to mount what it refused before", node)
		}
	}
}

// runGatherPod runs one short-lived pod: the bundle it printed, or the
// volumes the kubelet would not mount (by name, with the kubelet's
// message), or an error.
func runGatherPod(ctx context.Context, k *kube, o clusterFlags, c *collection, node, image string, skip map[string]string) (*nodebundle.Bundle, map[string]string, error) {
	pod := gatherPod(node, image, o.agentNamespace, skip)
	ns := pod.Namespace
	created, err := k.cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		err = checked(err, permission{"create", "", "pods", ns}, "starting the short-lived pod on node "+node)
		switch msg := err.Error(); {
		case strings.Contains(msg, "PodSecurity"):
			err = fmt.Errorf("%w (the pod mounts host files read-only: give namespace %s the privileged level, kubectl label namespace %s pod-security.kubernetes.io/enforce=privileged, as examples/agent/daemonset.yaml does, or pass --agent-namespace)", err, ns, ns)
		case strings.Contains(msg, "ValidatingAdmissionPolicy") && strings.Contains(msg, "no params found"):
			err = fmt.Errorf("%w (the policy of examples/kubectl-numascope/rbac.yaml lets the short-lived pod run the image of the numascope-agent DaemonSet only: deploy it, examples/agent/daemonset.yaml)", err)
		}
		return nil, nil, err
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
	phase, missing, err := waitDone(wctx, k, created)
	if err != nil || len(missing) > 0 {
		return nil, missing, err
	}
	limit := int64(nodebundle.MaxBytes)
	rc, err := k.cs.CoreV1().Pods(ns).GetLogs(created.Name, &corev1.PodLogOptions{Container: "agent", LimitBytes: &limit}).Stream(withStream(ctx, limit+1))
	if err != nil {
		return nil, nil, kubeletError(node, "the log of pod "+ns+"/"+created.Name, checked(err, permission{"get", "", "pods/log", ns}, "reading the short-lived pod's log"))
	}
	defer rc.Close()
	b, err := nodebundle.Read(rc, "the log of pod "+ns+"/"+created.Name)
	if err != nil {
		err = kubeletError(node, "the log of pod "+ns+"/"+created.Name, err)
		if phase == corev1.PodFailed {
			return nil, nil, fmt.Errorf("the short-lived pod failed and printed no bundle: %w", err)
		}
		return nil, nil, err
	}
	if b.Node != "" && b.Node != node {
		return nil, nil, fmt.Errorf("the bundle is from node %s, not %s", b.Node, node)
	}
	return b, nil, nil
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
// a pod that cannot start is reported with what its status says. While it
// waits to start, the pod's FailedMount events are read every second: the
// volumes whose host file the kubelet's type check refused are returned,
// with the kubelet's message, as the node does not have those files.
func waitDone(ctx context.Context, k *kube, p *corev1.Pod) (corev1.PodPhase, map[string]string, error) {
	ns, name := p.Namespace, p.Name
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	last := ""
	var missing map[string]string
	for tick := 0; ; tick++ {
		p, err := k.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if ctx.Err() != nil {
				return "", nil, fmt.Errorf("the short-lived pod %s/%s did not finish in time (%s)", ns, name, last)
			}
			return "", nil, checked(err, permission{"get", "", "pods", ns}, "watching the short-lived pod")
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			return p.Status.Phase, nil, nil
		}
		last = "phase " + string(p.Status.Phase)
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" {
				last += ", " + w.Reason + ": " + w.Message
				if w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff" || w.Reason == "InvalidImageName" {
					return "", nil, fmt.Errorf("the short-lived pod cannot pull its image (%s): pass --agent-image with an image the node can pull", last)
				}
			}
		}
		if tick%4 == 0 && p.Status.Phase == corev1.PodPending {
			// The kubelet checks every volume at once; the events of all the
			// files a node lacks are there a second after the first.
			if missing != nil {
				maps.Copy(missing, missingFiles(ctx, k, p))
				return "", missing, nil
			}
			if m := missingFiles(ctx, k, p); len(m) > 0 {
				missing = m
			}
		}
		select {
		case <-ctx.Done():
			return "", nil, fmt.Errorf("the short-lived pod %s/%s did not finish in time (%s): see kubectl describe pod -n %s %s", ns, name, last, ns, name)
		case <-t.C:
		}
	}
}

// missingFiles reads the pod's FailedMount events for the kubelet's
// refusals of a hostPath of nodeFiles ("MountVolume.SetUp failed for volume
// \"state-dra\" : hostPath type check failed, /var/lib/kubelet/dra_manager_state
// is not a file, ..."), by volume name. Events that cannot be read give
// none: the wait then ends with the pod's status.
func missingFiles(ctx context.Context, k *kube, p *corev1.Pod) map[string]string {
	evs, err := k.cs.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{Limit: 50, FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.uid", string(p.UID)),
		fields.OneTermEqualSelector("reason", "FailedMount")).String()})
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range evs.Items {
		vol, detail, ok := hostPathRefusal(e.Message)
		if !ok {
			continue
		}
		for _, f := range nodeFiles {
			if f.volume == vol {
				out[vol] = detail
			}
		}
	}
	return out
}

// hostPathRefusal reads a FailedMount event's message in which the
// kubelet's hostPath type check refused a volume: the volume's name and
// the check's words ("hostPath type check failed, PATH is not a file,
// ..."), cut to maxRefusal bytes.
func hostPathRefusal(msg string) (volume, detail string, ok bool) {
	_, rest, ok := strings.Cut(msg, `for volume "`)
	if !ok {
		return "", "", false
	}
	volume, detail, ok = strings.Cut(rest, `"`)
	if !ok || volume == "" || !strings.Contains(detail, "hostPath type check failed") {
		return "", "", false
	}
	detail = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(detail), ":"))
	if len(detail) > maxRefusal {
		detail = strings.ToValidUTF8(detail[:maxRefusal], "") + "..."
	}
	return volume, detail, true
}

// maxRefusal bounds the kubelet's words quoted in a note.
const maxRefusal = 512

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
