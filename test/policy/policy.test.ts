// The policy core's tests (rules, defaulting, forecast, parsing), every `*.part.ts` under this
// directory, in one process: they are pure functions over objects, and a process each cost more
// than the tests (test/helpers/parts.ts).
import t from 'tap';
import { importParts } from '../helpers/parts.js';

t.setTimeout(300_000);

await importParts(new URL('./', import.meta.url), 30);
