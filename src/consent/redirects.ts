import type { ConsentRecord } from '../store/contract.ts';
import type { FlowError } from './flow-errors.ts';

/**
 * The redirects back to the consumer (spec 4.2). The base is the process's redirectUrl, which
 * was checked against the subscription's whitelist by exact string comparison when the process
 * started; parameters are appended with URLSearchParams, so nothing the user or a manufacturer
 * sends can change where the browser goes. The consumer's `state` is echoed on every redirect.
 */
export type RedirectTarget = Pick<ConsentRecord, 'redirectUrl' | 'consumerState'>;

function build(target: RedirectTarget, params: [string, string][]): string {
  if (target.redirectUrl === null) throw new Error('process has no redirectUrl');
  const url = new URL(target.redirectUrl);
  for (const [k, v] of params) url.searchParams.append(k, v);
  if (target.consumerState !== null) url.searchParams.append('state', target.consumerState);
  return url.toString();
}

export function successRedirect(record: ConsentRecord, code: string): string {
  return build(record, [
    ['code', code],
    ['consent_id', record.consentId],
  ]);
}

const errorParams = (error: FlowError): [string, string][] => [
  ['error', error.code],
  ['error_description', error.description],
];

/** `consent_id` is present whenever the user had already consented at the portal. */
export function errorRedirect(record: ConsentRecord, error: FlowError): string {
  const params = errorParams(error);
  if (record.consentGivenAt !== null) params.push(['consent_id', record.consentId]);
  return build(record, params);
}

/**
 * An error found at the portal's entry, before a process exists (so never a `consent_id`). The
 * target's redirectUrl was checked against the whitelist already (src/consent/portal-request.ts).
 */
export function entryErrorRedirect(target: RedirectTarget, error: FlowError): string {
  return build(target, errorParams(error));
}
