// The kubectl that test/e2e/build-binaries.sh builds into ~/.cache/version-policy-e2e, if it has
// been built on this machine: the kubectl plugin tests run it where it is there.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cachedKubectl(): string | undefined {
  const cache = join(homedir(), '.cache/version-policy-e2e');
  if (!existsSync(cache)) return undefined;
  return readdirSync(cache)
    .map((d) => join(cache, d, 'bin/kubectl'))
    .filter((p) => existsSync(p))
    .sort()
    .at(-1);
}
