package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

// Dial the kubelet's socket and gather List and GetAllocatableResources. On
// a node, pass "" (or client.DefaultSocket); here a test server plays the
// kubelet.
func Example() {
	srv, err := podresourcestest.StartInDir(podresourcestest.Sample())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	ctx := context.Background()
	c, err := client.Dial(ctx, "unix://"+srv.Socket(), client.WithCallTimeout(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	snap, err := c.Snapshot(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range snap.Pods {
		for _, ctr := range p.Containers {
			fmt.Printf("%s %s: cpus %v (%s)\n", p.Ref(), ctr.Name, ctr.CPUIDs, p.CPUStatus(&ctr))
		}
	}
	fmt.Println("allocatable CPUs:", len(snap.Allocatable.CPUIDs))
	// Output:
	// default/web proxy: cpus [] (none)
	// default/web app: cpus [2 3] (assigned)
	// shop/db postgres: cpus [8 9 10 11] (assigned)
	// kube-system/coredns-7d8f coredns: cpus [] (unknown)
	// allocatable CPUs: 15
}

// Get asks for one pod; the errors wrap sentinels to test with errors.Is.
func ExampleClient_Get() {
	srv, err := podresourcestest.StartInDir(podresourcestest.Sample(), podresourcestest.WithMethodDisabled(podresourcestest.Get))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	ctx := context.Background()
	c, err := client.Dial(ctx, srv.Socket())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, err = c.Get(ctx, "default", "web")
	switch {
	case errors.Is(err, client.ErrUnimplemented):
		fmt.Println("Get is not available: fall back to List")
	case errors.Is(err, client.ErrPodNotFound):
		fmt.Println("no such pod on this node")
	case err != nil:
		fmt.Println(err)
	}
	// Output:
	// Get is not available: fall back to List
}
