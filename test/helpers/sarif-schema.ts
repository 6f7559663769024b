// The SARIF 2.1.0 JSON Schema, as the npm package @microsoft/jest-sarif ships it (a dev
// dependency: nothing is fetched at test time), compiled with ajv for draft-04, which it is written
// in. `sarifProblems` says what in a log breaks it, or nothing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
) as object;
// unicodeRegExp off: the schema's language pattern has a stray `]`, an error under the `u` flag only.
const ajv = new Ajv04.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

export function sarifProblems(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}
