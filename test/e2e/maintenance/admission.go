package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardenerapi "github.com/gardener/gardener/pkg/api"
	"github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	"github.com/gardener/gardener/pkg/api/core/validation"
	"github.com/gardener/gardener/pkg/apis/core"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
	versionutils "github.com/gardener/gardener/pkg/utils/version"
)

// admitShootUpdate stands for gardener-apiserver on a Shoot UPDATE, the maintenance's dry run
// included: Gardener's own static validation (ValidateShootUpdate, exported), and an emulation of
// the two checks of the ShootValidator admission plugin that a maintenance step can fail
// (plugin/pkg/shoot/validator/admission.go, unexported): the machine image of each pool, and its
// kubelet version constraint. The profile is read as the reconciler reads it (dates shifted, so the
// classification helpers judge at the fake clock). Errors the old Shoot already has are not the
// update's: loadScenario's check makes sure there are none.
func admitShootUpdate(ctx context.Context, profiles client.Reader, newShoot, oldShoot *gardencorev1beta1.Shoot) error {
	errs := staticErrors(newShoot, oldShoot)
	profile, err := gardenerutils.GetCloudProfile(ctx, profiles, newShoot)
	if err != nil {
		return err
	}
	errs = append(errs, validatorErrors(&profile.Spec, newShoot, oldShoot)...)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: gardencorev1beta1.SchemeGroupVersion.Group, Kind: "Shoot"}, newShoot.Name, errs)
}

// staticErrors is ValidateShootUpdate on Gardener's internal types, as gardener-apiserver runs it.
func staticErrors(newShoot, oldShoot *gardencorev1beta1.Shoot) field.ErrorList {
	newCore, oldCore := &core.Shoot{}, &core.Shoot{}
	if err := gardenerapi.Scheme.Convert(newShoot, newCore, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if err := gardenerapi.Scheme.Convert(oldShoot, oldCore, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return validation.ValidateShootUpdate(newCore, oldCore)
}

// validatorErrors emulates, per worker pool, ValidateShoot.validateMachineImage (the image version is
// in the profile, built for the pool's architecture, active, or expired but no downgrade for an
// existing pool, and in-place updatable from the old version for in-place pools) and
// validateKubeletVersion (the version's kubeletVersionConstraint accepts the pool's kubelet). The
// messages carry Gardener's wording.
func validatorErrors(profile *gardencorev1beta1.CloudProfileSpec, newShoot, oldShoot *gardencorev1beta1.Shoot) field.ErrorList {
	var errs field.ErrorList
	controlPlane, err := semver.NewVersion(newShoot.Spec.Kubernetes.Version)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "kubernetes", "version"), newShoot.Spec.Kubernetes.Version, err.Error())}
	}
	for i, worker := range newShoot.Spec.Provider.Workers {
		path := field.NewPath("spec", "provider", "workers").Index(i)
		old, isNew := oldWorker(oldShoot, worker.Name)
		if e := imageError(profile, path, worker, old, isNew); e != nil {
			errs = append(errs, e)
			continue
		}
		kubelet, err := helper.CalculateEffectiveKubernetesVersion(controlPlane, worker.Kubernetes)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("kubernetes", "version"), worker.Kubernetes.Version, "cannot determine effective Kubernetes version for worker pool"))
			continue
		}
		if e := kubeletError(profile, path, worker, kubelet); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

func oldWorker(shoot *gardencorev1beta1.Shoot, name string) (gardencorev1beta1.Worker, bool) {
	for _, w := range shoot.Spec.Provider.Workers {
		if w.Name == name {
			return w, false
		}
	}
	return gardencorev1beta1.Worker{Machine: gardencorev1beta1.Machine{Image: &gardencorev1beta1.ShootMachineImage{}}}, true
}

func imageError(profile *gardencorev1beta1.CloudProfileSpec, path *field.Path, worker, old gardencorev1beta1.Worker, isNew bool) *field.Error {
	image := worker.Machine.Image
	// Unchanged image and architecture: nothing to judge.
	if apiequality.Semantic.DeepEqual(image, old.Machine.Image) && ptr.Equal(worker.Machine.Architecture, old.Machine.Architecture) {
		return nil
	}
	if image == nil || image.Version == nil {
		return field.Required(path.Child("machine", "image", "version"), "must be set")
	}
	inPlace := helper.IsUpdateStrategyInPlace(worker.UpdateStrategy)
	var version *gardencorev1beta1.MachineImageVersion
	for _, mi := range profile.MachineImages {
		if mi.Name != image.Name {
			continue
		}
		for j := range mi.Versions {
			if mi.Versions[j].Version == *image.Version {
				version = &mi.Versions[j]
			}
		}
	}
	if version == nil {
		return field.NotSupported(path.Child("machine", "image", "version"), *image.Version, []string{})
	}
	active := helper.VersionIsActive(version.ExpirableVersion)
	if !active && !isNew && helper.VersionIsExpired(version.ExpirableVersion) && old.Machine.Image != nil && old.Machine.Image.Version != nil {
		// Updating an existing pool onto a higher expired version is allowed: maintenance needs it.
		downgrade, _ := versionutils.CompareVersions(version.Version, "<", *old.Machine.Image.Version)
		active = !downgrade
	}
	arch := ptr.Deref(worker.Machine.Architecture, v1beta1constants.ArchitectureAMD64)
	archOK := slices.Contains(helper.GetArchitecturesFromImageVersion(*version, profile.MachineCapabilities), arch)
	inPlaceOK := true
	if inPlace {
		inPlaceOK = false
		if u := version.InPlaceUpdates; u != nil && u.Supported {
			if isNew {
				inPlaceOK = true
			} else if u.MinVersionForUpdate != nil && old.Machine.Image != nil && old.Machine.Image.Version != nil {
				inPlaceOK, _ = versionutils.CompareVersions(*u.MinVersionForUpdate, "<=", *old.Machine.Image.Version)
			}
		}
	}
	if archOK && active && inPlaceOK {
		return nil
	}
	detail := fmt.Sprintf("machine image version '%s:%s' ", image.Name, *image.Version)
	if !archOK {
		detail += fmt.Sprintf("does not support CPU architecture %q, ", arch)
	}
	if !active {
		detail += "is expired, "
	}
	if !inPlaceOK {
		detail += "cannot be in-place updated from the current version, "
	}
	return field.Invalid(path.Child("machine", "image"), image, detail+"supported machine image versions are: (not listed here)")
}

func kubeletError(profile *gardencorev1beta1.CloudProfileSpec, path *field.Path, worker gardencorev1beta1.Worker, kubelet *semver.Version) *field.Error {
	image := worker.Machine.Image
	if image == nil || image.Version == nil {
		return nil
	}
	version, ok := helper.FindMachineImageVersion(profile.MachineImages, image.Name, *image.Version)
	if !ok || version.KubeletVersionConstraint == nil {
		return nil
	}
	constraint, err := semver.NewConstraint(*version.KubeletVersionConstraint)
	if err != nil || constraint.Check(kubelet) {
		return nil
	}
	return field.Invalid(path.Child("machine", "image"), image, fmt.Sprintf("machine image '%s@%s' does not support kubelet version '%s', supported kubelet versions by this machine image version: '%+v'", image.Name, *image.Version, kubelet, *version.KubeletVersionConstraint))
}

// defaultWorkerArchitectures emulates the ShootMutator admission plugin's architecture default
// (plugin/pkg/shoot/mutator/admission.go, unexported), which runs when a Shoot is created: a pool
// without machine.architecture gets its machine type's (the single architecture value of its
// capabilities, else its architecture field), else amd64. The maintenance's image filter reads it.
func defaultWorkerArchitectures(shoot *gardencorev1beta1.Shoot, profile *gardencorev1beta1.CloudProfileSpec) {
	for i, worker := range shoot.Spec.Provider.Workers {
		if worker.Machine.Architecture != nil {
			continue
		}
		arch := v1beta1constants.ArchitectureAMD64
		if machineType := helper.FindMachineTypeByName(profile.MachineTypes, worker.Machine.Type); machineType != nil {
			if inferred := machineType.GetArchitecture(profile.MachineCapabilities); inferred != "" {
				arch = inferred
			}
		}
		shoot.Spec.Provider.Workers[i].Machine.Architecture = &arch
	}
}
