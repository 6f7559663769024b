// The physical limit of this stack: a bare Fastify HTTPS server with the same TLS certificates
// and body limit that parses the same AdmissionReview and answers a constant "allowed".
// Usage: node bench/baseline-server.js CERT KEY [PORT]  → prints {"port":N} when listening.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [cert, key, port = '0'] = process.argv.slice(2);
const app = Fastify({
  logger: false,
  bodyLimit: 7 * 1024 * 1024,
  https: { cert: readFileSync(cert), key: readFileSync(key), minVersion: 'TLSv1.2' },
});
for (const path of ['/validate', '/mutate']) {
  app.post(path, async (req) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: req.body.request.uid, allowed: true },
  }));
}
app.get('/readyz', async () => 'ok');
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
