/**
 * `plant-store/otel`: the store's diagnostics channels as OpenTelemetry spans and metrics. Needs
 * `@opentelemetry/api` and `@opentelemetry/instrumentation`; the host brings the SDK.
 * @module
 */

export type { PlantStoreInstrumentationConfig } from './otel/plant-store-instrumentation.ts';
export { PlantStoreInstrumentation } from './otel/plant-store-instrumentation.ts';
