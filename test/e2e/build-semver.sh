#!/usr/bin/env bash
# Builds test/e2e/semver (semver-oracle: Masterminds semver and Gardener's version helpers at the
# versions its go.mod pins) once, into a cache folder keyed by the Masterminds and Gardener versions,
# the Go version and a hash of the program's sources; prints the binary's path.
#   test/e2e/build-semver.sh                 # build if missing, print the path of semver-oracle
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-build.sh"
src="$here/semver"
go_need build-semver "it builds the Masterminds semver oracle"

masterminds=$(go_mod_version "$src/go.mod" github.com/Masterminds/semver/v3)
gardener=$(go_mod_version "$src/go.mod" github.com/gardener/gardener)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/semver-${masterminds}_gardener-${gardener}_$(go env GOVERSION)_$(go_source_hash "$src")"
go_build_cached build-semver semver-oracle "$dir/semver-oracle" "$src" . "" \
  "Masterminds semver ${masterminds}, gardener ${gardener}"
echo "$dir/semver-oracle"
