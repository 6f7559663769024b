#!/usr/bin/env bash
# Builds test/e2e/semver (semver-oracle: Masterminds semver and Gardener's version helpers at the
# versions its go.mod pins) once, into a cache folder keyed by the Masterminds and Gardener versions,
# the Go version and a hash of the program's sources; prints the binary's path.
#   test/e2e/build-semver.sh                 # build if missing, print the path of semver-oracle
set -euo pipefail
src="$(cd "$(dirname "$0")/semver" && pwd)"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build-semver: Go is needed (1.26, /usr/local/go): it builds the Masterminds semver oracle" >&2; exit 2; }

masterminds=$(awk '$1 == "github.com/Masterminds/semver/v3" { print $2; exit }' "$src/go.mod")
gardener=$(awk '$1 == "github.com/gardener/gardener" { print $2; exit }' "$src/go.mod")
hash=$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/semver-${masterminds}_gardener-${gardener}_$(go env GOVERSION)_${hash}"
bin="$dir/semver-oracle"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  start=$SECONDS
  echo "build-semver: building semver-oracle (Masterminds semver ${masterminds}, gardener ${gardener}) …" >&2
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
  echo "build-semver: semver-oracle built in $((SECONDS - start)) s" >&2
fi
echo "$bin"
