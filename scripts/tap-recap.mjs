#!/usr/bin/env node
// Runs tap with the arguments given: `node scripts/tap-recap.mjs [--beside SCRIPT]… [tap args…]`.
// When the output is piped (CI, `| tee`, `| tail`), tap prints raw TAP, where a failure is one line
// among thousands; so this passes the TAP through as it comes, then repeats every failing test by
// its full path (`file > part > test > assertion`, with the line that failed) and tap's summary
// line last. If tap ends without its summary line, that is said, with the failures seen until
// then. On a terminal tap's own reporter lists the failures, and tap runs as it is.
// `--beside SCRIPT` runs an npm script (typecheck, lint) at the same time, its output held and
// printed after tap's, with a line saying how it ended, so that it never cuts into the TAP and the
// summary line stays last. The exit code is the first non-zero one.
// Each test process gets test/helpers/untracked-loads.mjs through NODE_OPTIONS (see there).
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const UNTRACKED = new URL('../test/helpers/untracked-loads.mjs', import.meta.url).href;

const SUMMARY = /^# \{ total: \d+/;

/** Reads TAP line by line and keeps what a recap needs: each failing test's path, and the summary line. */
export class TapRecap {
  /** Subtest names by depth, for the lines at each depth. */
  #path = [];
  /** Every `not ok`, as its path and (once its YAML is read) where it failed. */
  #failed = [];
  /** Indent of the YAML block being skipped, or -1. */
  #yaml = -1;
  #last;
  summary;

  line(text) {
    const indent = text.length - text.trimStart().length;
    if (this.#yaml >= 0) {
      if (indent === this.#yaml && text.trim() === '...') this.#yaml = -1;
      else if (this.#last) this.#where(text.trim());
      return;
    }
    if (SUMMARY.test(text)) this.summary = text;
    const depth = Math.floor(indent / 4);
    const subtest = /^\s*# Subtest: (.*)$/.exec(text);
    if (subtest) {
      this.#path = [...this.#path.slice(0, depth), subtest[1]];
      return;
    }
    const point = /^\s*(not ok|ok) \d+(?: - (.*?))?(?: # (\w+)(.*))?$/.exec(text);
    if (point) {
      const [, result, name = '', directive = ''] = point;
      this.#last = undefined;
      if (result === 'not ok' && !/^todo$/i.test(directive)) {
        this.#last = { path: [...this.#path.slice(0, depth), name] };
        this.#failed.push(this.#last);
      }
      this.#path = this.#path.slice(0, depth);
      return;
    }
    if (text.trim() === '---') this.#yaml = indent;
  }

  #where(yaml) {
    const file = /^fileName: (.*)$/.exec(yaml);
    const line = /^lineNumber: (\d+)$/.exec(yaml);
    if (file && !this.#last.file) this.#last.file = file[1];
    if (line && this.#last.file && !this.#last.line) this.#last.line = line[1];
  }

  /** The failing tests that contain no other failing test, as `a > b > c (file:line)`. */
  get failures() {
    const joined = this.#failed.map((f) => ({ ...f, name: f.path.join(' > ') }));
    return joined
      .filter((f) => !joined.some((g) => g !== f && g.name.startsWith(`${f.name} > `)))
      .map((f) => (f.file ? `${f.name} (${f.file}${f.line ? `:${f.line}` : ''})` : f.name));
  }

  /** The closing lines: the failures, then tap's summary line, or why there is none. */
  recap(code, signal) {
    const lines = [];
    const failures = this.failures;
    if (failures.length) lines.push(`# failed: ${failures.length}`, ...failures.map((f) => `#   ${f}`));
    lines.push(
      this.summary ??
        `# tap ended without its summary line (exit code ${code}${signal ? `, signal ${signal}` : ''}): its output above is cut`,
    );
    return lines;
  }
}

/** An npm script run beside tap, its output held until the end. */
function beside(name) {
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const done = new Promise((resolve) =>
    child.on('close', (code, signal) => {
      const ok = code === 0;
      resolve({ code: code ?? 1, text: `${ok ? '' : output.replace(/\n?$/, '\n')}# ${name}: ${ok ? 'ok' : `failed (exit code ${code ?? signal})`}` });
    }),
  );
  return { child, done };
}

async function main(argv) {
  const names = [];
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--beside') names.push(argv[++i]);
    else args.push(argv[i]);
  }
  const others = names.map(beside);
  const piped = !process.stdout.isTTY;
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${UNTRACKED}`].filter(Boolean).join(' ');
  const tap = spawn('tap', [`--test-env=NODE_OPTIONS=${nodeOptions}`, ...args], { stdio: ['inherit', piped ? 'pipe' : 'inherit', 'inherit'] });
  const children = [tap, ...others.map((o) => o.child)];
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      for (const c of children) c.kill(signal);
    });
  const recap = new TapRecap();
  let rest = '';
  if (piped) {
    tap.stdout.setEncoding('utf8');
    tap.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const l of lines) recap.line(l);
    });
  }
  const [code, signal] = await new Promise((resolve) => tap.on('close', (...end) => resolve(end)));
  if (rest) {
    recap.line(rest);
    process.stdout.write('\n');
  }
  const ended = await Promise.all(others.map((o) => o.done));
  const closing = [...ended.map((e) => e.text), ...(piped ? recap.recap(code, signal) : [])];
  if (closing.length) process.stdout.write(`\n${closing.join('\n')}\n`);
  process.exitCode = [code ?? 1, ...ended.map((e) => e.code)].find((c) => c !== 0) ?? 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
