// version_policy_certificate_expiry_timestamp_seconds for every certificate source: set from the
// pair served at start and from every pair the source hands over later.
import type { Gauge } from 'prom-client';
import type { CertificateSource, TlsMaterial } from './certificate-source.js';

export function trackCertificateExpiry(gauge: Gauge<'certificate'>, source: CertificateSource): void {
  const record = (m: TlsMaterial) => {
    gauge.set({ certificate: 'serving' }, Date.parse(m.notAfter) / 1000);
    if (m.caNotAfter) gauge.set({ certificate: 'ca' }, Date.parse(m.caNotAfter) / 1000);
  };
  record(source.current());
  source.onChange(record);
}
