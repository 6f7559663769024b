import t from 'tap';
import { renderError } from '../helpers/helm.js';

const SCHEMA_ERROR = /values don't meet the specifications of the schema/;

const refused: [string, string[], RegExp][] = [
  ['an unknown certs.mode', ['certs.mode=vault'], /certs\.mode must be one of the following: "selfManaged", "certManager", "provided", "selfSigned"/],
  ['a CPU limit', ['resources.limits.cpu=1'], /resources\.limits: Additional property cpu is not allowed/],
  ['an unknown top-level key', ['replicas=3'], /Additional property replicas is not allowed/],
  ['a failurePolicy the API does not know', ['webhook.failurePolicy=Never'], /webhook\.failurePolicy/],
  ['a timeout past the API maximum of 30 s', ['webhook.timeoutSeconds=31'], /webhook\.timeoutSeconds/],
  ['provided mode without a Secret and caBundle', ['certs.mode=provided'], /certs\.provided\.secretName/],
  ['running as root', ['podSecurityContext.runAsUser=0'], /podSecurityContext\.runAsUser/],
  ['zero replicas', ['replicaCount=0'], /replicaCount/],
];

for (const [what, set, message] of refused) {
  t.test(`values.schema.json refuses ${what}`, async (t) => {
    const stderr = await renderError({ set });
    t.match(stderr, SCHEMA_ERROR);
    t.match(stderr, message);
  });
}
