// prom-client's default metric modules, which it ships without typings of their own (see
// src/server/process-metrics.ts): each registers its metrics in the registry it is given.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const register: (registry: Registry, config: { eventLoopMonitoringPrecision?: number }) => void;
  export default register;
}
