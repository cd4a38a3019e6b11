import type { WindowState } from './fixed-window.ts';

/** Name of our one quota policy in the RateLimit headers. */
export const POLICY_NAME = 'default';

/**
 * The RateLimit header fields of draft-ietf-httpapi-ratelimit-headers (structured-field form,
 * not the older three-header naming): `RateLimit-Policy: "default";q=600;w=60` and
 * `RateLimit: "default";r=42;t=30`. `t` is the same number as Retry-After on a 429, so
 * Retry-After never points earlier than the reset.
 */
export function rateLimitHeaders(state: WindowState): Record<string, string> {
  return {
    'ratelimit-policy': `"${POLICY_NAME}";q=${state.limit};w=${state.windowS}`,
    ratelimit: `"${POLICY_NAME}";r=${state.remaining};t=${state.resetS}`,
  };
}
