package main

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
)

// The reconciler takes "now" from its Clock, a fake one set to the run instant. Gardener's
// classification does not: CurrentLifecycleClassification (pkg/api/core/v1beta1/helper) calls
// time.Now(). So every profile is shifted when it is read: each expirationDate and lifecycle
// startTime moves by (wall clock at the read − fake clock) + shiftBias. A stage then counts as
// started at the wall clock exactly when it had started at the fake instant, as long as
//   - every instant of the scenario and every run instant is a whole second (loadScenario and
//     runInstants keep them so), and
//   - the classification comes less than shiftBias after the read.
//
// Proof: the stage applies when start+shift < wall, i.e. start < fake + (elapsed − shiftBias);
// with 0 ≤ elapsed < shiftBias that lies in (fake − 1 s, fake), and between whole seconds "start <
// fake − ε" is "start < fake". maintainOnce times each reconcile and runs it again, from the
// same state, when one took longer than maxElapsed.
const (
	shiftBias  = 500 * time.Millisecond
	maxElapsed = 400 * time.Millisecond
)

// shiftingReader wraps the store for the reconciler: profiles come out with their dates shifted.
type shiftingReader struct {
	clock *testclock.FakeClock
}

func (s shiftingReader) get(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	shift := time.Since(s.clock.Now()) + shiftBias
	switch o := obj.(type) {
	case *gardencorev1beta1.CloudProfile:
		shiftSpec(&o.Spec, shift)
	case *gardencorev1beta1.NamespacedCloudProfile:
		shiftSpec(&o.Status.CloudProfileSpec, shift)
		if o.Spec.Kubernetes != nil {
			shiftVersions(o.Spec.Kubernetes.Versions, shift)
		}
		for i := range o.Spec.MachineImages {
			shiftImageVersions(o.Spec.MachineImages[i].Versions, shift)
		}
	}
	return nil
}

func shiftSpec(spec *gardencorev1beta1.CloudProfileSpec, shift time.Duration) {
	shiftVersions(spec.Kubernetes.Versions, shift)
	for i := range spec.MachineImages {
		shiftImageVersions(spec.MachineImages[i].Versions, shift)
	}
}

func shiftImageVersions(versions []gardencorev1beta1.MachineImageVersion, shift time.Duration) {
	for i := range versions {
		shiftVersion(&versions[i].ExpirableVersion, shift)
	}
}

func shiftVersions(versions []gardencorev1beta1.ExpirableVersion, shift time.Duration) {
	for i := range versions {
		shiftVersion(&versions[i], shift)
	}
}

func shiftVersion(v *gardencorev1beta1.ExpirableVersion, shift time.Duration) {
	if v.ExpirationDate != nil {
		v.ExpirationDate = &metav1.Time{Time: v.ExpirationDate.Add(shift)}
	}
	for i := range v.Lifecycle {
		// A stage without startTime has always started: it stays so.
		if s := v.Lifecycle[i].StartTime; s != nil {
			v.Lifecycle[i].StartTime = &metav1.Time{Time: s.Add(shift)}
		}
	}
}

// wholeSeconds reports the first instant of a profile that is not a whole second, if any.
func wholeSeconds(spec *gardencorev1beta1.CloudProfileSpec) (string, bool) {
	check := func(v gardencorev1beta1.ExpirableVersion) (string, bool) {
		if v.ExpirationDate != nil && v.ExpirationDate.Nanosecond() != 0 {
			return v.Version, false
		}
		for _, s := range v.Lifecycle {
			if s.StartTime != nil && s.StartTime.Nanosecond() != 0 {
				return v.Version, false
			}
		}
		return "", true
	}
	for _, v := range spec.Kubernetes.Versions {
		if bad, ok := check(v); !ok {
			return bad, false
		}
	}
	for _, image := range spec.MachineImages {
		for _, v := range image.Versions {
			if bad, ok := check(v.ExpirableVersion); !ok {
				return image.Name + " " + bad, false
			}
		}
	}
	return "", true
}
