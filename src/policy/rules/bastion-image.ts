// BASTION-IMAGE: a CloudProfile's `spec.bastion.machineImage` names one of its images, and that
// image (or the pinned `version`) has a version with an explicit legacy `classification:
// supported` that is supported now, built for the bastion machine type's architecture when one is
// given. A version without a classification does not qualify: Gardener's rule, quirk included
// (gardener#14328). Gardener also refuses a bastion section that names neither an image nor a
// machine type, and a machine type the profile does not list; both are said here too, since an
// offline check must not pass what gardener-apiserver refuses.
import { fieldPath, type FieldViolation, invalid, required } from '../../api/field.js';
import type { Judged } from '../rule.js';
import { defineRule, WRITES } from '../rule.js';
import { listSome } from '../../util/text.js';
import type { MachineImage, MachineImageVersion } from '../../api/types.js';
import { classificationAt, expiryInstant, formatInstant } from '../../gardener/versions.js';

type ProfileWrite = Judged<'CloudProfile', 'CREATE' | 'UPDATE'>;

const BASTION = fieldPath('spec', 'bastion');

/** The bastion machine type's architecture, or why the machine type is wrong. */
interface MachineTypeVerdict {
  /**
   * Its own, else Gardener's default amd64. Undefined when no machine type is given (any
   * architecture will do) or when spec.machineCapabilities carries the architectures in capability
   * flavors, which this rule does not read.
   */
  arch?: string;
  problems: FieldViolation[];
}

function machineTypeOf(ctx: ProfileWrite): MachineTypeVerdict {
  const spec = ctx.object.spec;
  const wanted = spec.bastion?.machineType;
  if (!wanted) return { problems: [] };
  const type = (spec.machineTypes ?? []).find((t) => t.name === wanted.name);
  if (!type) {
    return {
      problems: [
        invalid(
          BASTION.child('machineType', 'name'),
          `machine type not found in spec.machineTypes: the bastion machine type "${wanted.name}" is none of this profile's machine types`,
        ),
      ],
    };
  }
  if ((spec.machineCapabilities?.length ?? 0) > 0) return { problems: [] };
  return { arch: type.architecture ?? 'amd64', problems: [] };
}

/**
 * The version's `architectures` field, else the amd64 Gardener defaults. Flavors are not read: with
 * machineCapabilities no architecture is asked (the forecast's architecturesOf reads flavors).
 */
const fieldArchitectures = (v: MachineImageVersion) => (v.architectures?.length ? v.architectures : ['amd64']);

function qualifies(v: MachineImageVersion, arch: string | undefined, now: number): boolean {
  return (
    v.classification === 'supported' &&
    classificationAt(v, now) === 'supported' &&
    (arch === undefined || fieldArchitectures(v).includes(arch))
  );
}

/** Why a pinned version does not qualify, in words an operator can act on. */
function whyNot(v: MachineImageVersion, arch: string | undefined, now: number): string {
  if (v.classification !== 'supported') {
    return v.classification === undefined
      ? 'has no classification: supported (a version without a classification does not count, as in Gardener)'
      : `is classified ${v.classification}, not supported`;
  }
  const current = classificationAt(v, now);
  if (current !== 'supported') {
    const at = expiryInstant(v);
    return current === 'expired' && at !== undefined && Number.isFinite(at)
      ? `is expired since ${formatInstant(at)}`
      : `is ${current} now`;
  }
  return `is not built for ${arch} (its architectures: ${fieldArchitectures(v).join(', ')})`;
}

function judgeImage(
  ctx: ProfileWrite,
  image: MachineImage,
  arch: string | undefined,
  pinned: string | undefined,
): FieldViolation[] {
  const archText = `"${arch ?? '<nil>'}"`;
  const gardener = `no image with classification supported and arch ${archText} found`;
  const forArch = arch === undefined ? '' : ` for architecture ${arch}`;
  if (pinned === undefined) {
    if (image.versions.some((v) => qualifies(v, arch, ctx.now))) return [];
    return [
      invalid(
        BASTION.child('machineImage', 'name'),
        `${gardener}: no version of machine image ${image.name} has an explicit classification: supported that is supported now${forArch}; classify one so, or pin the bastion to one that is (a version without a classification does not count, as in Gardener)`,
      ),
    ];
  }
  const entry = image.versions.find((v) => v.version === pinned);
  if (!entry) {
    return [
      invalid(
        BASTION.child('machineImage', 'version'),
        `image version not found in spec.machineImages: machine image ${image.name} has no version "${pinned}"`,
      ),
    ];
  }
  if (qualifies(entry, arch, ctx.now)) return [];
  return [
    invalid(
      BASTION.child('machineImage', 'version'),
      `${gardener}: the bastion's version ${pinned} of machine image ${image.name} ${whyNot(entry, arch, ctx.now)}`,
    ),
  ];
}

function check(ctx: ProfileWrite): FieldViolation[] {
  const bastion = ctx.object.spec.bastion;
  if (!bastion) return [];
  const { machineImage, machineType } = bastion;
  if (!machineImage && !machineType)
    return [required(BASTION, 'bastion section needs a machine type or machine image')];
  const { arch, problems: out } = machineTypeOf(ctx);
  if (!machineImage) return out;
  const images = ctx.object.spec.machineImages;
  const image = images.find((i) => i.name === machineImage.name);
  if (!image) {
    const names = listSome(images.map((i) => `"${i.name}"`)) || 'none';
    return [
      ...out,
      invalid(
        BASTION.child('machineImage', 'name'),
        `image name not found in spec.machineImages: the bastion image "${machineImage.name}" is none of this profile's machine images (${names})`,
      ),
    ];
  }
  return [...out, ...judgeImage(ctx, image, arch, machineImage.version)];
}

export const bastionImage = defineRule({
  id: 'BASTION-IMAGE',
  kinds: ['CloudProfile'],
  operations: WRITES,
  summary: 'a bastion image without a version classified `supported` now',
  check,
});
