// The self-managed certificate tests that run a replica against the fake API server: every
// `*.part.ts` in this directory, in one process (test/helpers/parts.ts), because each loads
// client-node (about 900 modules), and under tap's processinfo loader that load costs about 6 s of
// CPU per process (bench/NOTES.md §7).
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 5);
