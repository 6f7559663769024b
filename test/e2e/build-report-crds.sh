#!/usr/bin/env bash
# Fetches the OpenReports CRDs (openreports.io/v1alpha1 Report and ClusterReport, docs/reports.md)
# from the published Go module github.com/openreports/reports-api at the version pinned here, once,
# into a cache folder keyed by that version; prints the folder holding the CRD files. The module's
# checksum is pinned too: the go command checks it against the checksum database, and this script
# against the sum below, so a changed release cannot slip in. Nothing of it is committed.
#   test/e2e/build-report-crds.sh        # fetch if missing, print the CRD folder
set -euo pipefail
module=github.com/openreports/reports-api
# v0.2.1 is the first release on the module proxy, and carries config/crd/.
version=v0.2.1
sum='h1:g9KS3yle9Y1elmww4TK9EkD1rl6inIaiIJPX6e+u680='
files=(openreports.io_reports.yaml openreports.io_clusterreports.yaml)
export PATH="/usr/local/go/bin:$PATH"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/openreports-reports-api-${version}/crd"
have() { for f in "${files[@]}"; do [[ -s "$dir/$f" ]] || return 1; done; }
if ! have; then
  command -v go >/dev/null || { echo "build-report-crds: Go is needed (1.26, /usr/local/go): it fetches $module" >&2; exit 2; }
  mkdir -p "$dir"
  exec {lock}>"$dir/.lock"
  flock "$lock"
  if ! have; then
    # Outside any module, so no go.mod of this repository is read or changed.
    empty=$(mktemp -d)
    trap 'rm -rf "$empty"' EXIT
    info=$(cd "$empty" && GOFLAGS=-mod=mod go mod download -json "$module@$version")
    got=$(sed -nE 's/^\s*"Sum": "(.*)",?$/\1/p' <<<"$info")
    src=$(sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p' <<<"$info")
    [[ "$got" == "$sum" ]] || { echo "build-report-crds: $module@$version has sum ${got:-none}, expected $sum" >&2; exit 1; }
    for f in "${files[@]}"; do
      cp "$src/config/crd/$f" "$dir/$f.tmp"
      chmod 644 "$dir/$f.tmp"
      mv "$dir/$f.tmp" "$dir/$f"
    done
    echo "build-report-crds: $module@$version CRDs cached in $dir" >&2
  fi
fi
echo "$dir"
