package podresourcestest_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

// Serve a snapshot on a unix socket, make the next call fail the way the
// kubelet's rate limit does, and count the calls.
func Example() {
	srv, err := podresourcestest.StartInDir(podresourcestest.Generate(100))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.FailNext(podresourcestest.List, 2, status.Error(codes.ResourceExhausted, "rejected by rate limit"))

	c, err := client.Dial(context.Background(), srv.Socket())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	pods, err := c.List(context.Background())
	fmt.Println(len(pods), err, srv.Calls(podresourcestest.List))
	// Output:
	// 100 <nil> 3
}
