/**
 * The consent flow's error codes (spec 7.2), delivered to the consumer as `error` on the
 * redirect (spec 4.2), never as an HTTP error of the confirmation call.
 */
export const FLOW_ERROR_CODES = [
  'scope_mismatch',
  'rejected',
  'invalid_request',
  'conflict',
  'connection_error',
  'communication_timeout',
  'access_denied',
] as const;
export type FlowErrorCode = (typeof FLOW_ERROR_CODES)[number];

/** A failed step of the flow: the code for the redirect and a text for people. */
export interface FlowError {
  code: FlowErrorCode;
  description: string;
}

export const flowError = (code: FlowErrorCode, description: string): FlowError => ({ code, description });
