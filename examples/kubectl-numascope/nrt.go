package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/numascope/numascope/internal/nrt"
)

// zoneFree is the free (available) resources of each NUMA zone.
type zoneFree struct {
	policy string
	zones  []zone
}

type zone struct {
	name     string
	cpu, mem string
}

// nrtZones reads an NRT object's zones.
func nrtZones(obj map[string]any) (*zoneFree, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var o nrt.Object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("NodeResourceTopology: %w", err)
	}
	z := &zoneFree{}
	z.policy, _ = o.Attribute("topologyManagerPolicy")
	for _, p := range o.TopologyPolicies {
		if policy, _, ok := nrt.LegacyPolicy(p); ok && z.policy == "" {
			z.policy = policy
		}
	}
	for _, zn := range o.Zones {
		if zn.Type != "" && zn.Type != "Node" {
			continue
		}
		e := zone{name: zn.Name, cpu: "?", mem: "?"}
		for _, r := range zn.Resources {
			q, err := resource.ParseQuantity(string(r.Available))
			if err != nil {
				continue
			}
			switch r.Name {
			case "cpu":
				e.cpu = q.String()
			case "memory":
				e.mem = humanQuantity(q)
			}
		}
		z.zones = append(z.zones, e)
	}
	sort.Slice(z.zones, func(i, j int) bool { return z.zones[i].name < z.zones[j].name })
	return z, nil
}

func (z *zoneFree) summary() string {
	var parts []string
	for _, e := range z.zones {
		parts = append(parts, fmt.Sprintf("%s free cpu %s memory %s", e.name, e.cpu, e.mem))
	}
	s := strings.Join(parts, "; ")
	if z.policy != "" {
		s = "policy " + z.policy + "; " + s
	}
	return s
}

// humanQuantity prints bytes in binary units.
func humanQuantity(q resource.Quantity) string {
	v := q.Value()
	for _, u := range []struct {
		n    int64
		name string
	}{{1 << 40, "Ti"}, {1 << 30, "Gi"}, {1 << 20, "Mi"}, {1 << 10, "Ki"}} {
		if v >= u.n {
			return fmt.Sprintf("%.4g%s", float64(v)/float64(u.n), u.name)
		}
	}
	return fmt.Sprint(v)
}
