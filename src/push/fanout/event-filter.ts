import type { WebhookRecord } from '../../store/contract.ts';

/** The endpoint's event filter: every push item when it has none (as before there were filters). */
export function admitsEvent(webhook: Pick<WebhookRecord, 'events'>, item: string): boolean {
  return webhook.events === undefined || webhook.events.includes(item);
}
