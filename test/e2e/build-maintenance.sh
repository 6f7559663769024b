#!/usr/bin/env bash
# Builds test/e2e/maintenance (gardener-maintenance: Gardener's own Shoot maintenance controller of
# the release pinned in its go.mod, run on a fake client over scenarios) once, into a cache folder
# keyed by that release, the Go version and a hash of the program's sources; prints the binary's
# path. Its module graph is test/e2e/gardener's (the same Gardener, Kubernetes and
# controller-runtime), pruned to what it imports.
#   test/e2e/build-maintenance.sh              # build if missing, print the path
#   E2E_MAINTENANCE=/some/gardener-maintenance # the tools take it as given and build nothing
set -euo pipefail
src="$(cd "$(dirname "$0")/maintenance" && pwd)"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build-maintenance: Go is needed (1.26, /usr/local/go): it builds Gardener's maintenance controller" >&2; exit 2; }

gardener=$(awk '$1 == "github.com/gardener/gardener" { print $2; exit }' "$src/go.mod")
hash=$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/maintenance-${gardener}_$(go env GOVERSION)_${hash}"
bin="$dir/gardener-maintenance"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  start=$SECONDS
  echo "build-maintenance: building gardener-maintenance (gardener ${gardener}) …" >&2
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
  echo "build-maintenance: gardener-maintenance built in $((SECONDS - start)) s" >&2
fi
echo "$bin"
