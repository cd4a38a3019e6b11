import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isPublicAddress } from './ip.ts';
import type { Resolver } from './resolver.ts';

/** A connection refused by the SSRF guard: the target resolved to a non-public address. */
export class BlockedTargetError extends Error {
  readonly code = 'ERR_PUSH_TARGET_BLOCKED';
  constructor(host: string) {
    super(`target ${host} resolves to a loopback, private or reserved address`);
    this.name = 'BlockedTargetError';
  }
}

export interface GuardedAgentOptions {
  allowPrivate: boolean;
  resolve: Resolver;
  connectTimeoutMs: number;
  /** Sockets kept per origin (keep-alive makes thousands of deliveries a second possible). */
  connections?: number;
}

/**
 * An undici Agent whose every new connection is guarded (the SSRF protection's second
 * layer): the host is resolved here, every A/AAAA answer must be public, and the socket is
 * opened to the address that was checked, never to a name resolved again later. A DNS answer
 * that changes between registration and delivery (rebinding) is therefore judged on the
 * address actually dialled. TLS still verifies the certificate against the original name,
 * because undici derives SNI and the identity check from the URL's host, not from `hostname`.
 */
export function createGuardedAgent(opts: GuardedAgentOptions): Agent {
  const connector = buildConnector({ timeout: opts.connectTimeoutMs });
  const connect: buildConnector.connector = (options, callback) => {
    pickAddress(options.hostname, opts).then(
      (address) => connector({ ...options, hostname: address }, callback),
      (err: Error) => callback(err, null),
    );
  };
  return new Agent({
    connect,
    connections: opts.connections ?? 64,
    keepAliveTimeout: 4_000,
    // One request at a time per socket: a slow receiver must not hold up the ones behind it.
    pipelining: 1,
  });
}

async function pickAddress(hostname: string, opts: GuardedAgentOptions): Promise<string> {
  if (isIP(hostname)) {
    if (!opts.allowPrivate && !isPublicAddress(hostname)) throw new BlockedTargetError(hostname);
    return hostname;
  }
  const answers = await opts.resolve(hostname);
  const first = answers[0];
  if (!first) throw new Error(`host ${hostname} does not resolve`);
  // Any non-public answer refuses the host: picking only the public ones would let an attacker
  // mix answers and win a race on the client's next lookup elsewhere.
  if (!opts.allowPrivate && answers.some((a) => !isPublicAddress(a.address))) throw new BlockedTargetError(hostname);
  return first.address;
}
