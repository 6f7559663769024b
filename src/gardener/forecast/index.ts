// Gardener's maintenance semantics over time: every Shoot's version steps, window by window, and
// the failures ahead. Pure: the state and `now` come in, the forecast goes out.
export { eventsByVersion, type VersionEvent, versionKey } from './by-version.js';
export { type ChangeKind, diffForecasts, type ForecastChange } from './diff.js';
export { forecastEach, forecastFleet, type ShootOutcome } from './fleet.js';
export { autoUpdateOf, componentText, forecastShoot } from './shoot.js';
export { RANDOM_WINDOW } from './runs.js';
export * from './types.js';
