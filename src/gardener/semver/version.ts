// Versions as Gardener reads them: Masterminds semver v3.5.0's NewVersion (with CoerceNewVersion,
// its default) and Version.Compare, ported for exactness rather than taste. Lax: an optional `v`,
// `X` and `X.Y`, leading zeros; uint64 segments; SemVer 2 pre-release order; build metadata ignored.
// test/e2e/semver/ proves this file against the Go library itself.

/** Masterminds' MaxVersionLen, in bytes. */
const MAX_VERSION_BYTES = 256;
const UINT64_MAX = '18446744073709551615';
const LOOSE =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;
const DIGITS = /^[0-9]+$/;
const NOT_ASCII = /[\u0080-\uffff]/;

/** A parsed version. Segments are uint64: beyond 2^53 the numbers round, but compare() is exact. */
export class Semver {
  constructor(
    readonly major: number,
    readonly minor: number,
    readonly patch: number,
    readonly prerelease: string,
    readonly metadata: string,
    /** The segments in decimal, kept only when one passes 2^53. */
    private readonly digits?: readonly [string, string, string],
  ) {}

  /** Masterminds' Compare: segments, then a release above its pre-releases, then the pre-releases. */
  compare(o: Semver): number {
    return (
      compareSegment(this.major, o.major, this.digits?.[0], o.digits?.[0]) ||
      compareSegment(this.minor, o.minor, this.digits?.[1], o.digits?.[1]) ||
      compareSegment(this.patch, o.patch, this.digits?.[2], o.digits?.[2]) ||
      comparePrereleaseOf(this.prerelease, o.prerelease)
    );
  }

  /** One segment (0 major, 1 minor, 2 patch) against o's, exactly. */
  compareSegment(o: Semver, i: 0 | 1 | 2): number {
    const [a, b] = i === 0 ? [this.major, o.major] : i === 1 ? [this.minor, o.minor] : [this.patch, o.patch];
    return compareSegment(a, b, this.digits?.[i], o.digits?.[i]);
  }

  /** Major and minor equal (exactly, whatever their size). */
  sameMinor(o: Semver): boolean {
    return this.compareSegment(o, 0) === 0 && this.compareSegment(o, 1) === 0;
  }

  /** `major.minor`, exact. */
  minorKey(): string {
    return this.digits ? `${this.digits[0]}.${this.digits[1]}` : `${this.major}.${this.minor}`;
  }

  /** What two versions Equal() share: String() without the metadata. */
  equalityKey(): string {
    const [ma, mi, pa] = this.digits ?? [this.major, this.minor, this.patch];
    return `${ma}.${mi}.${pa}${this.prerelease ? `-${this.prerelease}` : ''}`;
  }

  /** Masterminds' String(): `M.m.p[-pre][+meta]`, without a `v` or leading zeros. */
  toString(): string {
    const [ma, mi, pa] = this.digits ?? [this.major, this.minor, this.patch];
    return `${ma}.${mi}.${pa}${this.prerelease ? `-${this.prerelease}` : ''}${this.metadata ? `+${this.metadata}` : ''}`;
  }

  /** The segments in decimal, exactly. */
  segments(): [string, string, string] {
    return this.digits ? [...this.digits] : [String(this.major), String(this.minor), String(this.patch)];
  }

  /** Masterminds' IncMinor(): the next minor's `.0`, pre-release and metadata dropped; undefined past uint64, where Go panics. */
  nextMinor(): Semver | undefined {
    const [major, minor] = this.segments();
    if (minor === UINT64_MAX) return undefined;
    return semverOf(major, this.digits ? increment(minor) : String(this.minor + 1), '0', '', '');
  }
}

/** Masterminds' NewVersion: the version, or its error text. */
export function newVersion(s: string): Semver | string {
  if (s.length > MAX_VERSION_BYTES && byteLength(s) > MAX_VERSION_BYTES)
    return `version string is too long (max ${MAX_VERSION_BYTES} bytes)`;
  const m = LOOSE.exec(s);
  if (!m) return 'invalid semantic version';
  const major = m[1]!;
  const minor = m[2]?.slice(1) ?? '0';
  const patch = m[3]?.slice(1) ?? '0';
  for (const segment of [major, minor, patch]) {
    if (!fitsUint64(segment))
      return `error parsing version segment: strconv.ParseUint: parsing "${segment}": value out of range`;
  }
  const pre = m[5] ?? '';
  if (pre && pre.split('.').some((p) => p.length > 1 && p[0] === '0' && DIGITS.test(p)))
    return 'version segment starts with 0';
  return semverOf(major, minor, patch, pre, m[8] ?? '');
}

/** A version from its parts, already checked: the segments as decimal digits. */
export function semverOf(major: string, minor: string, patch: string, pre: string, metadata: string): Semver {
  const [a, b, c] = [Number(major), Number(minor), Number(patch)];
  const exact = a > Number.MAX_SAFE_INTEGER || b > Number.MAX_SAFE_INTEGER || c > Number.MAX_SAFE_INTEGER;
  return new Semver(a, b, c, pre, metadata, exact ? [trimZeros(major), trimZeros(minor), trimZeros(patch)] : undefined);
}

/** Masterminds' comparePrerelease over two pre-release strings (either may be empty). */
export function comparePrerelease(a: string, b: string): number {
  const sa = a.split('.');
  const sb = b.split('.');
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const d = comparePrePart(sa[i] ?? '', sb[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

function comparePrereleaseOf(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  return comparePrerelease(a, b);
}

// A part counts as a number when Go's ParseUint reads it: digits within uint64; a longer run of
// digits is a string, and strings sort above numbers.
function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const sNumeric = DIGITS.test(s) && fitsUint64(s);
  const oNumeric = DIGITS.test(o) && fitsUint64(o);
  if (!sNumeric && !oNumeric) return s > o ? 1 : -1;
  if (!oNumeric) return -1;
  if (!sNumeric) return 1;
  return compareDigits(trimZeros(s), trimZeros(o)) > 0 ? 1 : -1;
}

function compareSegment(a: number, b: number, da: string | undefined, db: string | undefined): number {
  if (a !== b) return a < b ? -1 : 1;
  // Equal doubles past 2^53 may be different integers.
  if (a > Number.MAX_SAFE_INTEGER) return compareDigits(da ?? trimZeros(String(a)), db ?? trimZeros(String(b)));
  return 0;
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Whether Go's ParseUint reads the digits (leading zeros allowed) as a uint64. */
export function fitsUint64(digits: string): boolean {
  const d = trimZeros(digits);
  return d.length < UINT64_MAX.length || (d.length === UINT64_MAX.length && d <= UINT64_MAX);
}

function trimZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits[i] === '0') i++;
  return digits.slice(i);
}

function increment(digits: string): string {
  return (BigInt(digits) + 1n).toString();
}

/** The UTF-8 length Go's len() measures (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function byteLength(s: string): number {
  if (!NOT_ASCII.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
