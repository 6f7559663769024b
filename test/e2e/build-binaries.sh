#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kubectl, helm 3 and helm 4 from the Go modules pinned under
# test/e2e/tools/, once, into a cache folder keyed by their versions; prints that bin folder.
# A second run finds the binaries and builds nothing. Needs Go (1.26) and the Go module proxy.
#   test/e2e/build-binaries.sh            # build what is missing, print the bin folder
#   test/e2e/build-binaries.sh helm       # only helm 3 and helm 4 (what npm test's chart tests need)
#   E2E_BIN=/some/bin test/e2e/...        # the suites take E2E_BIN as given and build nothing
set -euo pipefail
tools="$(cd "$(dirname "$0")/tools" && pwd)"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build-binaries: Go is needed (1.26, /usr/local/go): it builds the real control plane" >&2; exit 2; }

# The versions come from the go.mod files, so the cache key cannot drift from what is built.
version_of() { awk -v m="$2" '$1 == m || ($1 == "require" && $2 == m) { print ($1 == "require" ? $3 : $2); exit }' "$tools/$1/go.mod"; }
kube=$(version_of kube k8s.io/kubernetes)
etcd=$(version_of etcd go.etcd.io/etcd/server/v3)
helm3=$(version_of helm3 helm.sh/helm/v3)
helm4=$(version_of helm4 helm.sh/helm/v4)
goversion=$(go env GOVERSION)
key="kube-${kube}_etcd-${etcd}_helm-${helm3}-${helm4}_${goversion}"
bin="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/${key}/bin"
mkdir -p "$bin"

# build NAME MODULE-DIR PACKAGE [LDFLAGS]: one binary, skipped when the cache has it. One line when
# it starts and one when it is done, with the time taken and the modules fetched: go's own
# "go: downloading" lines (hundreds on a first build) are counted, not printed. A build of the same binary that another
# process has started is waited for, not raced (flock on a lock file beside it).
build() {
  local name=$1 dir=$2 pkg=$3 ldflags=${4:-} lock
  [[ -x "$bin/$name" ]] && return 0
  exec {lock}>"$bin/.$name.lock"
  if ! flock -n "$lock"; then
    echo "build-binaries: waiting for another process's build of $name …" >&2
    flock "$lock"
  fi
  if [[ -x "$bin/$name" ]]; then exec {lock}>&-; return 0; fi
  local start=$SECONDS
  echo "build-binaries: building $name ($pkg; a first build takes minutes, docs/development.md) …" >&2
  local log="$bin/.$name.log" fetched
  if ! (cd "$tools/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin/$name.tmp" "$pkg") 2>"$log"; then
    grep -v '^go: downloading ' "$log" >&2 || true
    echo "build-binaries: building $name failed after $((SECONDS - start)) s" >&2
    exit 1
  fi
  fetched=$(grep -c '^go: downloading ' "$log" || true)
  grep -v '^go: downloading ' "$log" >&2 || true
  rm -f "$log"
  mv "$bin/$name.tmp" "$bin/$name"
  echo "build-binaries: $name built in $((SECONDS - start)) s (modules downloaded: $fetched)" >&2
  exec {lock}>&-
}

# Without these the binaries report v0.0.0-master, and kubectl warns of version skew.
minor=${kube#v1.}; minor=${minor%%.*}
kver="-X k8s.io/component-base/version.gitVersion=${kube} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor}"
kver+=" -X k8s.io/client-go/pkg/version.gitVersion=${kube} -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=${minor}"

if [[ "${1:-all}" != helm ]]; then
  build etcd etcd ./cmd/etcd
  build kube-apiserver kube k8s.io/kubernetes/cmd/kube-apiserver "$kver"
  build kubectl kube k8s.io/kubernetes/cmd/kubectl "$kver"
fi
build helm3 helm3 helm.sh/helm/v3/cmd/helm "-X helm.sh/helm/v3/internal/version.version=${helm3}"
build helm4 helm4 helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=${helm4}"
echo "$bin"
