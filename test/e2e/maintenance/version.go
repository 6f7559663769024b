package main

import "runtime/debug"

// versions names the modules this binary was built from that decide what it serves.
func versions() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out["go"] = info.GoVersion
	for _, m := range info.Deps {
		switch m.Path {
		case "github.com/gardener/gardener", "github.com/gardener/gardener/pkg/apis", "k8s.io/apiserver", "sigs.k8s.io/controller-runtime":
			out[m.Path] = m.Version
		}
	}
	return out
}
