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

# build NAME MODULE-DIR PACKAGE [LDFLAGS]: one binary, skipped when the cache has it.
build() {
  local name=$1 dir=$2 pkg=$3 ldflags=${4:-}
  [[ -x "$bin/$name" ]] && return 0
  local start=$SECONDS
  echo "build-binaries: building $name ($pkg) …" >&2
  (cd "$tools/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin/$name.tmp" "$pkg")
  mv "$bin/$name.tmp" "$bin/$name"
  echo "build-binaries: $name built in $((SECONDS - start)) s" >&2
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
