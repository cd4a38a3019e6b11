/**
 * The consent part's public surface for code outside the service's own HTTP routes: what a
 * manufacturer's authorization server must agree with (the callback URI, the client secret,
 * the scope that only verifies the vehicle, PKCE's S256), which consents count as active, and
 * the pages the consent flow's look is built from. Callers import from here, not from the
 * files behind it, so those can change without touching them (the virtual wing does).
 */
export { callbackUri, oauthClientSecret, resolveEndpoint } from './manufacturer-auth.ts';
export { s256, safeEqual } from './secrets.ts';
export { VERIFY_SCOPE } from './scope.ts';
export { ACTIVE_CONSENT_STATES } from './states.ts';
export { pageHeaders } from './pages/headers.ts';
export { html } from './pages/html.ts';
export { renderPage } from './pages/layout.ts';
export { renderMessagePage } from './pages/message-page.ts';
