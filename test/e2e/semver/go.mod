module github.com/gardener-version-policy/e2e-semver

go 1.26.5

require (
	github.com/Masterminds/semver/v3 v3.5.0
	github.com/gardener/gardener v1.150.0
)

require (
	github.com/go-logr/logr v1.4.4 // indirect
	k8s.io/apimachinery v0.36.4 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
