package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster is a running etcd and kube-apiserver.
type Cluster struct {
	Env *envtest.Environment
	// Config and Client are the cluster administrator's (system:masters).
	Config *rest.Config
	Client kubernetes.Interface
	// Kubeconfig is a kubeconfig file for the administrator.
	Kubeconfig string
}

// Options tune Start.
type Options struct {
	// CRDDirs are directories of CustomResourceDefinition manifests to install.
	CRDDirs []string
}

// Start starts etcd and kube-apiserver for t (inside InNetns, so that the
// API server can reach the fake kubelets) and stops them when t ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	env := &envtest.Environment{
		BinaryAssetsDirectory:    Assets(t),
		CRDDirectoryPaths:        o.CRDDirs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	begin := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting etcd and kube-apiserver: %v", err)
	}
	t.Logf("etcd and kube-apiserver %s started in %s", KubernetesVersion, time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	c := &Cluster{Env: env, Config: cfg}
	if c.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	c.Kubeconfig = filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// UserKubeconfig provisions a user (a client certificate with that name and
// groups) and writes a kubeconfig for it; the user has no permission until
// bound to a role.
func (c *Cluster) UserKubeconfig(t testing.TB, name string, groups ...string) string {
	t.Helper()
	u, err := c.Env.AddUser(envtest.User{Name: name, Groups: groups}, c.Config)
	if err != nil {
		t.Fatalf("adding user %s: %v", name, err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TokenKubeconfig creates the service account namespace/name (and its
// namespace, when missing), asks the API server for a token of it
// (TokenRequest, valid an hour) and writes a kubeconfig that authenticates
// with that bearer token, as CI systems and cloud providers' credentials
// do. The account has no permission until bound to a role; its user name is
// system:serviceaccount:NAMESPACE:NAME.
func (c *Cluster) TokenKubeconfig(t testing.TB, namespace, name string) string {
	t.Helper()
	ctx := context.Background()
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", namespace, err)
	}
	_, err = c.Client.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating service account %s/%s: %v", namespace, name, err)
	}
	hour := int64(3600)
	tr, err := c.Client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &hour}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s/%s: %v", namespace, name, err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.Config.CAData}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: name, Namespace: "default"}
	kc.CurrentContext = name
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Node describes a Node object to register.
type Node struct {
	Name   string
	Labels map[string]string
	// Port is the kubelet's port on KubeletIP (Kubelet.Port).
	Port int
	// Capacity and Allocatable, e.g. {"cpu": "48", "memory": "256Gi"}.
	Capacity, Allocatable map[string]string
}

// AddNode creates the Node and sets its status (addresses, kubelet port,
// capacity, allocatable, Ready) as a kubelet would.
func (c *Cluster) AddNode(ctx context.Context, n Node) (*corev1.Node, error) {
	obj, err := c.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	obj.Status = corev1.NodeStatus{
		// No Hostname address: the API server prefers it to InternalIP and
		// would look the name up in a namespace that has no DNS.
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: KubeletIP}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(n.Port)}},
		Capacity:        resources(n.Capacity),
		Allocatable:     resources(n.Allocatable),
		Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
		NodeInfo:        corev1.NodeSystemInfo{KubeletVersion: KubernetesVersion, OperatingSystem: "linux", Architecture: "amd64"},
	}
	return c.Client.CoreV1().Nodes().UpdateStatus(ctx, obj, metav1.UpdateOptions{})
}

func resources(m map[string]string) corev1.ResourceList {
	if m == nil {
		return nil
	}
	l := corev1.ResourceList{}
	for k, v := range m {
		l[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return l
}
