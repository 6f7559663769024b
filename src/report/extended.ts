// The expiries a NamespacedCloudProfile extends: a parent version whose expirationDate the NCP
// overrides with a later one, or removes (docs/rules.md NCP-OVERRIDES: that is the one field an NCP may override).
// Compared as the timeline draws them, so an override a lifecycle ignores extends nothing.
import type { CloudProfileSpec, ExpirableVersion } from '../api/types.js';
import { type ExtendedExpiry, segmentsOf } from './timeline.js';

// The type is the timeline's, which draws it: declared there, so timeline.ts imports nothing from here.
export type { ExtendedExpiry } from './timeline.js';

export function extendedExpiries(parent: CloudProfileSpec, merged: CloudProfileSpec): ExtendedExpiry[] {
  const out: ExtendedExpiry[] = [];
  const compare = (
    kind: ExtendedExpiry['kind'],
    image: string | null,
    before: readonly ExpirableVersion[],
    after: readonly ExpirableVersion[],
  ) => {
    const byVersion = new Map(after.map((v) => [v.version, v]));
    for (const p of before) {
      const m = byVersion.get(p.version);
      const was = m ? expiryOf(p) : Infinity;
      const now = m ? expiryOf(m) : Infinity;
      if (was < now) out.push({ kind, image, version: p.version, parent: was, extended: now });
    }
  };
  compare('kubernetes', null, parent.kubernetes.versions, merged.kubernetes.versions);
  for (const image of parent.machineImages) {
    compare(
      'machine-image',
      image.name,
      image.versions,
      merged.machineImages.find((i) => i.name === image.name)?.versions ?? [],
    );
  }
  return out;
}

/** The start of the version's first expired stage; Infinity when it never expires. */
function expiryOf(v: ExpirableVersion): number {
  return segmentsOf(v).find((s) => s.stage === 'expired')?.start ?? Infinity;
}
