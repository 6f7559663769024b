// The pure core's tests (util, api, gardener, policy: rules, defaulting, forecast, parsing), every
// `*.part.ts` under those four directories, in one process: they are pure functions over objects,
// and a process each cost more than the tests (test/helpers/parts.ts).
import { importParts } from '../helpers/parts.js';

await importParts(new URL('../util/', import.meta.url), 1);
await importParts(new URL('../api/', import.meta.url), 3);
await importParts(new URL('../gardener/', import.meta.url), 7);
await importParts(new URL('./', import.meta.url), 26);
