// The report's tests that need no browser, every `*.part.ts` under this directory, in one process
// (test/helpers/parts.ts). timeline-browser.test.ts drives Chromium in a process of its own.
import { importParts } from '../helpers/parts.js';

await importParts(new URL('./', import.meta.url), 5);
