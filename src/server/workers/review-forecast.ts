// The forecast of one admission review, in the landscape worker: the review's own bytes decoded,
// mapped and mutated by the same functions as on the event loop, on the mirror as it was when the
// review asked, at the review's instant, with its config. So the answer is the one evaluate() computes in-process,
// and the event loop pays only for copying the body.
import { decodeBodyIncrementally } from '../../admission/body.js';
import { toPolicyRequest } from '../../admission/request.js';
import type { Config } from '../../config.js';
import { beginEvaluation } from '../../policy/evaluate.js';
import type { ForecastAnswer } from '../../policy/warnings/forecast.js';
import type { TaskContext } from './worker.js';

export interface ReviewForecastInput {
  /** The request body as it arrived (only unencoded bodies are judged). */
  body: Uint8Array;
  contentType: string | undefined;
  /** The review's instant (epoch ms). */
  now: number;
  /** The config the event loop judges the review with. */
  config: Config;
  /** Past this (performance.timeOrigin + now(), both threads' one clock), the event loop has stopped waiting. */
  deadline: number;
}

const NONE: ForecastAnswer = { findings: [], skippedGroups: 0 };

export async function reviewForecast(input: ReviewForecastInput, ctx: TaskContext): Promise<ForecastAnswer> {
  if (performance.timeOrigin + performance.now() > input.deadline) return { unavailable: 'too late' }; // no one reads it
  const bytes = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const decoded = await decodeBodyIncrementally(bytes, { contentType: input.contentType, contentEncoding: undefined });
  // The event loop judged the same bytes and asked: a review it would refuse never gets here.
  if (!decoded.ok || decoded.problems.length > 0) return NONE;
  const mapped = toPolicyRequest(decoded.review.request);
  if (mapped.outcome !== 'policed') return NONE;
  return beginEvaluation(mapped.request, { now: input.now, config: input.config, state: ctx.state }).forecast();
}
