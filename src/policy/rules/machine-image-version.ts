// MACHINE-IMAGES, one machine image version: its version string, in-place minimum version,
// kubelet constraint, architectures and (CloudProfile-grade only) container runtimes.
import {
  duplicate,
  type FieldPath,
  type FieldViolation,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../../api/field.js';
import type { CRI, MachineImageVersion, NamespacedMachineImage } from '../../api/types.js';
import { parseConstraint, parseVersion } from '../../gardener/versions.js';

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

// Each check returns NONE for a clean version: a profile has hundreds of image versions, most
// without problems, so an array, a field path or a message is only built for a violation.
const NONE: readonly FieldViolation[] = [];

/** Where a version sits and how messages name it; both texts are built when a violation needs them. */
export class VersionAt {
  constructor(
    readonly image: NamespacedMachineImage,
    readonly v: MachineImageVersion,
    private readonly imagePath: () => FieldPath,
    private readonly k: number,
  ) {}

  get path(): FieldPath {
    return this.imagePath().child('versions').index(this.k);
  }

  get what(): string {
    return `machine image ${this.image.name} version ${this.v.version}`;
  }
}

function versionString(at: VersionAt): readonly FieldViolation[] {
  const v = at.v;
  if (v.version === '') return [required(at.path.child('version'), `must provide a version for ${at.what}`)];
  if (parseVersion(v.version)) return NONE;
  return [
    invalid(
      at.path.child('version'),
      `could not parse version "${v.version}" of ${at.what}. Use a semantic version. In case there is no semantic version for this image use the extensibility provider (define mapping in the CloudProfile) to map to the actual non semantic version`,
    ),
  ];
}

function inPlaceAndKubelet(at: VersionAt): readonly FieldViolation[] {
  const v = at.v;
  let out: FieldViolation[] | undefined;
  const min = v.inPlaceUpdates?.minVersionForUpdate;
  if (min !== undefined && !parseVersion(min)) {
    // Gardener reports this one on a synthetic path; we keep its path so tooling matches.
    (out ??= []).push(
      invalid(
        at.path.child('minVersionForInPlaceUpdate'),
        `could not parse version "${min}" in inPlaceUpdates.minVersionForUpdate of ${at.what}. Use a semantic version.`,
      ),
    );
  }
  const constraint = v.kubeletVersionConstraint;
  const parsed = constraint === undefined ? undefined : parseConstraint(constraint);
  if (typeof parsed === 'string') {
    (out ??= []).push(
      invalid(
        at.path.child('kubeletVersionConstraint'),
        `cannot parse the kubeletVersionConstraint "${constraint}" of ${at.what}: ${parsed}; use a constraint such as ">= 1.26" or ">= 1.26, < 1.30"`,
      ),
    );
  }
  return out ?? NONE;
}

function architectures(at: VersionAt, checks: ImageChecks): readonly FieldViolation[] {
  let out: FieldViolation[] | undefined;
  const archs = at.v.architectures ?? [];
  for (let a = 0; a < archs.length; a++) {
    const arch = archs[a]!;
    if (!checks.architectures.includes(arch)) {
      (out ??= []).push(
        notSupported(
          at.path.child('architectures').index(a),
          `architecture "${arch}" of ${at.what} is not supported: supported values: ${quoted(checks.architectures)}`,
        ),
      );
    }
  }
  if (checks.capabilities) return out ?? NONE;
  if (checks.architecturesRequired && archs.length === 0) {
    (out ??= []).push(
      required(
        at.path.child('architectures'),
        `must provide at least one architecture for ${at.what}: list the architectures it is built for (${checks.architectures.join(', ')})`,
      ),
    );
  }
  if (checks.full && (at.v.capabilityFlavors?.length ?? 0) > 0) {
    (out ??= []).push(
      forbidden(
        at.path.child('capabilityFlavors'),
        `must not provide capabilities without global definition: ${at.what} sets capabilityFlavors, but spec.machineCapabilities is not set`,
      ),
    );
  }
  return out ?? NONE;
}

/** A set of the values seen so far, made only for a list that can hold a duplicate (two entries or more). */
const seenSet = (length: number): Set<string> | undefined => (length > 1 ? new Set<string>() : undefined);

// Field paths as functions of the indexes, called only for a violation (bench/NOTES.md).
const criPath = (at: VersionAt, c: number) => at.path.child('cri').index(c);
const runtimePath = (at: VersionAt, c: number, m: number) =>
  criPath(at, c).child('containerRuntimes').index(m).child('type');

function containerRuntimes(cri: CRI, c: number, at: VersionAt): readonly FieldViolation[] {
  let out: FieldViolation[] | undefined;
  const runtimes = cri.containerRuntimes ?? [];
  const seen = seenSet(runtimes.length);
  for (let m = 0; m < runtimes.length; m++) {
    const cr = runtimes[m]!;
    if (!isUnprefixedQualifiedName(cr.type)) {
      (out ??= []).push(
        invalid(
          runtimePath(at, c, m),
          `container runtime type "${cr.type}" of ${at.what} must be a qualified name (containerRuntimes type: letters, digits, '-', '_' or '.', alphanumeric at both ends, at most 63 characters)`,
        ),
      );
    }
    if (seen?.has(cr.type))
      (out ??= []).push(
        duplicate(
          runtimePath(at, c, m),
          `duplicate value "${cr.type}": ${at.what} lists container runtime type ${cr.type} more than once`,
        ),
      );
    seen?.add(cr.type);
  }
  return out ?? NONE;
}

function criOf(at: VersionAt, criRequired: boolean): readonly FieldViolation[] {
  const cris = at.v.cri ?? [];
  if (cris.length === 0) {
    return criRequired
      ? [
          required(
            at.path.child('cri'),
            `must provide at least one supported container runtime for ${at.what}: set cri to [{name: containerd}]`,
          ),
        ]
      : NONE;
  }
  let out: FieldViolation[] | undefined;
  const seen = seenSet(cris.length);
  for (let c = 0; c < cris.length; c++) {
    const cri = cris[c]!;
    if (seen?.has(cri.name))
      (out ??= []).push(
        duplicate(criPath(at, c), `duplicate value "${cri.name}": ${at.what} lists cri ${cri.name} more than once`),
      );
    seen?.add(cri.name);
    if (cri.name !== 'containerd') {
      (out ??= []).push(
        notSupported(
          criPath(at, c).child('name'),
          `container runtime interface (cri) "${cri.name}" of ${at.what} is not supported: supported values: "containerd"`,
        ),
      );
    }
    const runtimes =
      cri.containerRuntimes !== undefined && cri.containerRuntimes.length > 0 ? containerRuntimes(cri, c, at) : NONE;
    for (let r = 0; r < runtimes.length; r++) (out ??= []).push(runtimes[r]!);
  }
  return out ?? NONE;
}

/** Every problem of one image version; `seen` holds the versions of this image name met so far (duplicates). */
export function imageVersionViolations(
  at: VersionAt,
  checks: ImageChecks,
  seen: Set<string>,
): readonly FieldViolation[] {
  const { image, v } = at;
  const repeated = seen.has(v.version)
    ? [
        duplicate(
          at.path,
          `duplicate value "${image.name}-${v.version}": machine image ${image.name} lists version ${v.version} more than once; keep one entry`,
        ),
      ]
    : NONE;
  seen.add(v.version);
  const form = versionString(at);
  const fields = inPlaceAndKubelet(at);
  const archs = architectures(at, checks);
  const cris = checks.full ? criOf(at, !checks.parentVersions?.has(v.version)) : NONE;
  // No array of the parts: a clean version (nearly all) allocates nothing here.
  if (repeated === NONE && form === NONE && fields === NONE && archs === NONE && cris === NONE) return NONE;
  return [...repeated, ...form, ...fields, ...archs, ...cris];
}
