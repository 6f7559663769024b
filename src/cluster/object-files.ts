// Reads Kubernetes objects from YAML or JSON files: multi-document, `kind: List` unrolled, each
// object checked against its schema. Bad input throws InputError naming the file and the line of
// the offending field, so a user can fix it without a stack trace. Documents of other kinds are
// an error, or (for `check`, which reads whole manifest folders) skipped and reported.
import { readFile } from 'node:fs/promises';
import {
  Composer,
  type Document,
  isCollection,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  Parser,
} from 'yaml';
import { type FieldError, formatFieldErrors, isPolicedKind, parsePolicedObject } from '../api/parse.js';
import type { PolicedObject } from '../api/types.js';
import { CORE_GROUP, GARDENER_CORE_KINDS, groupOf, isGardenerCoreKind } from '../api/gardener-kinds.js';
import { didYouMean } from '../util/nearest.js';

export class InputError extends Error {
  override name = 'InputError';
  /** Where the problem is, for callers that report it as data (`check --output json`). */
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(message: string, where: { file?: string; line?: number } = {}) {
    super(message);
    this.file = where.file;
    this.line = where.line;
  }
}

/** `file:line: problem`, with the place kept as data too. */
function inputError(file: string, line: number | undefined, problem: string): InputError {
  return new InputError(`${file}${line === undefined ? '' : `:${line}`}: ${problem}`, {
    file,
    ...(line === undefined ? {} : { line }),
  });
}

/** Where an object or document sits in its source. */
export interface Place {
  file: string;
  /** 1-based position of the YAML document in the stream, empty documents included. */
  document: number;
  /** 1-based line where the object starts (for a List item, the item's line). */
  line: number;
}

export interface SourcedObject extends Place {
  object: PolicedObject;
}

/** A document of a kind we do not police, read past instead of judged. Holds no content of it. */
export interface SkippedDocument extends Place {
  apiVersion: string | null;
  kind: string;
  namespace: string | null;
  name: string | null;
}

export interface ParsedFile {
  objects: SourcedObject[];
  skipped: SkippedDocument[];
}

export interface ReadOptions {
  /** Namespace for namespaced objects that name none (kubectl's default). */
  defaultNamespace?: string;
  /**
   * The objects are stored already (a --state file, the old side of `check`): not held to the
   * limits, as the informers' objects are not. A landscape's stored profile may be past them, and
   * `state export` writes it as it is.
   */
  stored?: boolean;
  /** A document of another kind (a ConfigMap, a Secret) is an error (the default) or skipped and reported. */
  otherKinds?: 'error' | 'skip';
  /**
   * Accept a file that holds only empty Lists: `kubectl get shoots -A -o yaml` of a landscape with
   * no Shoots says "none" this way. Default: an error, like a file with no objects at all.
   */
  allowEmptyList?: boolean;
  /** Accept a file with no object at all (empty, only `---` or comments, empty Lists): `check`'s old side. */
  allowNoObjects?: boolean;
}

const POLICED = 'CloudProfile, NamespacedCloudProfile or Shoot';

/** Parses one file's text. Every object must be of a kind we police; anything else is an error. */
export function parseObjects(text: string, file: string, opts: ReadOptions = {}): SourcedObject[] {
  return parseDocuments(text, file, opts).objects;
}

/** Parses one file's text into the objects we police and the documents read past (`otherKinds: 'skip'`). */
export function parseDocuments(text: string, file: string, opts: ReadOptions = {}): ParsedFile {
  const lines = new LineCounter();
  // parseAllDocuments, one document at a time: a document's syntax tree is dropped once its
  // objects are read (a file of 100,000 Shoots held them all at once: 2.7 GB at the peak).
  const docs = new Composer({ lineCounter: lines, prettyErrors: false, uniqueKeys: true }).compose(
    new Parser(lines.addNewLine).parse(text),
  );
  const lineAt = (offset: number) => lines.linePos(offset).line;
  const out: ParsedFile = { objects: [], skipped: [] };
  let document = 0;
  let emptyList = false;
  for (const doc of docs) {
    document++;
    const problem = doc.errors[0];
    if (problem) throw inputError(file, lineAt(problem.pos[0]), `not valid YAML: ${firstLine(problem.message)}`);
    const value = plainValue(doc, file, lineAt(doc.range[0]));
    if (value === null || value === undefined) continue;
    const items = unroll(value, file, lineAt(doc.range[0]));
    if (items.length === 0) emptyList = true;
    for (const item of items) {
      const at = locator(doc, item.path, lineAt);
      const place = { file, document, line: at.line('') };
      unknownCoreKind(item.value, file, at);
      const skip = opts.otherKinds === 'skip' ? otherKind(item.value, place) : undefined;
      if (skip) out.skipped.push(skip);
      else out.objects.push({ object: checked(item.value, file, at, opts), ...place });
    }
  }
  const none = out.objects.length === 0 && out.skipped.length === 0;
  if (none && !opts.allowNoObjects && !(emptyList && opts.allowEmptyList))
    throw inputError(file, undefined, `contains no ${POLICED}`);
  return out;
}

/** A kind that core.gardener.cloud does not have is a typo, not another kind: an error naming the nearest. */
function unknownCoreKind(value: unknown, file: string, at: Locator): void {
  if (!isRecord(value) || groupOf(value.apiVersion) !== CORE_GROUP || typeof value.kind !== 'string') return;
  if (isPolicedKind(value.kind) || isGardenerCoreKind(value.kind)) return;
  throw inputError(
    file,
    at.line('kind'),
    `unknown kind ${JSON.stringify(value.kind)} in ${CORE_GROUP}${didYouMean(value.kind, GARDENER_CORE_KINDS)}: Gardener has no such kind, and a misspelt profile must not pass unjudged`,
  );
}

/**
 * Where fields of the objects read from `text` sit: `(place, field)` → the line of the field, or of
 * its nearest parent that the source has. Parses again, once, on the first call: the objects
 * themselves keep no syntax tree.
 */
export function fieldLines(text: string): (place: Place, field: string) => number {
  let docs: Document.Parsed[] | undefined;
  const lines = new LineCounter();
  const lineAt = (offset: number) => lines.linePos(offset).line;
  return (place, field) => {
    docs ??= [...new Composer({ lineCounter: lines }).compose(new Parser(lines.addNewLine).parse(text))];
    const doc = docs[place.document - 1];
    if (!doc) return place.line;
    const items = doc.get('items', true);
    // A List item: the one that starts on the object's line.
    const index = isSeq(items)
      ? items.items.findIndex((n) => isNode(n) && n.range && lineAt(n.range[0]) === place.line)
      : -1;
    return locator(doc, index < 0 ? [] : ['items', index], lineAt).line(field);
  };
}

/** The skip record of a Kubernetes object of a kind we do not police; undefined for ours or a non-object. */
function otherKind(value: unknown, place: Place): SkippedDocument | undefined {
  if (!isRecord(value) || typeof value.kind !== 'string' || value.kind === '' || isPolicedKind(value.kind))
    return undefined;
  const meta = isRecord(value.metadata) ? value.metadata : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    ...place,
    apiVersion: text(value.apiVersion),
    kind: value.kind,
    namespace: text(meta.namespace),
    name: text(meta.name),
  };
}

export async function readObjectFile(file: string, opts: ReadOptions = {}): Promise<SourcedObject[]> {
  return parseObjects(await readSourceText(file), file, opts);
}

/** A file's text; a file that cannot be read, or holds only white space, is an InputError. */
export async function readSourceText(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw inputError(file, undefined, `cannot read: ${readProblem(err as NodeJS.ErrnoException)}`);
  }
  return nonEmpty(text, file);
}

/** `text`, unless it holds nothing but white space. */
export function nonEmpty(text: string, file: string): string {
  if (text.trim() === '') throw inputError(file, undefined, 'file is empty');
  return text;
}

/** Reads files in parallel; when several are bad, the error is the first file's, every time. */
export async function readObjectFiles(files: readonly string[], opts: ReadOptions = {}): Promise<SourcedObject[]> {
  return (await inOrder(files.map((f) => readObjectFile(f, opts)))).flat();
}

/** Promise.all, except that the rejection reported is the first in list order, not in time. */
async function inOrder<T>(work: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

function readProblem(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
      return 'permission denied';
    default:
      return err.code ?? firstLine(err.message);
  }
}

function plainValue(doc: Document.Parsed, file: string, line: number): unknown {
  try {
    // A low alias budget: a few anchors are normal, thousands are a billion-laughs bomb.
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw inputError(file, line, `not valid YAML: ${firstLine((err as Error).message)}`);
  }
}

type PathSegment = string | number;

/**
 * `kind: List`, and Gardener's typed lists of our kinds (`ShootList`, as the API serves them), item
 * by item; a typed list's items may leave out kind and apiVersion, which the list implies.
 */
function unroll(value: unknown, file: string, line: number): Array<{ value: unknown; path: PathSegment[] }> {
  if (!isRecord(value)) return [{ value, path: [] }];
  const itemKind = typedListOf(value);
  if (value.kind !== 'List' && itemKind === undefined) return [{ value, path: [] }];
  if (!Array.isArray(value.items)) throw inputError(file, line, `a ${String(value.kind)} needs an \`items\` list`);
  return value.items.map((item: unknown, i) => ({
    value: itemKind && isRecord(item) ? { kind: itemKind, apiVersion: value.apiVersion, ...item } : item,
    path: ['items', i],
  }));
}

function typedListOf(value: Record<string, unknown>): string | undefined {
  if (groupOf(value.apiVersion) !== CORE_GROUP || typeof value.kind !== 'string') return undefined;
  const item = value.kind.replace(/List$/, '');
  return item !== value.kind && isPolicedKind(item) ? item : undefined;
}

/** Finds where a field of one object sits in the source text. */
interface Locator {
  /** The line of `field` (a parse.ts field path), or of its nearest existing parent. */
  line(field: string): number;
  /** The source text of `field` when it is a plain scalar that YAML did not read as a string. */
  nonString(field: string): string | undefined;
}

function locator(doc: Document.Parsed, base: PathSegment[], lineAt: (offset: number) => number): Locator {
  const nodeAt = (path: PathSegment[]) => (path.length === 0 ? doc.contents : doc.getIn(path, true));
  return {
    line(field) {
      const path = [...base, ...fieldPath(field)];
      for (let n = path.length; n >= 0; n--) {
        const node = nodeAt(path.slice(0, n));
        if (!isNode(node) || !node.range) continue;
        // A mapping or a list under a key starts on the line after it: the key's line names it.
        const key = isCollection(node) && n > 0 ? keyOf(nodeAt(path.slice(0, n - 1)), path[n - 1]) : undefined;
        return lineAt((key ?? node).range?.[0] ?? node.range[0]);
      }
      return lineAt(doc.range[0]);
    },
    nonString(field) {
      const node = nodeAt([...base, ...fieldPath(field)]);
      return isScalar(node) && typeof node.value !== 'string' && node.source !== undefined
        ? String(node.source)
        : undefined;
    },
  };
}

/** The key node of `segment` in a mapping node, if it is one. */
function keyOf(parent: unknown, segment: PathSegment | undefined): Node | undefined {
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === segment);
  return isNode(pair?.key) ? pair.key : undefined;
}

/** `spec.kubernetes.versions[0].version` → ['spec', 'kubernetes', 'versions', 0, 'version']. */
function fieldPath(field: string): PathSegment[] {
  return (field.match(/[^.[\]]+/g) ?? []).map((seg) => (/^[0-9]+$/.test(seg) ? Number(seg) : seg));
}

function checked(value: unknown, file: string, at: Locator, opts: ReadOptions): PolicedObject {
  if (!isRecord(value)) {
    throw inputError(
      file,
      at.line(''),
      `expected a Kubernetes object, found ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  }
  const { apiVersion, kind } = value;
  if (!isPolicedKind(kind)) {
    throw inputError(
      file,
      at.line('kind'),
      `unsupported kind ${JSON.stringify(kind ?? null)} (apiVersion ${JSON.stringify(apiVersion ?? null)}); expected ${POLICED} of core.gardener.cloud/v1beta1`,
    );
  }
  const meta = value.metadata;
  if (kind !== 'CloudProfile' && isRecord(meta) && meta.namespace === undefined) {
    meta.namespace = opts.defaultNamespace ?? 'default';
  }
  const parsed = parsePolicedObject(kind, value, opts.stored ? { limits: false } : {});
  if (!parsed.ok) {
    const name = isRecord(meta) && typeof meta.name === 'string' ? ` ${JSON.stringify(meta.name)}` : '';
    const errors = parsed.errors.map((e) => withQuotingHint(e, at));
    throw inputError(file, at.line(errors[0]?.field ?? ''), `invalid ${kind}${name}: ${formatFieldErrors(errors)}`);
  }
  return parsed.object;
}

/** YAML reads `version: 1.30` as the number 1.3; say so, and how to keep it a string. */
function withQuotingHint(e: FieldError, at: Locator): FieldError {
  if (e.message !== 'must be string') return e;
  const source = at.nonString(e.field);
  return source === undefined ? e : { ...e, message: `must be string, found ${source} (quote it: "${source}")` };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
