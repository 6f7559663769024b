// A request caught in flight: headers and half the body sent, the rest held back until `finish()`.
// The server has accepted it (its onRequest hook ran) but cannot answer until the body completes,
// which is how a test holds requests open across a shutdown without slowing the server down.
import https from 'node:https';
import type { Agent } from 'node:https';

export interface HeldRequest {
  /** The answer, whether or not the body was finished (rejects if the server cuts the connection). */
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
  /** Sends the rest of the body; resolves with the answer. */
  finish(): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
}

export function holdRequest(
  port: number,
  ca: string,
  path: string,
  body: string,
  agent: Agent | false = false,
): HeldRequest {
  const half = Math.floor(body.length / 2);
  const req = https.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    ca,
    agent,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
    (resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.on('error', reject);
    },
  );
  // Observed here so an abandoned request's hang-up is not an unhandled rejection.
  answer.catch(() => undefined);
  req.write(body.slice(0, half));
  return {
    response: answer,
    finish: () => {
      req.end(body.slice(half));
      return answer;
    },
  };
}
