// Bytes in, an AdmissionReview (or why there is none) out: the one path every admission body
// takes. The server hands over the raw bytes and two headers. Whatever is wrong, the uid is read
// if it can be, so that kube-apiserver gets an AdmissionReview with the reason rather than a body
// it cannot read; nothing here ever answers allowed: true.
//
// Every step is linear in the body and cheap next to JSON.parse itself: a native UTF-8 check, and
// when the body holds more than MAX_NESTING_DEPTH brackets, one walk of the parsed value for
// nesting and prototype keys; with fewer, a search of the text for keys that could be prototype
// keys (and a walk only when one could be).
import { isUtf8 } from 'node:buffer';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { webhookError, type WebhookError } from './errors.js';
import { parseIncrementally } from './json-incremental.js';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  endOfString,
  OPEN_BRACE,
  OPEN_BRACKET,
  prototypeKey,
  prototypeKeyFound,
  QUOTE,
  walkTree,
} from './json-text.js';
import { MAX_NESTING_DEPTH, MAX_UID_LENGTH } from './limits.js';
import {
  answerVersion,
  decodeReview,
  identityOf,
  REVIEW_API_VERSION_V1BETA1,
  type AdmissionReviewRequest,
  type ReviewIdentity,
} from './review.js';

export interface BodyHeaders {
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

/**
 * `ok: true`: a review to judge (`problems` past the uid refuse it with 400). `ok: false`: refused
 * with `error`; in an AdmissionReview when `identity` is known, else with a plain HTTP error.
 */
export type DecodedBody =
  | { ok: true; review: AdmissionReviewRequest; problems: string[] }
  | { ok: false; error: WebhookError; identity?: ReviewIdentity };

const refusal = (error: WebhookError, identity: ReviewIdentity | undefined): DecodedBody =>
  identity ? { ok: false, error, identity } : { ok: false, error };

/** The uid and answer version a decoded body carries, if any. */
export function identityOfDecoded(d: DecodedBody): ReviewIdentity | undefined {
  return d.ok ? { uid: d.review.request.uid, apiVersion: answerVersion(d.review.apiVersion) } : d.identity;
}

/** application/json in any letter case, without a charset or with UTF-8 (RFC 8259 allows no other). */
export function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = '', ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/** The content codings applied to a body, in the order they were applied; empty for none or `identity`. */
export function contentCodings(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** Judges an unencoded body (see `decodeEncodedBody` for the rest). */
export function decodeBody(bytes: Buffer, headers: BodyHeaders): DecodedBody {
  if (bytes.length === 0) return refusal(webhookError('BODY_EMPTY'), undefined); // nothing to have a type
  return withMediaType(inspect(bytes), headers);
}

/**
 * Bodies longer than this are parsed in pieces that yield to the event loop (issue 13), at about
 * a fifth of JSON.parse's speed more; shorter ones keep JSON.parse's, blocking the loop for at
 * most about 10 ms (a 7 MiB body took 50 to 130 ms in one piece).
 */
export const INCREMENTAL_BODY_BYTES = 512 * 1024;

/** `decodeBody`, but a body past INCREMENTAL_BODY_BYTES is parsed without blocking the loop long. */
export async function decodeBodyIncrementally(bytes: Buffer, headers: BodyHeaders): Promise<DecodedBody> {
  if (bytes.length <= INCREMENTAL_BODY_BYTES) return decodeBody(bytes, headers);
  return withMediaType(await inspectInPieces(bytes), headers);
}

/** The body's own verdict, unless the media type refuses it first. */
function withMediaType(body: DecodedBody, headers: BodyHeaders): DecodedBody {
  if (isJsonMediaType(headers.contentType)) return body;
  return refusal(webhookError('MEDIA_TYPE', headers.contentType ?? 'none'), identityOfDecoded(body));
}

type Decoder = (buf: Buffer, opts: { maxOutputLength: number }) => Promise<Buffer>;
const DECODERS: Record<string, Decoder> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};
/** More layers than any real client stacks; past it we do not try to read the uid. */
const MAX_CODINGS = 2;

/**
 * An encoded body is always refused (415): we accept what kube-apiserver sends, which is never
 * encoded. It is decoded (off the event loop, never past `limit` bytes) only to find the uid.
 */
export async function decodeEncodedBody(bytes: Buffer, headers: BodyHeaders, limit: number): Promise<DecodedBody> {
  const error = webhookError('CONTENT_ENCODING', headers.contentEncoding ?? '');
  const codings = contentCodings(headers.contentEncoding);
  if (codings.length > MAX_CODINGS) return refusal(error, undefined);
  let plain = bytes;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode) return refusal(error, undefined);
    try {
      plain = await decode(plain, { maxOutputLength: limit });
    } catch {
      return refusal(error, undefined);
    }
  }
  return refusal(
    error,
    identityOfDecoded(plain.length > INCREMENTAL_BODY_BYTES ? await inspectInPieces(plain) : inspect(plain)),
  );
}

/** Everything but the headers: UTF-8, nesting, JSON, prototype keys, then the review's own shape. */
function inspect(bytes: Buffer): DecodedBody {
  const text = bytes.toString('utf8');
  return reviewOf(text, isUtf8(bytes), parsedWhole(text));
}

/** `inspect`, with the nesting scan and JSON.parse done in pieces that yield to the event loop. */
async function inspectInPieces(bytes: Buffer): Promise<DecodedBody> {
  const text = bytes.toString('utf8');
  const parsed = await parseIncrementally(text, { maxDepth: MAX_NESTING_DEPTH });
  if (!parsed.ok) return reviewOf(text, isUtf8(bytes), parsed);
  // The parser has looked at every object; only when it saw a prototype key is the text searched.
  const key = parsed.prototypeSuspect ? prototypeKey(text, parsed.value) : undefined;
  return reviewOf(text, isUtf8(bytes), { ok: true, value: parsed.value, prototypeKey: key });
}

/** A parsed body and the prototype key it holds, if any; or whether it failed for nesting too deep. */
type ParsedBody = { ok: true; value: unknown; prototypeKey: string | undefined } | { ok: false; tooDeep: boolean };

/** The text parsed by JSON.parse in one piece, its nesting and prototype keys judged. */
function parsedWhole(text: string): ParsedBody {
  let value: unknown;
  try {
    // V8's JSON.parse is iterative: nesting costs it no stack, and the body is at most 512 KiB.
    value = JSON.parse(text);
  } catch {
    // Too deep is said before broken, whichever the body is first.
    return { ok: false, tooDeep: nestsDeeperThan(text, MAX_NESTING_DEPTH) };
  }
  // Few brackets: the nesting cannot pass the limit, and the text tells whether a prototype key
  // could be there. More: one walk of the parsed value judges both, on what JSON.parse kept (a
  // value a later duplicate key replaced is never seen downstream, so it is not judged either).
  if (fewBrackets(text, MAX_NESTING_DEPTH)) return { ok: true, value, prototypeKey: prototypeKey(text, value) };
  const walked = walkTree(value, MAX_NESTING_DEPTH);
  return walked.tooDeep
    ? { ok: false, tooDeep: true }
    : { ok: true, value, prototypeKey: prototypeKeyFound(text, walked) };
}

/** The verdict on a parsed body; `utf8` says whether its bytes were valid UTF-8. */
function reviewOf(text: string, utf8: boolean, parsed: ParsedBody): DecodedBody {
  // Invalid sequences decode to U+FFFD; a uid that holds one is not the uid that was sent.
  const readable = (identity: ReviewIdentity | undefined) =>
    utf8 || !identity?.uid.includes('\uFFFD') ? identity : undefined;
  if (!parsed.ok)
    return refusal(
      webhookError(parsed.tooDeep ? 'BODY_TOO_DEEP' : utf8 ? 'BODY_NOT_JSON' : 'BODY_NOT_UTF8'),
      readable(scanIdentity(text)),
    );
  if (!utf8) return refusal(webhookError('BODY_NOT_UTF8'), readable(identityOf(parsed.value)));
  // JSON.parse makes "__proto__" an own key and never pollutes, but nothing downstream gets one.
  if (parsed.prototypeKey !== undefined)
    return refusal(webhookError('PROTOTYPE_KEY', parsed.prototypeKey), identityOf(parsed.value));
  const decoded = decodeReview(parsed.value);
  if (!decoded.ok) return refusal(webhookError('REVIEW_INVALID', decoded.message), decoded.identity);
  return decoded;
}

/** At most `max + 1` occurrences of `char` are counted. */
function countUpTo(text: string, char: string, max: number): number {
  let n = 0;
  for (let at = text.indexOf(char); at >= 0 && n <= max; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Whether the text holds at most `limit` opening brackets, so that nothing in it nests deeper: two native searches. */
function fewBrackets(text: string, limit: number): boolean {
  const braces = countUpTo(text, '{', limit);
  return braces <= limit && braces + countUpTo(text, '[', limit - braces) <= limit;
}

/** Whether arrays and objects nest deeper than `limit` (in valid JSON or not). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Depth cannot exceed the number of opening brackets: most bodies stop at two native searches.
  if (fewBrackets(text, limit)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = endOfString(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** Nesting depth at growing positions of a text, read once from the start. */
class DepthCursor {
  private next = 0;
  private depth = 0;
  private stringEnd = -1;
  constructor(private readonly text: string) {}

  /** The depth just before `index`, or -1 when `index` lies inside a string. Indexes must not decrease. */
  at(index: number): number {
    if (index <= this.stringEnd) return -1;
    while (this.next < index) {
      const c = this.text.charCodeAt(this.next);
      if (c === QUOTE) {
        this.stringEnd = endOfString(this.text, this.next);
        this.next = this.stringEnd + 1;
        if (index <= this.stringEnd) return -1;
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.depth--;
      this.next++;
    }
    return this.depth;
  }
}

/** The first match of the sticky `pattern` at an occurrence of `key` in the top-level object. */
function topLevelMatch(text: string, key: string, pattern: RegExp): RegExpExecArray | undefined {
  const cursor = new DepthCursor(text);
  for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + 1)) {
    if (cursor.at(at) !== 1) continue;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match) return match;
  }
  return undefined;
}

// kube-apiserver writes `request.uid` first (Go's field order), so a uid is found this way in
// any body it sent, however broken the rest.
const REQUEST_UID = new RegExp(
  `"request"\\s*:\\s*\\{\\s*"uid"\\s*:\\s*"((?:[^"\\\\]|\\\\.){1,${MAX_UID_LENGTH}})"`,
  'y',
);
const API_VERSION_V1BETA1 = new RegExp(
  `"apiVersion"\\s*:\\s*${JSON.stringify(REVIEW_API_VERSION_V1BETA1).replaceAll('.', '\\.')}`,
  'y',
);

/** The identity of a body JSON.parse cannot read (broken or too deep), found by scanning its text. */
function scanIdentity(text: string): ReviewIdentity | undefined {
  const match = topLevelMatch(text, '"request"', REQUEST_UID);
  if (!match) return undefined;
  let uid: unknown;
  try {
    uid = JSON.parse(`"${match[1]}"`);
  } catch {
    return undefined;
  }
  if (typeof uid !== 'string' || uid.length === 0 || uid.length > MAX_UID_LENGTH) return undefined;
  const v1beta1 = topLevelMatch(text, '"apiVersion"', API_VERSION_V1BETA1) !== undefined;
  return { uid, apiVersion: answerVersion(v1beta1 ? REVIEW_API_VERSION_V1BETA1 : undefined) };
}
