import type { ConsentRecord } from '../store/contract.ts';
import { flowError, type FlowError } from './flow-errors.ts';
import type { PortalView } from './views.ts';
import { entryErrorRedirect, errorRedirect, type RedirectTarget } from './redirects.ts';

/** What a step of the browser flow answers: a 303 redirect, a message page, or the portal again. */
export type Outcome =
  | { kind: 'redirect'; location: string; record?: ConsentRecord }
  | { kind: 'page'; status: number; title: string; paragraphs: string[]; record?: ConsentRecord }
  | { kind: 'portal'; status: number; view: PortalView; record: ConsentRecord };

export const page = (status: number, title: string, ...paragraphs: string[]): Outcome => ({ kind: 'page', status, title, paragraphs });

export const PAGE_STATUS: Record<FlowError['code'], number> = {
  rejected: 200,
  access_denied: 200,
  scope_mismatch: 400,
  invalid_request: 400,
  conflict: 409,
  connection_error: 502,
  communication_timeout: 504,
};

/**
 * A portal entry that cannot start a process (spec 7.2 note 2): back to the consumer with
 * `invalid_request` when consumer, subscription and redirectUrl were valid (`backTo`); an error
 * page when a redirect could not be trusted (unknown party, redirectUrl not whitelisted) or none
 * was given.
 */
export function entryRefused(message: string, backTo: RedirectTarget | null): Outcome {
  if (backTo !== null && backTo.redirectUrl !== null) {
    return { kind: 'redirect', location: entryErrorRedirect(backTo, flowError('invalid_request', message)) };
  }
  return page(400, 'This consent request is not valid', message);
}

/**
 * A failed step: back to the consumer with `error` (spec 4.2, 7.2 note 2) when it gave a
 * redirectUrl, otherwise a page that says what happened.
 */
export function failure(record: ConsentRecord, error: FlowError): Outcome {
  if (record.redirectUrl !== null) return { kind: 'redirect', location: errorRedirect(record, error), record };
  const title = error.code === 'rejected' ? 'You rejected the request' : 'Your consent could not be completed';
  const again = error.code === 'rejected' ? 'No data will be shared.' : 'Please start again from the application that sent you here.';
  return { kind: 'page', status: PAGE_STATUS[error.code], title, paragraphs: [error.description, again], record };
}
