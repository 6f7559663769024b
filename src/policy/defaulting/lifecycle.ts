// DEFAULT-LIFECYCLE: the operator's version policy, written as explicit lifecycles.
import type { Config } from '../../config.js';
import type { CloudProfile } from '../types.js';

export interface LifecycleDefaultingInput {
  profile: CloudProfile;
  oldProfile?: CloudProfile;
  now: number;
  config: Config;
  lifecycleGate: boolean;
}

/** Rewrites `input.profile` in place; returns one warning per defaulted version. */
export function applyLifecycleDefaults(_input: LifecycleDefaultingInput): string[] {
  // Placeholder: implemented by the lifecycle-defaulting work (issue 6).
  return [];
}
