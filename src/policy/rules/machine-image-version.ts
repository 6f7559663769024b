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

// Each check appends to `out`: a profile has hundreds of image versions, most without problems,
// so a field path or a message is only built for a violation.

/** Where a version sits and how messages name it; both texts are built when a violation needs them. */
class VersionAt {
  constructor(
    readonly image: NamespacedMachineImage,
    readonly v: MachineImageVersion,
    private readonly imagePath: string,
    private readonly k: number,
  ) {}

  get path(): string {
    return `${this.imagePath}.versions[${this.k}]`;
  }

  get what(): string {
    return `machine image ${this.image.name} version ${this.v.version}`;
  }
}

function versionString(out: Violation[], at: VersionAt): void {
  const v = at.v;
  if (v.version === '') out.push(violation(`${at.path}.version`, `must provide a version for ${at.what}`));
  else if (!parseVersion(v.version)) {
    out.push(
      violation(
        `${at.path}.version`,
        `could not parse version "${v.version}" of ${at.what}. Use a semantic version. In case there is no semantic version for this image use the extensibility provider (define mapping in the CloudProfile) to map to the actual non semantic version`,
      ),
    );
  }
}

function inPlaceAndKubelet(out: Violation[], at: VersionAt): void {
  const v = at.v;
  const min = v.inPlaceUpdates?.minVersionForUpdate;
  if (min !== undefined && !parseVersion(min)) {
    // Gardener reports this one on a synthetic path; we keep its path so tooling matches.
    out.push(violation(`${at.path}.minVersionForInPlaceUpdate`, `could not parse version "${min}" in inPlaceUpdates.minVersionForUpdate of ${at.what}. Use a semantic version.`));
  }
  const constraint = v.kubeletVersionConstraint;
  if (constraint !== undefined && !isValidVersionConstraint(constraint)) {
    out.push(violation(`${at.path}.kubeletVersionConstraint`, `cannot parse the kubeletVersionConstraint "${constraint}" of ${at.what}: use a semver range such as ">= 1.26" or "< 1.30"`));
  }
}

function architectures(out: Violation[], at: VersionAt, checks: ImageChecks): void {
  const archs = at.v.architectures ?? [];
  for (let a = 0; a < archs.length; a++) {
    const arch = archs[a]!;
    if (!checks.architectures.includes(arch)) {
      out.push(violation(`${at.path}.architectures[${a}]`, `architecture "${arch}" of ${at.what} is not supported: supported values: ${quoted(checks.architectures)}`));
    }
  }
  if (checks.capabilities) return;
  if (checks.architecturesRequired && archs.length === 0) {
    out.push(violation(`${at.path}.architectures`, `must provide at least one architecture for ${at.what}: list the architectures it is built for (${checks.architectures.join(', ')})`));
  }
  if (checks.full && (at.v.capabilityFlavors?.length ?? 0) > 0) {
    out.push(violation(`${at.path}.capabilityFlavors`, `must not provide capabilities without global definition: ${at.what} sets capabilityFlavors, but spec.machineCapabilities is not set`));
  }
}

/** A set of the values seen so far, made only for a list that can hold a duplicate (two entries or more). */
const seenSet = (length: number): Set<string> | undefined => (length > 1 ? new Set<string>() : undefined);

// Field paths as functions of the indexes, called only for a violation: a closure per entry cost
// about 170 bytes per image version on every review (a fifth of what MACHINE-IMAGES allocated).
const criPath = (at: VersionAt, c: number) => `${at.path}.cri[${c}]`;
const runtimePath = (at: VersionAt, c: number, m: number) => `${criPath(at, c)}.containerRuntimes[${m}].type`;

function containerRuntimes(out: Violation[], cri: CRI, c: number, at: VersionAt): void {
  const runtimes = cri.containerRuntimes ?? [];
  const seen = seenSet(runtimes.length);
  for (let m = 0; m < runtimes.length; m++) {
    const cr = runtimes[m]!;
    if (!isUnprefixedQualifiedName(cr.type)) {
      out.push(violation(runtimePath(at, c, m), `container runtime type "${cr.type}" of ${at.what} must be a qualified name (containerRuntimes type: letters, digits, '-', '_' or '.', alphanumeric at both ends, at most 63 characters)`));
    }
    if (seen?.has(cr.type)) out.push(violation(runtimePath(at, c, m), `duplicate value "${cr.type}": ${at.what} lists container runtime type ${cr.type} more than once`));
    seen?.add(cr.type);
  }
}

function criOf(out: Violation[], at: VersionAt, required: boolean): void {
  const cris = at.v.cri ?? [];
  if (cris.length === 0) {
    if (required) out.push(violation(`${at.path}.cri`, `must provide at least one supported container runtime for ${at.what}: set cri to [{name: containerd}]`));
    return;
  }
  const seen = seenSet(cris.length);
  for (let c = 0; c < cris.length; c++) {
    const cri = cris[c]!;
    if (seen?.has(cri.name)) out.push(violation(criPath(at, c), `duplicate value "${cri.name}": ${at.what} lists cri ${cri.name} more than once`));
    seen?.add(cri.name);
    if (cri.name !== 'containerd') {
      out.push(violation(`${criPath(at, c)}.name`, `container runtime interface (cri) "${cri.name}" of ${at.what} is not supported: supported values: "containerd"`));
    }
    if (cri.containerRuntimes !== undefined && cri.containerRuntimes.length > 0) containerRuntimes(out, cri, c, at);
  }
}

/**
 * Appends every problem of version `k` of the image at `imagePath`; `seen` holds the versions of
 * this image name met so far (duplicates).
 */
export function judgeImageVersion(out: Violation[], image: NamespacedMachineImage, v: MachineImageVersion, imagePath: string, k: number, checks: ImageChecks, seen: Set<string>): void {
  const at = new VersionAt(image, v, imagePath, k);
  if (seen.has(v.version)) out.push(violation(at.path, `duplicate value "${image.name}-${v.version}": machine image ${image.name} lists version ${v.version} more than once; keep one entry`));
  seen.add(v.version);
  versionString(out, at);
  inPlaceAndKubelet(out, at);
  architectures(out, at, checks);
  if (checks.full) criOf(out, at, !checks.parentVersions?.has(v.version));
}
