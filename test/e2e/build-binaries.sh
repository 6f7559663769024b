#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kubectl, helm 3 and helm 4 from the Go modules pinned under
# test/e2e/tools/, once, into a cache folder keyed by their versions; prints that bin folder.
# A second run finds the binaries and builds nothing. Needs Go (1.26) and the Go module proxy.
#   test/e2e/build-binaries.sh            # build what is missing, print the bin folder
#   test/e2e/build-binaries.sh helm       # only helm 3 and helm 4 (what npm test's chart tests need)
#   E2E_BIN=/some/bin test/e2e/...        # the suites take E2E_BIN as given and build nothing
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/go-build.sh"
tools="$here/tools"
go_need build-binaries "it builds the real control plane"

# The versions come from the go.mod files, so the cache key cannot drift from what is built.
kube=$(go_mod_version "$tools/kube/go.mod" k8s.io/kubernetes)
etcd=$(go_mod_version "$tools/etcd/go.mod" go.etcd.io/etcd/server/v3)
helm3=$(go_mod_version "$tools/helm3/go.mod" helm.sh/helm/v3)
helm4=$(go_mod_version "$tools/helm4/go.mod" helm.sh/helm/v4)
key="kube-${kube}_etcd-${etcd}_helm-${helm3}-${helm4}_$(go env GOVERSION)"
bin="${XDG_CACHE_HOME:-$HOME/.cache}/version-policy-e2e/${key}/bin"

# build NAME MODULE-DIR PACKAGE [LDFLAGS]: one binary into the bin folder, skipped when it is there.
build() {
  go_build_cached build-binaries "$1" "$bin/$1" "$tools/$2" "$3" "${4:-}" "$3; a first build takes minutes, docs/development.md"
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
