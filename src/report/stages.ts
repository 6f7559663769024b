// How each stage is drawn: a colour from the Okabe–Ito palette (told apart by the common kinds of
// colour blindness), a pattern of its own (told apart in greyscale print too), and a word.
// "unavailable" is a version not released yet: near-white with a dashed outline, a placeholder,
// not the grey hatching that read as a removed version.
import { html, type Markup } from './html-template.js';

export interface StageStyle {
  /** The CSS class and pattern id suffix. */
  key: string;
  label: string;
  /** One letter, for segments too narrow for the word. */
  short: string;
}

const KNOWN: Record<string, StageStyle> = {
  unavailable: { key: 'unavailable', label: 'unavailable', short: 'U' },
  preview: { key: 'preview', label: 'preview', short: 'P' },
  supported: { key: 'supported', label: 'supported', short: 'S' },
  deprecated: { key: 'deprecated', label: 'deprecated', short: 'D' },
  expired: { key: 'expired', label: 'expired', short: 'E' },
};

/** The legend's order: the order a version moves through. */
export const LEGEND: readonly StageStyle[] = Object.values(KNOWN);

/** A classification Gardener does not know is drawn as itself, in a colour of its own. */
export function styleOf(stage: string): StageStyle {
  return Object.hasOwn(KNOWN, stage) ? KNOWN[stage]! : { key: 'unknown', label: stage, short: '?' };
}

/** The stage after the last one drawn, for rows with more changes than the page draws. */
export const UNDRAWN: StageStyle = { key: 'undrawn', label: 'not drawn', short: '…' };

/** Tiles in user units; `userSpaceOnUse` keeps the hatching the same on every bar, wide or narrow. */
export const PATTERNS: Markup = html`<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>
<pattern id="vp-unavailable" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#fbfbfb"/><circle cx="3" cy="3" r=".7" fill="#a8a8a8"/></pattern>
<pattern id="vp-preview" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#56b4e9"/><circle cx="3" cy="3" r="1.2" fill="#08466e"/></pattern>
<pattern id="vp-supported" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#009e73"/></pattern>
<pattern id="vp-deprecated" width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="7" height="7" fill="#e69f00"/><rect width="2.5" height="7" fill="#7a4f00" fill-opacity=".55"/></pattern>
<pattern id="vp-expired" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#d55e00"/><rect width="1.6" height="6" fill="#3d1a00" fill-opacity=".6"/><rect width="6" height="1.6" fill="#3d1a00" fill-opacity=".6"/></pattern>
<pattern id="vp-unknown" width="5" height="5" patternUnits="userSpaceOnUse"><rect width="5" height="5" fill="#cc79a7"/><rect width="1.4" height="5" fill="#5c1f41" fill-opacity=".6"/></pattern>
<pattern id="vp-undrawn" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><rect width="1" height="6" fill="#777777"/></pattern>
</defs></svg>`;

/** A legend swatch: the same fill the bars use. */
export function swatch(style: StageStyle): Markup {
  return html`<svg class="swatch" width="28" height="14" viewBox="0 0 28 14" aria-hidden="true"><rect x=".5" y=".5" width="27" height="13" rx="2" fill="url(#vp-${style.key})" class="seg s-${style.key}"/></svg>`;
}
