// The CLI's tests, every `*.part.ts` in this directory, in one process (test/helpers/parts.ts):
// check, explain and forecast run in-process, where each process would load the CLI's modules
// again, and the commands that read a cluster load client-node (about 900 modules) besides.
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 22);
