// The server's tests, every `*.part.ts` in this directory, in one process (test/helpers/parts.ts):
// each process would load the server's modules again, and the self-managed certificate parts load
// client-node (about 900 modules) besides. The worker, event-loop, fuzz, shutdown and blocked-stdout
// tests keep a process of their own: they measure or take over the process.
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 26);
