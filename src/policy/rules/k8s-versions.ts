// K8S-VERSIONS: at least one Kubernetes version (on CloudProfile CREATE, one that is not
// unavailable: gardener-apiserver drops unavailable versions first); each strictly X.Y.Z; no
// duplicates. A NamespacedCloudProfile's own list may be empty (it only overrides); its merged
// profile is judged like a CloudProfile.
import { duplicate, type FieldPath, type FieldViolation, invalid, required as requiredField } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import { classificationAt, isStrictKubernetesVersion, K8S_VERSION_PATTERN } from '../../gardener/versions.js';
import type { ProfileWrite, Target, VersionList } from './version-lists.js';
import { judgeOwnAndMerged, kubernetesList, listSome, PROFILES } from './version-lists.js';

function formatAndDuplicates(list: VersionList): FieldViolation[] {
  const out: FieldViolation[] = [];
  const firstIndex = new Map<string, number>();
  list.versions.forEach((v, i) => {
    if (!isStrictKubernetesVersion(v.version)) {
      out.push(
        invalid(
          list.path.index(i),
          `kubernetes version "${v.version}" is not valid: all Kubernetes versions must match the regex ${K8S_VERSION_PATTERN.source} (major.minor.patch, no "v" prefix, no suffix)`,
        ),
      );
      return;
    }
    const first = firstIndex.get(v.version);
    if (first === undefined) firstIndex.set(v.version, i);
    else
      out.push(
        duplicate(
          list.path.index(i).child('version'),
          `duplicate value "${v.version}": kubernetes version ${v.version} is listed more than once; keep one entry`,
        ),
      );
  });
  return out;
}

function required(list: VersionList | undefined, path: FieldPath, ctx: ProfileWrite, target: Target): FieldViolation[] {
  if (!list || list.versions.length === 0) return [requiredField(path, 'must provide at least one Kubernetes version')];
  const onCreate = ctx.operation === 'CREATE' && target.kind === 'CloudProfile';
  if (onCreate && list.versions.every((v) => classificationAt(v, ctx.now) === 'unavailable')) {
    const names = listSome(list.versions.map((v) => v.version));
    return [
      requiredField(
        path,
        `must provide at least one Kubernetes version that is not unavailable: every version (${names}) only starts in the future, and gardener-apiserver drops unavailable versions on create; give at least one version a stage that has already started`,
      ),
    ];
  }
  return [];
}

function judge(ctx: ProfileWrite, target: Target): FieldViolation[] {
  const list = kubernetesList(target);
  const out =
    target.kind === 'NamespacedCloudProfile'
      ? []
      : required(list, target.prefix.child('kubernetes', 'versions'), ctx, target);
  return list ? [...out, ...formatAndDuplicates(list)] : out;
}

export const kubernetesVersions = defineRule({
  id: 'K8S-VERSIONS',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'no Kubernetes version, a version that is not `X.Y.Z`, a duplicate',
  check: (ctx) => judgeOwnAndMerged(ctx, (t) => judge(ctx, t)),
});
