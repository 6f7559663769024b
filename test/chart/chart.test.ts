// The chart's tests, every `*.part.ts` under this directory, in one process (test/helpers/parts.ts):
// the parts share test/helpers/helm.ts's renders, so each set of values is rendered once.
import t from 'tap';
import { importParts } from '../helpers/parts.js';

t.setTimeout(480_000);

await importParts(new URL('./', import.meta.url), 12);
