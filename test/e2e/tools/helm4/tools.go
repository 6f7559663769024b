//go:build tools

// Package tools pins the helm command that build-binaries.sh builds from this module.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
