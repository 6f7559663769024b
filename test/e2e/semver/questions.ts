// The questions the differential proof asks, from a fixed seed: versions and constraints of every
// shape Masterminds' grammar has an edge for (leading zeros, uint64's end, pre-release order,
// wildcards, hyphen ranges, `||` and its group limit, Go's idea of a space, the length limits),
// junk around them, and the real-world shapes of issue 37, each asked every way.
export type Question =
  | ['version', string]
  | ['compare', string, string]
  | ['check', string, string]
  | ['compareVersions', string, string, string]
  | ['meets', string, string]
  | ['nextMinor', string]
  | ['instant', string];

/** Versions seen in real profiles: metal-stack's dated images, SAP's hash suffixes, Garden Linux. */
export const REAL_VERSIONS = [
  '24.04',
  '24.04.20240101',
  '22.04.20231001',
  '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47',
  '2250.0.0-baremetal-sci-usi-arm64-2250-0-0-0a6f6d3e',
  '2250.1.0-baremetal-sci-usi-amd64-2250-1-0-9f1e2d3c',
  '1877.12.0-inplace',
  '1877.12.0',
  '1592.1.0',
  '27.1.0-gardener.1',
  '15.6.20240520',
  'v1.31.0',
  '1.31.0',
  '1.31',
  '1.33.0-alpha.1',
  '1.33.0-rc.0',
];

export const REAL_CONSTRAINTS = [
  '>= 1.26',
  '< 1.30',
  '>= 1.28, < 1.33',
  '>= 1.28 < 1.33',
  '~1.30',
  '~> 1.30',
  '^1.30.0',
  '1.30.x',
  '=> 1.30.0',
  '=< 1.30',
  '>= 1.31.0-0',
  '< 1.33-0',
  '>= 1.33-0',
  '>= 1.26, < 1.30 || ~1.31',
  '1.28 - 1.30',
  '>= 24.04',
  '>= 2250.0.0-0',
  '!= 1.30.1',
  '*',
];

/** mulberry32: small, seedable, the same sequence on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function questions(seed: number, pairs: number): Question[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const chance = (p: number) => r() < p;
  const times = (n: number, f: () => string) => Array.from({ length: n }, f).join('');

  const SEGMENTS = ['0', '1', '2', '3', '10', '30', '31', '01', '007', '00', '24', '04', '2250', '20240101'];
  const BIG = [
    '18446744073709551615',
    '18446744073709551616',
    '9007199254740993',
    '9007199254740992',
    '99999999999999999999',
    '000000000000000000000001',
  ];
  const segment = () => (chance(0.05) ? pick(BIG) : chance(0.5) ? String(Math.floor(r() * 4)) : pick(SEGMENTS));
  const IDENTS = [
    '0',
    '1',
    '2',
    '10',
    '01',
    'alpha',
    'beta',
    'rc',
    'a-b',
    '-',
    'x',
    'X1',
    'inplace',
    'bc27cc47',
    '99999999999999999999',
    '18446744073709551616',
    '0a',
    'gardener',
  ];
  const ident = () => (chance(0.2) ? String(Math.floor(r() * 12)) : pick(IDENTS));
  const dotted = (n: number) => Array.from({ length: n }, ident).join('.');
  const JUNK = [' ', '\t', '.', '..', '-', '+', 'v', 'V', '|', '*', 'x', 'é', '_', '~', '^', '!', '=', ',', '\v', '\n'];

  /** A version: mostly well-formed, some with one flaw. */
  const version = (): string => {
    if (chance(0.15)) return pick(REAL_VERSIONS);
    if (chance(0.04)) return times(1 + Math.floor(r() * 4), () => pick([...JUNK, ...SEGMENTS]));
    if (chance(0.01)) return `1.2.3-${'a'.repeat(240 + Math.floor(r() * 30))}`;
    let v = (chance(0.1) ? 'v' : '') + segment();
    if (chance(0.8)) v += `.${segment()}`;
    if (chance(0.7)) v += `.${segment()}`;
    if (chance(0.03)) v += `.${segment()}`;
    if (chance(0.3)) v += `-${dotted(1 + Math.floor(r() * 3))}`;
    if (chance(0.1)) v += `+${dotted(1 + Math.floor(r() * 2))}`;
    if (chance(0.03)) v = v.replace('.', pick(['..', '.-', '. ', '.x']));
    if (chance(0.02)) v = pick([' ', '', 'V']) + v + pick([' ', '', '-', '+', '.']);
    return v;
  };

  const SPACES = [' ', ' ', ' ', '', '', '  ', '\t', '\n', '\r', '\f', ' \t '];
  const space = () => (chance(0.01) ? '\v' : pick(SPACES));
  const OPS = ['', '=', '!=', '>', '<', '>=', '=>', '<=', '=<', '~', '~>', '^', '', '>=', '<'];
  const BAD_OPS = ['=>=', '!', '<<', '==', '>~', '^^'];
  const WILD = ['x', 'X', '*'];
  const cseg = () =>
    chance(0.15) ? pick(WILD) : chance(0.02) ? pick(['1x', '|', '1|2', 'x1', '**', '01']) : segment();
  /** A constraint's version: partial, wildcards, a pre-release or metadata now and then. */
  const cversion = (): string => {
    let v = (chance(0.08) ? 'v' : '') + cseg();
    if (chance(0.75)) v += `.${cseg()}`;
    if (chance(0.55)) v += `.${cseg()}`;
    if (chance(0.15)) v += `-${dotted(1 + Math.floor(r() * 2))}`;
    if (chance(0.05)) v += `+${dotted(1)}`;
    return v;
  };
  const term = () => (chance(0.02) ? pick(BAD_OPS) : pick(OPS)) + (chance(0.3) ? space() : '') + cversion();
  const range = () => `${cversion()}${pick([' ', '  ', '\t'])}-${pick([' ', '  ', '\n'])}${cversion()}`;
  const group = (): string => {
    const n = 1 + Math.floor(r() * 3);
    const parts = Array.from({ length: n }, () => (chance(0.12) ? range() : term()));
    return (
      space() +
      parts.reduce(
        (acc, p) => acc + (chance(0.05) ? pick([';', ',,', ' ,', '']) : pick([', ', ',', ' ', ' , ', '\t'])) + p,
      ) +
      (chance(0.05) ? pick([',', ' ', '\v', ' -']) : '') +
      space()
    );
  };
  // Short strings over the grammar's own characters: where its corners are.
  const ALPHABET = [...' -12x.,|>=<~^!v+a0\t'];
  const corner = () => times(1 + Math.floor(r() * 14), () => pick(ALPHABET));
  const constraint = (): string => {
    if (chance(0.12)) return pick(REAL_CONSTRAINTS);
    if (chance(0.1)) return corner();
    if (chance(0.02))
      return Array.from({ length: 30 + Math.floor(r() * 6) }, () => pick(['1', '2.x', '>=1'])).join('||');
    if (chance(0.02)) return times(120 + Math.floor(r() * 20), () => pick(['1 ', '>=1.2, ', 'x ', '1 - 2 ']));
    if (chance(0.03)) return times(1 + Math.floor(r() * 6), () => pick([...JUNK, ...OPS, ...SEGMENTS]));
    let c = group();
    while (chance(0.25)) c += pick(['||', ' || ', '|||', '|', '||  ']) + group();
    return c;
  };

  // Versions a constraint can tell apart: small segments, with and without pre-releases.
  const near = (): string => {
    if (chance(0.2)) return version();
    let v = `${Math.floor(r() * 4)}.${Math.floor(r() * 4)}.${Math.floor(r() * 4)}`;
    if (chance(0.2)) v += `-${dotted(1)}`;
    if (chance(0.05)) v = v.slice(0, v.lastIndexOf('.'));
    return v;
  };

  /** The same version written another way: a `v`, leading zeros, metadata, a missing `.0`. */
  const twin = (v: string): string => {
    const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[^+]*)?(\+.*)?$/.exec(v);
    if (!m) return v;
    const [, a, b = '0', c = '0', pre = '', meta = ''] = m;
    const zeros = () => (chance(0.3) ? '0' : '');
    const tail = c === '0' && chance(0.3) ? '' : `.${zeros()}${c}`;
    return `${chance(0.3) ? 'v' : ''}${zeros()}${a}.${zeros()}${b}${tail}${pre}${chance(0.3) ? '+build.7' : meta}`;
  };

  const out: Question[] = [];
  const versions = [...REAL_VERSIONS, ...Array.from({ length: Math.ceil(pairs / 2) }, version)];
  for (const v of versions) out.push(['version', v], ['nextMinor', v]);
  for (let i = 0; i < pairs; i++) {
    const a = pick(versions);
    out.push(['compare', a, chance(0.2) ? twin(a) : chance(0.5) ? pick(versions) : near()]);
  }
  for (const a of REAL_VERSIONS) for (const b of REAL_VERSIONS) out.push(['compare', a, b]);
  // Pre-releases of one release against each other: numbers, strings, and numbers past uint64.
  for (let i = 0; i < pairs / 4; i++)
    out.push(['compare', `1.0.0-${dotted(1 + Math.floor(r() * 3))}`, `1.0.0-${dotted(1 + Math.floor(r() * 3))}`]);
  // Term versions about NewVersion's 256 bytes, written whole or partly (then padded to X.Y.Z).
  const long = () =>
    `${pick(['', '1', '1.2', '1.2.3', 'x', 'v1.2.3'])}-${'a'.repeat(246 + Math.floor(r() * 12))}${pick(['', '+b'])}`;
  for (let i = 0; i < 200; i++) out.push(['check', `${pick(OPS)}${long()}`, near()]);
  for (let i = 0; i < pairs; i++) out.push(['check', constraint(), near()]);
  for (const c of REAL_CONSTRAINTS)
    for (const v of [...REAL_VERSIONS, '1.29.9', '1.30.0', '1.30.5', '1.31.0']) out.push(['check', c, v]);
  const CMP = ['<', '<=', '>', '>='];
  for (let i = 0; i < pairs / 4; i++)
    out.push(['compareVersions', chance(0.5) ? version() : near(), pick(CMP), chance(0.5) ? version() : near()]);
  for (const a of REAL_VERSIONS) for (const b of REAL_VERSIONS) out.push(['compareVersions', a, pick(CMP), b]);
  for (let i = 0; i < pairs / 4; i++) out.push(['meets', chance(0.5) ? version() : near(), constraint()]);

  // Instants: what metav1.Time decodes, the days that do not exist, and what RFC 3339 and Go disagree on.
  const two = (max: number) => String(Math.floor(r() * max)).padStart(2, '0');
  const instant = (): string => {
    if (chance(0.05)) return pick(['', 'now', '2024-06-31', '2024-06-30', '2024-06-30T12:00:00', '1719792000']);
    const year = pick(['2024', '2023', '2000', '1900', '2100', '0000', '9999', '1970', '1969', '24', '20a4']);
    const month = chance(0.9) ? two(13) : pick(['1', '13', '00', '99']);
    const day = chance(0.85) ? two(32) : pick(['29', '30', '31', '1', '00', '32']);
    const hour = chance(0.9) ? two(25) : pick(['1', '9', '24', '99']);
    const fraction = chance(0.2)
      ? pick(['.', ',']) + times(1 + Math.floor(r() * 12), () => String(Math.floor(r() * 10)))
      : '';
    const zone = chance(0.6)
      ? 'Z'
      : pick([
          '+01:00',
          '-05:30',
          '+24:00',
          '+25:00',
          '+01:60',
          '+01:61',
          '+0100',
          'z',
          '',
          '+1:00',
          '*01:00',
          '+01:0x',
          'Z ',
          'ZZ',
        ]);
    const sep = chance(0.92) ? 'T' : pick(['t', ' ', '_']);
    return `${year}-${month}-${day}${sep}${hour}:${two(61)}:${chance(0.97) ? two(60) : pick(['60', '61', '5'])}${fraction}${zone}${chance(0.02) ? pick(['x', 'é', '\n']) : ''}`;
  };
  for (let i = 0; i < pairs / 4; i++) out.push(['instant', instant()]);
  return out;
}
