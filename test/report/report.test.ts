// The report's tests that need no browser, every `*.part.ts` under this directory, in one process
// (test/helpers/parts.ts). timeline-browser.test.ts drives Chromium in a process of its own.
import t from 'tap';
import { importParts } from '../helpers/parts.js';

t.setTimeout(300_000);

await importParts(new URL('./', import.meta.url), 5);
