// Which version row each forecast event belongs to: the version a step or failure leaves. A run
// whose dry run is rejected names no version, so it goes to the control plane's version of that
// day, followed through the Shoot's own earlier steps. Shared by the timeline and the metrics.
import type { Shoot } from '../../api/types.js';
import type { ForecastEvent } from './types.js';

export interface VersionEvent {
  kind: 'kubernetes' | 'machine-image';
  /** The image's name; null for Kubernetes. */
  image: string | null;
  version: string;
  event: ForecastEvent;
}

export function eventsByVersion(shoot: Shoot, events: readonly ForecastEvent[]): VersionEvent[] {
  let controlPlane = shoot.spec.kubernetes.version;
  const out: VersionEvent[] = [];
  for (const event of events) {
    const c = event.component;
    if (c.kind === 'run') out.push({ kind: 'kubernetes', image: null, version: controlPlane, event });
    else if (event.from === undefined) continue;
    else if (c.kind === 'machine-image')
      out.push({ kind: 'machine-image', image: c.image, version: event.from, event });
    else out.push({ kind: 'kubernetes', image: null, version: event.from, event });
    if (c.kind === 'kubernetes' && c.pool === undefined && event.to) controlPlane = event.to;
  }
  return out;
}

/** A row's key: the same for the timeline's rows and the metrics' label sets. */
export function versionKey(kind: VersionEvent['kind'], image: string | null, version: string): string {
  return `${kind}\u0000${image ?? ''}\u0000${version}`;
}
