#!/usr/bin/env bash
# Builds test/e2e/gardener (gardener-envtest: Gardener's own test environment, with the real
# gardener-apiserver of the Gardener release pinned in its go.mod) once, into a cache folder keyed
# by that release, the Go version and a hash of the program's sources; prints the binary's path.
# The binaries it runs (etcd, kube-apiserver, kubectl) come from test/e2e/build-binaries.sh.
#   test/e2e/build-gardener.sh             # build if missing, print the path of gardener-envtest
#   E2E_GARDENER=/some/gardener-envtest …  # the tools take it as given and build nothing
set -euo pipefail
src="$(cd "$(dirname "$0")/gardener" && pwd)"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build-gardener: Go is needed (1.26, /usr/local/go): it builds gardener-apiserver" >&2; exit 2; }

gardener=$(awk '$1 == "github.com/gardener/gardener" { print $2; exit }' "$src/go.mod")
# The sources and the module graph are part of the key: a changed main.go or go.sum builds anew.
hash=$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/gardener-${gardener}_$(go env GOVERSION)_${hash}"
bin="$dir/gardener-envtest"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  start=$SECONDS
  echo "build-gardener: building gardener-envtest (gardener ${gardener}) …" >&2
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
  echo "build-gardener: gardener-envtest built in $((SECONDS - start)) s" >&2
fi
echo "$bin"
