/** Types for `parse-prometheus-text-format`, which ships none: the prom2json shape it returns. */
declare module 'parse-prometheus-text-format' {
  /** One sample of a counter or gauge; a histogram's sample has buckets, count and sum. */
  export interface PrometheusSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  /** One metric family: its name, help, type and samples. */
  export interface PrometheusFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PrometheusSample[];
  }
  /** Parses the Prometheus text exposition format; throws on text it cannot read. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
