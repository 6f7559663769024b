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
# One line when the build starts, one when it is done with the time taken and the modules fetched
# (go's "go: downloading" lines are counted, not printed); a build another process has started is
# waited for (flock), not raced.
if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  exec {lock}>"$dir/.lock"
  if ! flock -n "$lock"; then
    echo "build-gardener: waiting for another process's build of gardener-envtest …" >&2
    flock "$lock"
  fi
fi
if [[ ! -x "$bin" ]]; then
  start=$SECONDS
  echo "build-gardener: building gardener-envtest (gardener ${gardener}; a first build takes tens of minutes, docs/development.md) …" >&2
  log="$dir/.build.log"
  if ! (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" .) 2>"$log"; then
    grep -v '^go: downloading ' "$log" >&2 || true
    echo "build-gardener: building gardener-envtest failed after $((SECONDS - start)) s" >&2
    exit 1
  fi
  fetched=$(grep -c '^go: downloading ' "$log" || true)
  grep -v '^go: downloading ' "$log" >&2 || true
  rm -f "$log"
  mv "$bin.tmp" "$bin"
  echo "build-gardener: gardener-envtest built in $((SECONDS - start)) s (modules downloaded: $fetched)" >&2
fi
echo "$bin"
