// The chart's tests, every `*.part.ts` under this directory, in one process (test/helpers/parts.ts):
// the parts share test/helpers/helm.ts's renders, so each set of values is rendered once.
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 12);
