// The page's one stylesheet, inline. System fonts only (no download); the colours live in the SVG
// patterns (stages.ts). Print keeps the colours and patterns and does not split a chart.
import { Markup } from './html-template.js';

/** Markup, not text: inside <style> an entity is not decoded, so quotes must stay quotes. */
export const PAGE_CSS = new Markup(`
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1b1b1b; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", "DejaVu Sans", Helvetica, Arial, system-ui, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 20px 24px 32px; }
h1 { font-size: 21px; margin: 0 0 2px; }
h2 { font-size: 15px; margin: 20px 0 6px; }
q { quotes: "\\201C" "\\201D"; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
.meta { color: #4a4a4a; margin: 0 0 8px; }
.profile + .profile { margin-top: 40px; border-top: 2px solid #1b1b1b; padding-top: 16px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; list-style: none; margin: 8px 0 10px; padding: 8px 12px; border: 1px solid #d6d6d6; border-radius: 6px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { flex: none; }
.pill { background: #1b1b1b; color: #fff; font-weight: 700; font-size: 11px; padding: 1px 8px; border-radius: 9px; }
.state { margin: 8px 0; padding: 6px 12px; border-left: 4px solid #0072b2; background: #eef5fb; }
.state.none { border-left-color: #d55e00; background: #fcf1e9; }
.warnings { margin: 10px 0; padding: 2px 12px 4px; border-left: 4px solid #d55e00; background: #fcf1e9; }
.warnings h2, .notes h2 { margin-top: 8px; }
.warnings ul, .notes ul { margin: 4px 0 8px; padding-left: 20px; }
.list { margin-top: 6px; }
.more { color: #4a4a4a; font-style: italic; }
svg.chart { display: block; width: 100%; height: auto; }
.chart text { font-size: 11px; fill: #1b1b1b; }
.chart .band { fill: #ededed; }
.chart .band-label { font-weight: 700; }
.chart .band-count { fill: #4a4a4a; }
.chart .stripe { fill: #f7f7f7; }
.chart .version { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; text-anchor: end; }
.chart .axis-line { stroke: #8c8c8c; }
.chart .tick { stroke: #d0d0d0; }
.chart .tick-label { fill: #4a4a4a; font-size: 10.5px; }
.chart .seg { stroke: #fff; stroke-width: 1; }
.chart .seg-label { text-anchor: middle; font-size: 10.5px; font-weight: 700; fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.chart .now line { stroke: #111; stroke-width: 2; }
.step.k-forced path { fill: #111; stroke: #fff; stroke-width: 1; }
.step.k-failure path { fill: #fff; stroke: #a33b00; stroke-width: 2; }
.step .bang { font-size: 8px; font-weight: 700; fill: #a33b00; text-anchor: middle; }
.step.k-auto path, .step.trap circle:not(.trap-ring) { fill: #0072b2; stroke: #fff; stroke-width: 1; }
.trap-ring, .step.trap .trap-ring { fill: none; stroke: #cc79a7; stroke-width: 2.2; }
.chart .step-count { font-size: 10px; font-weight: 700; fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.chart .marks-left { font-size: 10px; fill: #4a4a4a; }
.extended line { stroke: #111; stroke-width: 1.5; stroke-dasharray: 2 2; }
.extended-strip { fill: #d55e00; fill-opacity: .8; }
.chart .extended-label { font-size: 8.5px; font-weight: 700; fill: #005a8c; paint-order: stroke; stroke: #fff; stroke-width: 2.5px; }
.fails { color: #a33b00; font-weight: 700; }
.badge { font-size: 11px; font-weight: 700; padding: 0 7px; border-radius: 8px; background: #ededed; }
.badge.fails { background: #fcf1e9; }
.badge.trap { background: #f6e6f0; color: #7a2a57; }
.forecast details { border-bottom: 1px solid #dedede; padding: 3px 0; }
.forecast summary { cursor: pointer; }
.forecast ol { margin: 4px 0 8px; padding-left: 24px; }
.chain-step { margin: 2px 0; }
.chain-step .date { font-weight: 700; white-space: nowrap; }
.chain-step .mode { font-variant: small-caps; }
.chain-step.k-failure { background: #fcf1e9; }
:target { outline: 2px solid #0072b2; outline-offset: 2px; }
.extended-expiries table { border-collapse: collapse; }
.extended-expiries th, .extended-expiries td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid #dedede; }
.extended-by { font-weight: 700; color: #005a8c; }
.chart .seg.s-unavailable, .swatch .s-unavailable { stroke: #8c8c8c; stroke-dasharray: 3 2; }
.chart .now-label { text-anchor: middle; font-weight: 700; }
.chart .count text { fill: #6b6b6b; }
.chart .count.in-use rect { fill: #1b1b1b; }
.chart .count.in-use text { fill: #fff; font-weight: 700; }
.chart .more { fill: #4a4a4a; font-style: italic; }
.users { list-style: none; margin: 4px 0 0; padding: 0; columns: 2 320px; font-size: 12px; }
.users li { break-inside: avoid; padding: 1px 0; }
.users .version { font-family: ui-monospace, monospace; font-weight: 700; margin-right: 4px; }
.updates table { border-collapse: collapse; width: 100%; }
.updates .shoot { font-weight: 700; }
.updates th, .updates td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #dedede; }
.updates th { border-bottom: 2px solid #8c8c8c; }
.updates .fails { color: #a33b00; font-weight: 700; }
.updates .date { font-weight: 700; white-space: nowrap; }
.updates .details { color: #4a4a4a; font-size: 12px; }
.index { border-collapse: collapse; margin-top: 10px; }
.index th, .index td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid #dedede; }
.index th { border-bottom: 2px solid #8c8c8c; }
.index .n { text-align: right; font-variant-numeric: tabular-nums; }
.index .forced.nonzero { font-weight: 700; }
.index .failing.nonzero { color: #a33b00; font-weight: 700; }
footer { margin-top: 28px; color: #6b6b6b; font-size: 12px; }
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 11px; }
  main { max-width: none; padding: 0; }
  .list, .updates tr, .legend { break-inside: avoid; }
  .profile + .profile { break-before: page; }
}
`);
