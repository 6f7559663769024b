package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/controllermanager/controller/namespacedcloudprofile"
	"github.com/gardener/gardener/pkg/controllermanager/controller/shoot/maintenance"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
)

// world is one scenario's store with Gardener's maintenance reconciler on it.
type world struct {
	// base is the store as gardener-apiserver holds it; the reconciler sees it through client.
	base   client.WithWatch
	client client.Client
	clock  *testclock.FakeClock
	events *recorder
	logs   *logSink
	maint  *maintenance.Reconciler
}

func newWorld(ctx context.Context, sc *scenario, defaultWindow *gardencorev1beta1.MaintenanceTimeWindow) (*world, []string, error) {
	var objects []client.Object
	for _, o := range sc.cloudProfiles {
		objects = append(objects, o.DeepCopy())
	}
	for _, o := range sc.namespaced {
		objects = append(objects, o.DeepCopy())
	}
	for _, o := range sc.shoots {
		s := o.DeepCopy()
		if sc.windowless[client.ObjectKeyFromObject(s).String()] {
			s.Spec.Maintenance.TimeWindow = defaultWindow.DeepCopy()
		}
		// The fake store, like the API server, keeps an object with a deletionTimestamp only while a finalizer holds it.
		if s.DeletionTimestamp != nil && len(s.Finalizers) == 0 {
			s.Finalizers = []string{gardencorev1beta1.GardenerName}
		}
		objects = append(objects, s)
	}
	w := &world{events: &recorder{}, logs: &logSink{}}
	w.base = fake.NewClientBuilder().
		WithScheme(kubernetes.GardenScheme).
		WithObjects(objects...).
		WithStatusSubresource(&gardencorev1beta1.Shoot{}, &gardencorev1beta1.NamespacedCloudProfile{}).
		Build()
	ctx = logf.IntoContext(ctx, w.logs.logger())

	// gardener-controller-manager's NamespacedCloudProfile controller writes the merged profile
	// (status.cloudProfileSpec) that the maintenance reads for a Shoot on a NamespacedCloudProfile.
	ncp := &namespacedcloudprofile.Reconciler{Client: w.base, Recorder: w.events}
	for _, o := range sc.namespaced {
		if _, err := ncp.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)}); err != nil {
			return nil, nil, fmt.Errorf("NamespacedCloudProfile %s/%s: %w", o.Namespace, o.Name, err)
		}
	}

	var notes []string
	for _, o := range sc.shoots {
		shoot := &gardencorev1beta1.Shoot{}
		if err := w.base.Get(ctx, client.ObjectKeyFromObject(o), shoot); err != nil {
			return nil, nil, err
		}
		profile, err := gardenerutils.GetCloudProfile(ctx, w.base, shoot)
		if err != nil {
			notes = append(notes, fmt.Sprintf("Shoot %s/%s: its profile: %v", o.Namespace, o.Name, err))
			continue
		}
		if bad, ok := wholeSeconds(&profile.Spec); !ok {
			return nil, nil, fmt.Errorf("profile of Shoot %s/%s: version %s has an instant that is not a whole second (clock.go needs whole seconds)", o.Namespace, o.Name, bad)
		}
		// The Shoot as it was stored after its creation: the mutator had set the architectures and
		// the created-by annotation (so the reconciler's task annotations have a map to go in).
		defaultWorkerArchitectures(shoot, &profile.Spec)
		metav1.SetMetaDataAnnotation(&shoot.ObjectMeta, v1beta1constants.GardenCreatedBy, "differential-test")
		if errs := staticErrors(shoot, shoot); len(errs) > 0 {
			notes = append(notes, fmt.Sprintf("Shoot %s/%s does not pass Gardener's validation as it is: %v", o.Namespace, o.Name, errs.ToAggregate()))
		}
		if err := w.base.Update(ctx, shoot); err != nil {
			return nil, nil, err
		}
	}

	w.clock = testclock.NewFakeClock(zeroTime)
	reader := shiftingReader{clock: w.clock}
	var shifted client.Client
	shifted = interceptor.NewClient(w.base, interceptor.Funcs{
		Get: reader.get,
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if shoot, ok := obj.(*gardencorev1beta1.Shoot); ok {
				old := &gardencorev1beta1.Shoot{}
				if err := c.Get(ctx, client.ObjectKeyFromObject(shoot), old); err != nil {
					return err
				}
				if err := admitShootUpdate(ctx, shifted, shoot, old); err != nil {
					return err
				}
			}
			return c.Update(ctx, obj, opts...)
		},
	})
	w.client = shifted
	w.maint = &maintenance.Reconciler{Client: shifted, Clock: w.clock, Recorder: w.events}
	return w, notes, nil
}
