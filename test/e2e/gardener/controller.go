package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	controllermanagerconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/controllermanager/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/controllermanager/controller/namespacedcloudprofile"
)

// startNamespacedCloudProfileController runs gardener-controller-manager's own NamespacedCloudProfile
// reconciler (not a copy of it) in this process. It writes status.cloudProfileSpec, the parent
// merged with the NamespacedCloudProfile, which gardener-apiserver validates a Shoot on a
// NamespacedCloudProfile against; without it no such Shoot can be created. Nothing else of
// gardener-controller-manager runs.
func startNamespacedCloudProfileController(ctx context.Context, config *rest.Config) error {
	mgr, err := manager.New(config, manager.Options{
		Scheme:                 kubernetes.GardenScheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return err
	}
	r := &namespacedcloudprofile.Reconciler{Config: controllermanagerconfigv1alpha1.NamespacedCloudProfileControllerConfiguration{ConcurrentSyncs: ptr.To(5)}}
	if err := r.AddToManager(mgr); err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "gardener-envtest: NamespacedCloudProfile controller:", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("caches did not sync")
	}
	return nil
}
