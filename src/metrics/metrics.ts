import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics, served at /metrics. One registry per process: each API,
 * pipeline or push process is scraped on its own, and Prometheus sums them.
 * Labels never carry a VIN, a key or any other personal data.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'cvd_' });

const registers = [registry];

export const metrics = {
  ingestMessages: new Counter({
    name: 'cvd_ingest_messages_total',
    help: 'Raw messages accepted for harmonization, per manufacturer and transport.',
    labelNames: ['manufacturer', 'transport'] as const,
    registers,
  }),
  ingestRejected: new Counter({
    name: 'cvd_ingest_rejected_total',
    help: 'Raw messages refused at the edge (bad signature, too large, queue unavailable), per manufacturer and reason.',
    labelNames: ['manufacturer', 'reason'] as const,
    registers,
  }),
  dataPointsStored: new Counter({
    name: 'cvd_data_points_stored_total',
    help: 'Harmonized data points stored (new ones; duplicates of redelivered messages are not counted), per manufacturer.',
    labelNames: ['manufacturer'] as const,
    registers,
  }),
  ingestToStored: new Histogram({
    name: 'cvd_ingest_to_stored_seconds',
    help: 'End-to-end latency of a raw message: from its reception (MQTT, HTTP or a poll) to its harmonized points stored, per manufacturer. Reprocessed messages are not counted.',
    labelNames: ['manufacturer'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  }),
  mappingFailures: new Counter({
    name: 'cvd_mapping_failures_total',
    help: 'Raw messages quarantined, per manufacturer and reason (decode, mapping, schema).',
    labelNames: ['manufacturer', 'reason'] as const,
    registers,
  }),
  mappingHandovers: new Counter({
    name: 'cvd_mapping_interpreter_handovers_total',
    help: 'Inputs of a compiled mapping that the JSONata interpreter evaluated instead (a case the compiled code does not model exactly, or a run over MAPPING_TIMEOUT_MS), per mapping file. A steady rise means the mapping runs at the interpreter\'s speed for those messages.',
    labelNames: ['mapping'] as const,
    registers,
  }),
  storeLatency: new Histogram({
    name: 'cvd_store_operation_seconds',
    help: 'Latency of store operations on the hot paths.',
    labelNames: ['operation'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  }),
  deliveryRequests: new Counter({
    name: 'cvd_delivery_requests_total',
    help: 'In-vehicle delivery requests, per outcome (ok, or the whole-request error status).',
    labelNames: ['outcome'] as const,
    registers,
  }),
  deliveryVehicleResults: new Counter({
    name: 'cvd_delivery_vehicle_results_total',
    help: 'Per-vehicle results of delivery requests: data, or the CAR.VE error code.',
    labelNames: ['result'] as const,
    registers,
  }),
  pushOutcomes: new Counter({
    name: 'cvd_push_deliveries_total',
    help: 'Webhook delivery attempts, per outcome (delivered, retrying, dead, dropped, disabled).',
    labelNames: ['outcome'] as const,
    registers,
  }),
  webhookLatency: new Histogram({
    name: 'cvd_webhook_request_seconds',
    help: 'Duration of webhook requests, per status class (2xx, 4xx, 5xx, error).',
    labelNames: ['status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  }),
  consentFunnel: new Counter({
    name: 'cvd_consent_transitions_total',
    help: 'Consent process transitions, per target state (the consent funnel).',
    labelNames: ['state'] as const,
    registers,
  }),
  periodicRuns: new Counter({
    name: 'cvd_periodic_runs_total',
    help: 'Runs of a periodic job in this process. history-retention, poll-reconcile and push-reconciler run once per interval for the whole installation (summed over the processes: one per interval); console-sampler in every process.',
    labelNames: ['job'] as const,
    registers,
  }),
  queueDepth: new Gauge({
    name: 'cvd_queue_jobs',
    help: 'Jobs per BullMQ queue and state, read at scrape time.',
    labelNames: ['queue', 'state'] as const,
    registers,
  }),
  httpRequestDuration: new Histogram({
    name: 'cvd_http_request_duration_seconds',
    help: 'Duration of HTTP requests from arrival to the last byte of the answer, per method, route (the route template, "unmatched" for URLs no route serves) and status class.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  }),
  dependencyUp: new Gauge({
    name: 'cvd_dependency_up',
    help: 'Whether a dependency answered its readiness check at scrape time (1) or not (0): store, redis, and what the process runs (broker).',
    labelNames: ['dependency'] as const,
    registers,
  }),
  quarantineSize: new Gauge({
    name: 'cvd_quarantine_messages',
    help: 'Raw messages currently in quarantine, read at scrape time.',
    registers,
  }),
};

/** Times an async operation into a histogram with the given labels. */
export async function timed<T>(histogram: Histogram<'operation'>, operation: string, fn: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer({ operation });
  try {
    return await fn();
  } finally {
    end();
  }
}
