// MACHINE-IMAGES, one machine image version: its version string, in-place minimum version,
// kubelet constraint, architectures and (CloudProfile-grade only) container runtimes.
import type { Violation } from '../rule.js';
import type { CRI, MachineImageVersion, NamespacedMachineImage } from '../types.js';
import { isValidVersionConstraint } from '../version-constraint.js';
import { parseVersion } from '../versions.js';
import { violationOf } from './version-lists.js';

const violation = violationOf('MACHINE-IMAGES');

export interface ImageChecks {
  /** CloudProfile-grade: at least one version, an updateStrategy and container runtimes required. */
  full: boolean;
  /** At least one architecture required (not on a merged profile: Gardener's merge defaults amd64). */
  architecturesRequired: boolean;
  /** The allowed architectures: amd64 and arm64, or those of spec.machineCapabilities. */
  architectures: readonly string[];
  /** spec.machineCapabilities is set: architectures come from capability flavors instead. */
  capabilities: boolean;
  /**
   * Merged profile: the versions this image has in the stored parent. Gardener stored those (and
   * the image) with its defaults, so a missing cri or updateStrategy there is not the NCP's doing.
   */
  parentVersions?: ReadonlySet<string>;
}

// Kubernetes' qualified name without prefix (IsQualifiedName): what Gardener requires of image
// names and container runtime types.
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export function isUnprefixedQualifiedName(name: string): boolean {
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

// Each check appends to `out`: a profile has hundreds of image versions, most without problems.

function versionString(out: Violation[], v: MachineImageVersion, path: string, what: string): void {
  if (v.version === '') out.push(violation(`${path}.version`, `must provide a version for ${what}`));
  else if (!parseVersion(v.version)) {
    out.push(
      violation(
        `${path}.version`,
        `could not parse version "${v.version}" of ${what}. Use a semantic version. In case there is no semantic version for this image use the extensibility provider (define mapping in the CloudProfile) to map to the actual non semantic version`,
      ),
    );
  }
}

function inPlaceAndKubelet(out: Violation[], v: MachineImageVersion, path: string, what: string): void {
  const min = v.inPlaceUpdates?.minVersionForUpdate;
  if (min !== undefined && !parseVersion(min)) {
    // Gardener reports this one on a synthetic path; we keep its path so tooling matches.
    out.push(violation(`${path}.minVersionForInPlaceUpdate`, `could not parse version "${min}" in inPlaceUpdates.minVersionForUpdate of ${what}. Use a semantic version.`));
  }
  const constraint = v.kubeletVersionConstraint;
  if (constraint !== undefined && !isValidVersionConstraint(constraint)) {
    out.push(violation(`${path}.kubeletVersionConstraint`, `cannot parse the kubeletVersionConstraint "${constraint}" of ${what}: use a semver range such as ">= 1.26" or "< 1.30"`));
  }
}

function architectures(out: Violation[], v: MachineImageVersion, path: string, what: string, checks: ImageChecks): void {
  const archs = v.architectures ?? [];
  archs.forEach((arch, a) => {
    if (!checks.architectures.includes(arch)) {
      out.push(violation(`${path}.architectures[${a}]`, `architecture "${arch}" of ${what} is not supported: supported values: ${quoted(checks.architectures)}`));
    }
  });
  if (checks.capabilities) return;
  if (checks.architecturesRequired && archs.length === 0) {
    out.push(violation(`${path}.architectures`, `must provide at least one architecture for ${what}: list the architectures it is built for (${checks.architectures.join(', ')})`));
  }
  if (checks.full && (v.capabilityFlavors?.length ?? 0) > 0) {
    out.push(violation(`${path}.capabilityFlavors`, `must not provide capabilities without global definition: ${what} sets capabilityFlavors, but spec.machineCapabilities is not set`));
  }
}

function containerRuntimes(out: Violation[], cri: CRI, path: string, what: string): void {
  const seen = new Set<string>();
  (cri.containerRuntimes ?? []).forEach((cr, m) => {
    const field = `${path}.containerRuntimes[${m}].type`;
    if (!isUnprefixedQualifiedName(cr.type)) {
      out.push(violation(field, `container runtime type "${cr.type}" of ${what} must be a qualified name (containerRuntimes type: letters, digits, '-', '_' or '.', alphanumeric at both ends, at most 63 characters)`));
    }
    if (seen.has(cr.type)) out.push(violation(field, `duplicate value "${cr.type}": ${what} lists container runtime type ${cr.type} more than once`));
    seen.add(cr.type);
  });
}

function criOf(out: Violation[], v: MachineImageVersion, path: string, what: string, required: boolean): void {
  const cris = v.cri ?? [];
  if (cris.length === 0) {
    if (required) out.push(violation(`${path}.cri`, `must provide at least one supported container runtime for ${what}: set cri to [{name: containerd}]`));
    return;
  }
  const seen = new Set<string>();
  cris.forEach((cri, c) => {
    const criPath = `${path}.cri[${c}]`;
    if (seen.has(cri.name)) out.push(violation(criPath, `duplicate value "${cri.name}": ${what} lists cri ${cri.name} more than once`));
    seen.add(cri.name);
    if (cri.name !== 'containerd') {
      out.push(violation(`${criPath}.name`, `container runtime interface (cri) "${cri.name}" of ${what} is not supported: supported values: "containerd"`));
    }
    containerRuntimes(out, cri, criPath, what);
  });
}

/** Appends every problem of one version; `seen` holds the versions of this image name met so far (duplicates). */
export function judgeImageVersion(out: Violation[], image: NamespacedMachineImage, v: MachineImageVersion, path: string, checks: ImageChecks, seen: Set<string>): void {
  const what = `machine image ${image.name} version ${v.version}`;
  if (seen.has(v.version)) out.push(violation(path, `duplicate value "${image.name}-${v.version}": machine image ${image.name} lists version ${v.version} more than once; keep one entry`));
  seen.add(v.version);
  versionString(out, v, path, what);
  inPlaceAndKubelet(out, v, path, what);
  architectures(out, v, path, what, checks);
  if (checks.full) criOf(out, v, path, what, !checks.parentVersions?.has(v.version));
}
