#!/usr/bin/env bash
# Builds test/e2e/gardener (gardener-envtest: Gardener's own test environment, with the real
# gardener-apiserver of the Gardener release pinned in its go.mod) once, into a cache folder keyed
# by that release, the Go version and a hash of the program's sources; prints the binary's path.
# The binaries it runs (etcd, kube-apiserver, kubectl) come from test/e2e/build-binaries.sh.
#   test/e2e/build-gardener.sh             # build if missing, print the path of gardener-envtest
#   E2E_GARDENER=/some/gardener-envtest …  # the tools take it as given and build nothing
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-build.sh"
src="$here/gardener"
go_need build-gardener "it builds gardener-apiserver"

gardener=$(go_mod_version "$src/go.mod" github.com/gardener/gardener)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/gardener-${gardener}_$(go env GOVERSION)_$(go_source_hash "$src")"
go_build_cached build-gardener gardener-envtest "$dir/gardener-envtest" "$src" . "" \
  "gardener ${gardener}; a first build takes tens of minutes, docs/development.md"
echo "$dir/gardener-envtest"
