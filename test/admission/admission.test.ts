// The admission layer's tests (the body, the review, the patch), every `*.part.ts` under this
// directory, in one process (test/helpers/parts.ts).
import t from 'tap';
import { importParts } from '../helpers/parts.js';

t.setTimeout(300_000);

await importParts(new URL('./', import.meta.url), 4);
