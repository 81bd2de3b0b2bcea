package paste

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithKubectlCommands(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"kubectl command back on its line", "$ kubectl get pods -n telco\nNAME   READY\n", "$ kubectl get pods -n telco\nNAME   READY\n"},
		{"oc behind a root prompt", "x\n[root@h ~]# oc describe pod p -n ns\nName: p", "x\n$ oc describe pod p -n ns\nName: p"},
		{"other commands stay removed", "$ cat /var/lib/kubelet/cpu_manager_state\n{}\n", "\n{}\n"},
		{"no commands", "NAME   READY\n", "NAME   READY\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Normalize([]byte(tc.in))
			assert.Equal(t, tc.want, string(r.WithKubectlCommands()))
		})
	}
}
