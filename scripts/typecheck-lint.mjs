#!/usr/bin/env node
// `npm run typecheck` and `eslint .` on one TypeScript program: both built the program of
// tsconfig.json and type-checked every file of it, 28 and 66 s of CPU (bench/NOTES.md §7). Here tsc's
// diagnostics come from the program, and typescript-eslint's type-aware rules get the same
// program (`parserOptions.programs`), whose checker has the types already. Same findings, printed
// as `tsc` and eslint print them; exit code 1 when either found an error, 2 when one could not run.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function program() {
  const config = ts.getParsedCommandLineOfConfigFile(`${ROOT}tsconfig.json`, { noEmit: true }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json: not read');
  if (config.errors.length) throw new Error(ts.formatDiagnostics(config.errors, host()));
  return ts.createProgram({ rootNames: config.fileNames, options: config.options });
}

function host() {
  return {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => '\n',
  };
}

let code = 0;
try {
  const p = program();
  const diagnostics = ts.getPreEmitDiagnostics(p);
  if (diagnostics.length) {
    process.stdout.write(ts.formatDiagnostics(diagnostics, host()));
    code = 1;
  }
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { programs: [p] } } }],
  });
  const results = await eslint.lintFiles(['.']);
  const text = await (await eslint.loadFormatter('stylish')).format(results);
  if (text) process.stdout.write(text);
  if (results.some((r) => r.errorCount > 0)) code = 1;
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  code = 2;
}
process.exitCode = code;
