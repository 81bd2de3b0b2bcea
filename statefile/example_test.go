package statefile_test

import (
	"fmt"
	"strings"

	"github.com/numascope/numascope/statefile"
	"k8s.io/utils/cpuset"
)

func ExampleDecode() {
	data := []byte(`{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`)
	f, err := statefile.Decode(data, statefile.Options{Name: "cpu_manager_state"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Kind, f.Format, f.Checksum.Matched, f.KubeletAccepts, f.CPU.DefaultCPUSet)
	// Output: cpu v2 v2 true 4-6
}

func ExampleDecode_policyMismatch() {
	data := []byte(`{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`)
	f, err := statefile.Decode(data, statefile.Options{Name: "cpu_manager_state", Policy: "static"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.KubeletAccepts, f.OnReject)
	fmt.Println(f.Reason)
	// Output:
	// false refuses-to-start
	// could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file "cpu_manager_state" before restarting Kubelet
}

func ExampleEncode() {
	f := &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{
		PolicyName:    "static",
		DefaultCPUSet: cpuset.New(0, 1, 4, 5),
		Entries:       map[string]map[string]cpuset.CPUSet{"pod-uid": {"app": cpuset.New(2, 3)}},
	}}
	data, err := statefile.Encode(f, statefile.FormatV4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	// Output: {"policyName":"static","defaultCpuSet":"0-1,4-5","entries":{"pod-uid":{"app":"2-3"}},"checksum":803935215,"data":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,4-5\",\"entries\":{\"pod-uid\":{\"app\":\"2-3\"}}}","dataChecksum":786236808}
}

func ExampleMemoryState_Groups() {
	data := []byte(`{"policyName":"Static","machineState":{
	  "0":{"numberOfAssignments":1,"memoryMap":{"memory":{"total":100,"systemReserved":10,"allocatable":90,"reserved":90,"free":0}},"cells":[0,1]},
	  "1":{"numberOfAssignments":1,"memoryMap":{"memory":{"total":100,"systemReserved":0,"allocatable":100,"reserved":30,"free":70}},"cells":[0,1]}},
	  "checksum":0}`)
	f, err := statefile.Decode(data, statefile.Options{Name: "memory_manager_state"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range f.Memory.Groups() {
		for _, r := range g.Resources {
			fmt.Printf("group %v %s: allocatable %d, reserved %d, free %d\n", g.Nodes, r.Name, r.Sum.Allocatable, r.Sum.Reserved, r.Sum.Free)
		}
	}
	// Output: group [0 1] memory: allocatable 190, reserved 120, free 70
}

// Verify gives the kubelet's restore verdict without decoding the state:
// here a cpu v4 file whose data section was edited after it was written.
func ExampleVerify() {
	data := []byte(`{"policyName":"static","defaultCpuSet":"0-1,4-5","entries":{"pod-uid":{"app":"2-3"}},"checksum":803935215,"data":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,4-5\",\"entries\":{\"pod-uid\":{\"app\":\"2-3\"}}}","dataChecksum":786236808}`)
	for _, d := range [][]byte{data, []byte(strings.Replace(string(data), `\"app\":\"2-3\"`, `\"app\":\"2-4\"`, 1))} {
		v, err := statefile.Verify(d, statefile.Options{Name: "cpu_manager_state", Kind: statefile.KindCPU})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s, checksum valid: %v, kubelet accepts: %v, on reject: %q\n", v.Format, v.Checksum.Valid, v.KubeletAccepts, v.OnReject)
	}
	// Output:
	// v4, checksum valid: true, kubelet accepts: true, on reject: ""
	// v4, checksum valid: false, kubelet accepts: false, on reject: "refuses-to-start"
}

// A problem names an overlong key by its first bytes and its length, in
// its message and its pointer alike; CutToken reads the pointer's token
// back, to find the key it stands for.
func ExampleCutToken() {
	pod := strings.Repeat("a", 100000)
	data := []byte(`{"policyName":"static","defaultCpuSet":"0","entries":{"` + pod + `":{"app":"x"}},"checksum":0}`)
	f, err := statefile.Decode(data, statefile.Options{Name: "cpu_manager_state"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := f.Problems[0]
	fmt.Println(p.Message)
	fmt.Println(p.Path)
	token := strings.Split(p.Path, "/")[2]
	prefix, size, ok := statefile.CutToken(token)
	fmt.Println(ok, size == len(pod) && strings.HasPrefix(pod, prefix))
	// Output:
	// cpu_manager_state: could not parse cpuset "x" for container "app" in pod "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…" (100000 bytes): strconv.Atoi: parsing "x": invalid syntax
	// /entries/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… (100000 bytes)/app
	// true true
}
