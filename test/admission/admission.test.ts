// The admission layer's tests (the body, the review, the patch), every `*.part.ts` under this
// directory, in one process (test/helpers/parts.ts).
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 4);
