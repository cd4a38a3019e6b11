import { callbackUri, oauthClientSecret, resolveEndpoint } from '../../consent/index.ts';
import type { WingContext } from '../../http/wing-contract.ts';

/**
 * One simulated authorization server ("realm"), mounted at /oem/<realm>. The same code serves
 * the virtual manufacturer (/oem/virtual) and the fictional second one (/oem/borealis), each
 * with its own issuer, client registration and code space, so they behave like two separate
 * servers (and the consent service's mix-up defence can be tested between them).
 */
export interface Realm {
  id: string;
  issuer: string;
  /** Display name at the login page. */
  name: string;
  /** Items this manufacturer can grant (its manifest's items). */
  items: ReadonlySet<string>;
  clients: ReadonlyMap<string, RegisteredClient>;
}

export interface RegisteredClient {
  clientId: string;
  /** The one redirect URI registered for the client; compared by exact string match. */
  redirectUri: string;
  /** When set, the token endpoint requires HTTP Basic client authentication with it. */
  secret: string | undefined;
}

/**
 * The realm at `prefix` (e.g. "/oem/virtual"). Its client registrations come from the adapter
 * manifests whose authorization issuer is this realm: that is how a real manufacturer would
 * have registered this service as a client, with our per-manufacturer callback URI.
 */
export function realmAt(services: Pick<WingContext, 'adapters' | 'config'>, prefix: string): Realm {
  const id = prefix.split('/').filter(Boolean).at(-1) ?? 'virtual';
  const issuer = `${services.config.publicUrl}${prefix}`;
  const adapters = services.adapters.list().filter((a) => resolveEndpoint(services.config, a.manifest.authorization.issuer) === issuer);
  const clients = new Map<string, RegisteredClient>();
  for (const a of adapters) {
    clients.set(a.manifest.authorization.clientId, {
      clientId: a.manifest.authorization.clientId,
      redirectUri: callbackUri(services.config, a.manifest.id),
      secret: oauthClientSecret(services.config, a),
    });
  }
  return {
    id,
    issuer,
    name: adapters[0]?.manifest.name ?? `Manufacturer ${id}`,
    items: new Set(adapters.flatMap((a) => a.manifest.items)),
    clients,
  };
}
