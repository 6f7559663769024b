import t from '../helpers/parts.js';
import { renderError } from '../helpers/helm.js';

// Helm 3.22 and 4 report schema errors as `at '/json/pointer': …`.
const SCHEMA_ERROR = /values don't meet the specifications of the schema/;

const refused: [string, string[], RegExp][] = [
  [
    'an unknown certs.mode',
    ['certs.mode=vault'],
    /at '\/certs\/mode': value must be one of 'selfManaged', 'certManager', 'provided', 'selfSigned'/,
  ],
  ['a CPU limit', ['resources.limits.cpu=1'], /at '\/resources\/limits': additional properties 'cpu' not allowed/],
  ['an unknown top-level key', ['replicas=3'], /additional properties 'replicas' not allowed/],
  ['a failurePolicy the API does not know', ['webhook.failurePolicy=Never'], /at '\/webhook\/failurePolicy'/],
  [
    'a timeout past the API maximum of 30 s',
    ['webhook.timeoutSeconds=31'],
    /at '\/webhook\/timeoutSeconds': maximum: got 31, want 30/,
  ],
  ['provided mode without a Secret and caBundle', ['certs.mode=provided'], /at '\/certs\/provided\/secretName'/],
  ['running as root', ['podSecurityContext.runAsUser=0'], /at '\/podSecurityContext\/runAsUser'/],
  ['zero replicas', ['replicaCount=0'], /at '\/replicaCount'/],
];

for (const [what, set, message] of refused) {
  t.test(`values.schema.json refuses ${what}`, async (t) => {
    const stderr = await renderError({ set });
    t.match(stderr, SCHEMA_ERROR);
    t.match(stderr, message);
  });
}
