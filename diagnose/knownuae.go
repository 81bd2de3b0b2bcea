package diagnose

import (
	"fmt"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

const deleteFailed = "Then delete the failed pod so its controller recreates it (a pod rejected at admission is never retried)."

// unexpectedAdmission explains an UnexpectedAdmissionError by the inner
// error it wraps: each manager fails for its own reasons and needs its own remedy.
func (d *diagnosis) unexpectedAdmission(r *rejection) {
	in := evidence.ParseAllocationError(r.message)
	f := Finding{Severity: statefile.SeverityError, Pod: r.pod, Evidence: r.refs, inner: r.message}
	prefix := fmt.Sprintf("Pod %s was rejected with UnexpectedAdmissionError: ", r.pod)
	admitted := "The Topology Manager admitted the pod, then the resource managers allocated for it; "
	switch in.Kind {
	case evidence.AllocCPUs:
		f.Code = CodeUnexpectedAdmission
		req, avail := in.Requested, in.Available
		if req != "" {
			f.Title = prefix + fmt.Sprintf("not enough free CPUs for exclusive use (requested %s, available %s)", req, avail)
		} else {
			f.Title = prefix + "not enough free CPUs for exclusive use"
		}
		var b strings.Builder
		b.WriteString(admitted + "the static CPU manager found fewer CPUs in its shared pool than the container asked for exclusively")
		if req != "" {
			fmt.Fprintf(&b, " (%s requested, %s available)", req, avail)
		}
		b.WriteString(". The scheduler counts CPU requests of the pods it knows; the CPU manager counts CPUs actually free: reserved CPUs, CPUs still assigned to " +
			"finished init containers that no app container reused, and CPUs of completed pods (finished Job pods) that were not deleted are not free for it, so the node looks roomier to the scheduler than it is.")
		for _, n := range d.heldNotes() {
			b.WriteString(" " + n)
		}
		f.Explanation = b.String()
		f.Remedy = "Find who holds the exclusive CPUs (cpu_manager_state entries, or `kubectl get pods -A --field-selector spec.nodeName=NODE,status.phase=Succeeded`): delete completed pods that still hold them " +
			"(for Jobs set ttlSecondsAfterFinished), give init containers the same integer CPU request as the largest app container so their CPUs are reused, and keep reservedSystemCPUs in mind when sizing pods. " + deleteFailed
	case evidence.AllocMemoryExtend:
		f.Code = CodeMemoryGroupExtension
		f.Title = prefix + "the memory manager could not extend its NUMA hint"
		f.Explanation = "The Topology Manager admitted the container with a NUMA hint, but the memory on those NUMA nodes was not free, so the static " +
			"memory manager tried to widen the hint to a larger set of NUMA nodes (a NUMA group). It found none: a NUMA node can belong either to " +
			"single-node allocations or to one multi-node group, never both, and every wider set it could use crosses a node that already holds a " +
			"single-NUMA allocation (or belongs to a different group). The kubelet reports this as UnexpectedAdmissionError, not TopologyAffinityError."
		f.Remedy = "Keep pods that need memory from several NUMA nodes apart from single-NUMA pods: run them on dedicated nodes, or start them before the single-NUMA pods; " +
			"or reduce the request so it fits on one NUMA node. Delete the failed pod so its controller recreates it."
	case evidence.AllocMemoryDefault, evidence.AllocMemoryExtended, evidence.AllocMemoryNoAffinity:
		f.Code = CodeUnexpectedAdmission
		f.Title = prefix + "no NUMA node or NUMA group has enough free memory for it"
		var b strings.Builder
		b.WriteString(admitted + "the static memory manager then looked for NUMA nodes with enough free memory and hugepages for the container and found none (")
		b.WriteString(strings.TrimPrefix(in.Text, "[memorymanager] ") + "). ")
		if h := d.emptyMemoryHints(r); h != nil {
			f.Evidence = append(f.Evidence, *h)
			b.WriteString("Its hints already said so: the Static policy answered hints={} for this Guaranteed pod, which means no NUMA node or set of NUMA nodes can hold the request; " +
				"the Topology Manager merges an empty answer as if the memory could go anywhere and admits, so the failure surfaces only at allocation. ")
		}
		b.WriteString("Free memory per NUMA node is its allocatable memory (capacity minus reservedMemory) minus what other Guaranteed containers hold; a node in a multi-NUMA group is usable only with its whole group.")
		f.Explanation = b.String()
		f.Remedy = "Compare the request with the free memory per NUMA node in memory_manager_state (`inspect memory_manager_state`): delete pods that hold memory there, " +
			"lower the request, or raise the allocatable memory (reservedMemory, systemReserved, hugepages) so one NUMA node or group can hold it. " + deleteFailed
	case evidence.AllocMemoryViolates:
		f.Code = CodeMemoryGroupExtension
		f.Title = prefix + "the chosen NUMA hint would mix single-NUMA and multi-NUMA memory allocations"
		f.Explanation = admitted + "the static memory manager refused the merged hint because it covers NUMA nodes that already hold single-NUMA allocations together with others " +
			"(or part of an existing group): a NUMA node holds either single-node allocations or belongs to one group, never both. Kubelets that check this (from 1.32) " +
			"fail the allocation instead of admitting a placement that breaks the rule. Under best-effort the CPU or device hints can pull the merge onto such nodes even when another NUMA node would hold the memory."
		f.Remedy = "Keep multi-NUMA memory pods and single-NUMA pods on different nodes, or size the request so it fits on one NUMA node; with topologyManagerPolicy restricted or single-numa-node the " +
			"memory manager's preference is enforced at admission instead. " + deleteFailed
	case evidence.AllocDevicesShort, evidence.AllocDeviceUnregister, evidence.AllocDeviceEndpoint:
		f.Code = CodeDevicesUnavailable
		res := words.Or(in.Resource, "the device resource")
		switch in.Kind {
		case evidence.AllocDevicesShort:
			req, avail := words.Or(in.Requested, "?"), words.Or(in.Available, "?")
			f.Title = prefix + fmt.Sprintf("%s devices unavailable (requested %s, available %s)", res, req, avail)
			f.Explanation = fmt.Sprintf("The device manager had %s healthy, unallocated %s devices when the pod was admitted, but the pod needs %s. "+
				"When this happens right after a node or kubelet restart, the device plugin had not registered again yet: the kubelet admits the pods "+
				"that were already bound to the node before the plugin reports its devices. It also happens when "+
				"init containers and app containers both ask for devices and the devices are not given back in time.", avail, res, req)
		case evidence.AllocDeviceUnregister:
			f.Title = prefix + fmt.Sprintf("%s is not registered with the device manager", res)
			f.Explanation = fmt.Sprintf("The pod asks for %s, but no device plugin has registered that resource with this kubelet: the plugin is not running, "+
				"has not registered yet after a kubelet or node restart, or registers another resource name. The pod reached this node because the scheduler saw the "+
				"resource in the node's status; the kubelet's device manager does not know it now.", res)
		default:
			f.Title = prefix + fmt.Sprintf("the %s device plugin is not connected", res)
			f.Explanation = fmt.Sprintf("The device manager knows %s from its checkpoint, but the plugin's endpoint is not connected: after a kubelet restart the "+
				"resource is restored as registered before the plugin registers again, and pods admitted in that window fail. "+
				"This is a start-up race, not a shortage of devices.", res)
		}
		f.Remedy = fmt.Sprintf("Check that the %s device plugin is running and registered (kubelet log \"Device plugin connected\" or \"Registered endpoint\"), then delete the failed pod so its controller "+
			"recreates it. To avoid it after restarts, start the device plugin early (priority class, no image pull on boot).", res)
	case evidence.AllocDeviceUnhealthy:
		f.Code = CodeUnexpectedAdmission
		res := words.Or(in.Resource, "the device resource")
		if in.Detail == "previously allocated devices are no longer healthy" {
			f.Title = prefix + fmt.Sprintf("the %s devices it was given are no longer healthy", res)
			f.Explanation = fmt.Sprintf("The device manager re-admitted the pod with the %s devices recorded for it in its checkpoint, but the device plugin now reports "+
				"them unhealthy, so the kubelet refuses to start the pod on them. A device that turns unhealthy is hardware or the plugin (a GPU fallen off the bus, an "+
				"ECC or XID error, a driver reset), not a scheduling or NUMA problem: moving pods around will not bring it back.", res)
		} else {
			f.Title = prefix + fmt.Sprintf("no healthy %s devices present", res)
			f.Explanation = fmt.Sprintf("The device manager has %s registered but the plugin reports no healthy device. Right after a node reboot or kubelet restart the "+
				"resource is restored from the checkpoint before the plugin reports its devices, so pods already bound to the node fail this way; "+
				"otherwise the devices themselves are unhealthy, which is hardware or the plugin, not scheduling.", res)
		}
		f.Remedy = fmt.Sprintf("Check the devices and the plugin on the node (the plugin's logs; for GPUs `nvidia-smi` and `dmesg` for XID errors); cordon the node while %s is unhealthy "+
			"and repair or reset the device. If it was only the restart window, wait for the plugin to report healthy devices. "+deleteFailed, res)
	case evidence.AllocDevicePluginRPC:
		f.Code = CodeUnexpectedAdmission
		// devicemanager's callGetPreferredAllocationIfAvailable wraps the
		// error as "device plugin GetPreferredAllocation rpc failed with err".
		call, asked := "Allocate", "to allocate devices"
		if strings.Contains(r.message, "GetPreferredAllocation rpc failed") {
			call, asked = "GetPreferredAllocation", "which devices it prefers"
		}
		f.Title = prefix + fmt.Sprintf("the device plugin's %s call failed (%s)", call, words.Or(in.Code, "rpc error"))
		f.Explanation = fmt.Sprintf("The device manager asked the device plugin "+asked+" and the plugin answered with a gRPC error: %s. "+
			"The plugin itself refused or failed (a lost or unhealthy device, a driver problem, a plugin bug or crash); the kubelet passes the error on unchanged. "+
			"This is the device or its plugin, not scheduling or NUMA alignment.", strings.TrimSpace(words.Or(in.Desc, in.Text)))
		f.Remedy = "Read the device plugin's logs around the rejection and check the device's health on the node; restart or fix the plugin, cordon the node if a device is lost. " + deleteFailed
	case evidence.AllocDeviceRequestDiff:
		f.Code = CodeUnexpectedAdmission
		f.Title = prefix + "a container changed its device request"
		f.Explanation = fmt.Sprintf("The device manager's checkpoint records a different device count for container %q of this pod (%s from %s to %s): the pod spec "+
			"was changed under the same pod UID, which the device manager cannot reconcile.", words.Or(in.Container, "?"), words.Or(in.Resource, "?"), words.Or(in.From, "?"), words.Or(in.To, "?"))
		f.Remedy = "Delete the pod and create it again (a new UID); do not edit device requests of a running pod."
	default:
		f.Code = CodeUnexpectedAdmission
		f.Title = prefix[:len(prefix)-2]
		if strings.TrimSpace(r.message) == "" {
			f.Explanation = "The pod was rejected with UnexpectedAdmissionError, but the evidence does not carry the message, and the message carries the cause: the error of the CPU, memory or device manager it wraps."
			f.Remedy = "Add the pod's status message (`kubectl get pod -o yaml`, or `kubectl describe pod`) or the kubelet log around the rejection and run the diagnosis again."
		} else {
			f.Explanation = "A resource manager failed to allocate for the pod after the Topology Manager admitted it: " + r.message +
				". The kubelet wraps any allocation error that is not an admission error of its own in UnexpectedAdmissionError."
			f.Remedy = "Read the wrapped error: it names the manager (cpumanager, memorymanager, device plugin) and what was short. Free the resource or fix the request, then delete the failed pod."
		}
	}
	f.Cause = in.Kind
	d.add(f)
}

// emptyMemoryHints returns the log line where the memory manager answered
// hints={} for the rejected pod, if the log has one.
func (d *diagnosis) emptyMemoryHints(r *rejection) *Ref {
	if r.attempt == nil || r.log == nil {
		return nil
	}
	for _, c := range r.attempt.Containers {
		for _, p := range c.Providers {
			if p.Provider == "memory" && p.EmptyMap {
				return &Ref{File: r.log.Name, Line: p.Line, Quote: "TopologyHints (memory) hints={}"}
			}
		}
	}
	return nil
}
