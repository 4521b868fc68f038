/**
 * `plant-store/otel`: `PlantStoreInstrumentation`, OpenTelemetry spans and metrics from the
 * store's diagnostics channels. Needs the optional peer dependencies `@opentelemetry/api` and
 * `@opentelemetry/instrumentation`; the host brings the SDK and its exporters.
 *
 * @module
 */

export type { PlantStoreInstrumentationConfig } from './otel/plant-store-instrumentation.ts';
export { PlantStoreInstrumentation } from './otel/plant-store-instrumentation.ts';
