/**
 * The consent part's public surface for code outside the service's own HTTP routes: what a
 * manufacturer's authorization server must agree with (the callback URI, the client secret,
 * the scope that only verifies the vehicle, PKCE's S256) and which consents count as active
 * (the pages' look is the HTTP layer's, src/http/pages/). Callers import from here, not from the
 * files behind it, so those can change without touching them (the virtual wing does).
 */
export { callbackUri, oauthClientSecret, resolveEndpoint } from './manufacturer-auth.ts';
export { s256, safeEqual } from './secrets.ts';
export { VERIFY_SCOPE } from './scope.ts';
export { ACTIVE_CONSENT_STATES } from './states.ts';
