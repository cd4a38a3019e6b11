import type { ConsentRecord } from '../store/contract.ts';
import type { FlowError } from './flow-errors.ts';

/**
 * The redirects back to the consumer (spec 4.2). The base is the process's redirectUrl, which
 * was checked against the subscription's whitelist by exact string comparison when the process
 * started; parameters are appended with URLSearchParams, so nothing the user or a manufacturer
 * sends can change where the browser goes. The consumer's `state` is echoed on every redirect.
 */
function build(record: ConsentRecord, params: [string, string][]): string {
  if (record.redirectUrl === null) throw new Error('process has no redirectUrl');
  const url = new URL(record.redirectUrl);
  for (const [k, v] of params) url.searchParams.append(k, v);
  if (record.consumerState !== null) url.searchParams.append('state', record.consumerState);
  return url.toString();
}

export function successRedirect(record: ConsentRecord, code: string): string {
  return build(record, [
    ['code', code],
    ['consent_id', record.consentId],
  ]);
}

/** `consent_id` is present whenever the user had already consented at the portal. */
export function errorRedirect(record: ConsentRecord, error: FlowError): string {
  const params: [string, string][] = [
    ['error', error.code],
    ['error_description', error.description],
  ];
  if (record.consentGivenAt !== null) params.push(['consent_id', record.consentId]);
  return build(record, params);
}
