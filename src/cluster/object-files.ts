// Reads Kubernetes objects from YAML or JSON files: multi-document, `kind: List` unrolled, each
// object checked against its schema. Bad input throws InputError naming the file and line.
import { readFile } from 'node:fs/promises';
import { LineCounter, parseAllDocuments } from 'yaml';
import { formatFieldErrors, isPolicedKind, parsePolicedObject } from '../policy/parse.js';
import type { PolicedObject } from '../policy/types.js';

export class InputError extends Error {
  override name = 'InputError';
}

export interface SourcedObject {
  object: PolicedObject;
  file: string;
  /** 1-based line where the document starts. */
  line: number;
}

export interface ReadOptions {
  /** Namespace for namespaced objects that name none (kubectl's default). */
  defaultNamespace?: string;
}

/** Parses one file's text. Objects of kinds we do not police are skipped. */
export function parseObjects(text: string, file: string, opts: ReadOptions = {}): SourcedObject[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(docs)) throw new InputError(`${file}: not a YAML stream`);
  const out: SourcedObject[] = [];
  for (const doc of docs) {
    const line = lines.linePos(doc.range[0]).line;
    const problem = doc.errors[0];
    if (problem) {
      const at = problem.linePos?.[0]?.line ?? line;
      throw new InputError(`${file}:${at}: not valid YAML: ${problem.message.split('\n')[0]}`);
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    for (const item of unroll(value)) out.push({ object: checked(item, file, line, opts), file, line });
  }
  if (out.length === 0) throw new InputError(`${file}: contains no CloudProfile, NamespacedCloudProfile or Shoot`);
  return out;
}

export async function readObjectFile(file: string, opts: ReadOptions = {}): Promise<SourcedObject[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (text.trim() === '') throw new InputError(`${file}: file is empty`);
  return parseObjects(text, file, opts);
}

export async function readObjectFiles(files: readonly string[], opts: ReadOptions = {}): Promise<SourcedObject[]> {
  const all = await Promise.all(files.map((f) => readObjectFile(f, opts)));
  return all.flat();
}

function unroll(value: unknown): unknown[] {
  if (isRecord(value) && value.kind === 'List' && Array.isArray(value.items)) return value.items as unknown[];
  return [value];
}

function checked(value: unknown, file: string, line: number, opts: ReadOptions): PolicedObject {
  if (!isRecord(value)) throw new InputError(`${file}:${line}: expected a Kubernetes object, found ${Array.isArray(value) ? 'a list' : typeof value}`);
  const { apiVersion, kind } = value;
  if (!isPolicedKind(kind)) {
    throw new InputError(
      `${file}:${line}: unsupported kind ${JSON.stringify(kind ?? null)} (apiVersion ${JSON.stringify(apiVersion ?? null)}); expected CloudProfile, NamespacedCloudProfile or Shoot of core.gardener.cloud/v1beta1`,
    );
  }
  const meta = value.metadata;
  if (kind !== 'CloudProfile' && isRecord(meta) && meta.namespace === undefined) {
    meta.namespace = opts.defaultNamespace ?? 'default';
  }
  const parsed = parsePolicedObject(kind, value);
  if (!parsed.ok) {
    const name = isRecord(meta) && typeof meta.name === 'string' ? ` ${JSON.stringify(meta.name)}` : '';
    throw new InputError(`${file}:${line}: invalid ${kind}${name}: ${formatFieldErrors(parsed.errors)}`);
  }
  return parsed.object;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
