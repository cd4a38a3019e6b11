/**
 * Gauges read at scrape time rather than kept up to date (queue depths, quarantine size): the
 * /metrics route refreshes them before it answers. Built by the composition root
 * (src/main/queue-metrics.ts), which knows the queues.
 */
export interface ScrapeGauges {
  refresh(): Promise<void>;
  close(): Promise<void>;
}
