// MACHINE-IMAGES: at least one image, each with a unique qualified name, at least one version, a
// valid updateStrategy, and valid versions (see machine-image-version.ts). A NamespacedCloudProfile's
// own images get Gardener's structural checks (versions may be empty, no cri requirement); an image
// its parent does not have is judged like a CloudProfile's. The merged profile is judged like a
// CloudProfile, except that architectures are not required there (Gardener's merge defaults them)
// and the parent's own entries count as stored with Gardener's defaults.
import { duplicate, type FieldPath, type FieldViolation, invalid, notSupported, required } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type { NamespacedMachineImage } from '../../api/types.js';
import type { ImageChecks } from './machine-image-version.js';
import { imageVersionViolations, isUnprefixedQualifiedName, VersionAt } from './machine-image-version.js';
import type { ProfileWrite, Target } from './version-lists.js';
import { judgeOwnAndMerged, PROFILES } from './version-lists.js';

const UPDATE_STRATEGIES: readonly string[] = ['patch', 'minor', 'major'];
const ARCHITECTURES: readonly string[] = ['amd64', 'arm64'];

function imageFields(image: NamespacedMachineImage, at: () => FieldPath, checks: ImageChecks): FieldViolation[] {
  const out: FieldViolation[] = [];
  if (image.name === '') out.push(required(at().child('name'), 'machine image name must not be empty'));
  else if (!isUnprefixedQualifiedName(image.name)) {
    out.push(
      invalid(
        at().child('name'),
        `machine image name "${image.name}" must be a qualified name: letters, digits, '-', '_' or '.', alphanumeric at both ends, at most 63 characters, no prefix`,
      ),
    );
  }
  if (checks.full && (image.versions?.length ?? 0) === 0) {
    out.push(
      required(at().child('versions'), `must provide at least one version for the machine image '${image.name}'`),
    );
  }
  const strategy = image.updateStrategy;
  if (strategy === undefined && checks.full && !checks.parentVersions) {
    out.push(
      required(
        at().child('updateStrategy'),
        `must provide an update strategy for machine image ${image.name}: set updateStrategy to patch, minor or major`,
      ),
    );
  } else if (strategy !== undefined && !UPDATE_STRATEGIES.includes(strategy)) {
    out.push(
      notSupported(
        at().child('updateStrategy'),
        `updateStrategy "${strategy}" of machine image ${image.name} is not supported: supported values: "major", "minor", "patch"`,
      ),
    );
  }
  return out;
}

/** Allowed architectures and whether spec.machineCapabilities takes over the architecture checks. */
function architectureSource(capabilities: unknown[] | undefined): Pick<ImageChecks, 'architectures' | 'capabilities'> {
  if (!capabilities || capabilities.length === 0) return { architectures: ARCHITECTURES, capabilities: false };
  const arch = capabilities.find(
    (c): c is { name: string; values: string[] } => (c as { name?: unknown } | null)?.name === 'architecture',
  );
  return { architectures: Array.isArray(arch?.values) ? arch.values : ARCHITECTURES, capabilities: true };
}

/** How each image of the target is judged. */
function checksFor(ctx: ProfileWrite, target: Target): (image: NamespacedMachineImage) => ImageChecks {
  const parent = ctx.kind === 'NamespacedCloudProfile' ? ctx.parent : undefined;
  const arch = architectureSource(
    target.kind === 'NamespacedCloudProfile' ? parent?.spec.machineCapabilities : target.spec.machineCapabilities,
  );
  if (target.kind === 'CloudProfile') return () => ({ full: true, architecturesRequired: true, ...arch });
  const parentImages = new Map(
    (parent?.spec.machineImages ?? []).map((i) => [i.name, new Set(i.versions.map((v) => v.version))]),
  );
  if (target.kind === 'merged') {
    return (image) => {
      const parentVersions = parentImages.get(image.name);
      return { full: true, architecturesRequired: false, ...arch, ...(parentVersions ? { parentVersions } : {}) };
    };
  }
  return (image) => {
    const own = parent !== undefined && !parentImages.has(image.name);
    return { full: own, architecturesRequired: own, ...arch };
  };
}

function judge(ctx: ProfileWrite, target: Target): FieldViolation[] {
  const images = target.spec.machineImages ?? [];
  const out: FieldViolation[] = [];
  if (images.length === 0 && target.kind === 'CloudProfile') {
    out.push(required(target.prefix.child('machineImages'), 'must provide at least one machine image'));
  }
  const checksOf = checksFor(ctx, target);
  // Versions seen per image name: a repeated image's versions count as duplicates too, as in Gardener.
  const versionsByName = new Map<string, Set<string>>();
  images.forEach((image, j) => {
    // Built only for a violation: nearly every image has none.
    const path = () => target.prefix.child('machineImages').index(j);
    let seen = versionsByName.get(image.name);
    if (seen) {
      out.push(
        duplicate(
          path(),
          `duplicate value "${image.name}": machine image ${image.name} is listed more than once; merge its versions into one entry`,
        ),
      );
    } else {
      seen = new Set<string>();
      versionsByName.set(image.name, seen);
    }
    const checks = checksOf(image);
    for (const problem of imageFields(image, path, checks)) out.push(problem);
    const versions = image.versions ?? [];
    for (let k = 0; k < versions.length; k++) {
      const found = imageVersionViolations(new VersionAt(image, versions[k]!, path, k), checks, seen);
      // Indexed, not for-of: nearly every version finds nothing, and this loop then allocates nothing.
      for (let f = 0; f < found.length; f++) out.push(found[f]!);
    }
  });
  return out;
}

export const machineImages = defineRule({
  id: 'MACHINE-IMAGES',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'machine images Gardener refuses: no versions, duplicates, bad versions, runtimes or architectures',
  check: (ctx) => judgeOwnAndMerged(ctx, (t) => judge(ctx, t)),
});
