#!/usr/bin/env bash
# Builds test/e2e/maintenance (gardener-maintenance: Gardener's own Shoot maintenance controller of
# the release pinned in its go.mod, run on a fake client over scenarios) once, into a cache folder
# keyed by that release, the Go version and a hash of the program's sources; prints the binary's
# path. Its module graph is test/e2e/gardener's (the same Gardener, Kubernetes and
# controller-runtime), pruned to what it imports.
#   test/e2e/build-maintenance.sh              # build if missing, print the path
#   E2E_MAINTENANCE=/some/gardener-maintenance # the tools take it as given and build nothing
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-build.sh"
src="$here/maintenance"
go_need build-maintenance "it builds Gardener's maintenance controller"

gardener=$(go_mod_version "$src/go.mod" github.com/gardener/gardener)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/maintenance-${gardener}_$(go env GOVERSION)_$(go_source_hash "$src")"
go_build_cached build-maintenance gardener-maintenance "$dir/gardener-maintenance" "$src" . "" \
  "gardener ${gardener}; a first build takes minutes"
echo "$dir/gardener-maintenance"
