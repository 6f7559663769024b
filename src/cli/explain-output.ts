// `explain` output: aligned text tables per profile, the same data as JSON, or the timeline page
// as HTML. The renderers live in src/report/, where the server's /profiles pages use them too.
import type { ExplainReport } from '../report/version-report.js';
import { formatInstant } from '../gardener/versions.js';
import type { ExplainedProfile } from '../report/profile.js';
import { renderExplainText } from '../report/text.js';
import { renderTimelinePage } from '../report/timeline-page.js';
import type { TimelineWindow } from '../report/window.js';

export const OUTPUT_FORMATS = ['text', 'json', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Every profile of the file, explained at one instant. */
export interface Explained {
  now: number;
  profiles: ExplainedProfile[];
  /** False without --state or --cluster. */
  stateKnown: boolean;
}

export function renderExplain(explained: Explained, format: OutputFormat, window: TimelineWindow): string {
  if (format === 'html')
    return renderTimelinePage({
      profiles: explained.profiles,
      now: explained.now,
      window,
      stateKnown: explained.stateKnown,
    });
  const report: ExplainReport = {
    now: formatInstant(explained.now),
    profiles: explained.profiles.map((p) => p.report),
  };
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  return renderExplainText(report);
}
