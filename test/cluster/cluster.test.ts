// The cluster layer's tests, every `*.part.ts` under this directory, in one process
// (test/helpers/parts.ts). Most parts load client-node (about 900 modules), which under tap's
// processinfo loader costs about 6 s of CPU per process.
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 9);
