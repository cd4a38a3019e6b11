/**
 * `npm run try:receiver`: a webhook receiver for the local try-out (README "Try it"), playing the
 * consumer's application. It listens on 127.0.0.1 (RECEIVER_PORT, default any free port),
 * registers itself as the subscription's webhook with the typed client (PUT /push/v1/webhook),
 * keeps the signing secret from that answer, and verifies every push with the client's
 * verifyWebhook before printing it. Settings from the environment: CVD_API_KEY and
 * CVD_SUBSCRIPTION_ID (the demo block of `npm start` sets them), CVD_URL (default
 * http://localhost:8080). Ctrl-C stops it; the webhook stays registered.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, CvdApiError, verifyWebhook, type WebhookPayload } from '../clients/typescript/src/index.ts';

interface Push {
  test?: boolean;
  type?: string;
  inVehicleResponse?: { inVehicleData: { identifier: { value: string }; response: Record<string, unknown> }[] };
}

/** One line saying what arrived: the VIN and item of a data push, or the notice type. */
export function summary(push: Push): string {
  const entry = push.inVehicleResponse?.inVehicleData[0];
  if (!entry) return push.type ?? 'a push';
  return `${entry.identifier.value} ${Object.keys(entry.response).join(', ')}${push.test ? ' (test event)' : ''}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const { CVD_API_KEY: apiKey, CVD_SUBSCRIPTION_ID: subscriptionId } = process.env;
  const baseUrl = process.env.CVD_URL ?? 'http://localhost:8080';
  const port = Number(process.env.RECEIVER_PORT ?? '0');
  if (!apiKey || !subscriptionId) {
    console.error('Set CVD_API_KEY and CVD_SUBSCRIPTION_ID first: the demo block `npm start` printed has the line to paste.');
    process.exit(2);
  }
  let secret = '';
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    try {
      const push = await verifyWebhook<WebhookPayload & Push>(secret, req.headers, body);
      console.log(`✓ ${new Date().toISOString()} verified push ${String(req.headers['webhook-id'])}: ${summary(push)}`);
      console.log(JSON.stringify(push, null, 2));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    } catch (err) {
      console.log(`✗ ${new Date().toISOString()} refused a request: ${(err as Error).message}`);
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"received":false}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use: set RECEIVER_PORT to another port (0: any free one).`) : err),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const client = createClient({ baseUrl, apiKey, subscriptionId });
  try {
    secret = (await client.request('put', '/push/v1/webhook', { body: { url } })).signingSecret;
  } catch (err) {
    server.close();
    // The service's own words: a refused loopback URL names the setting that allows it.
    throw new Error(err instanceof CvdApiError ? `Registering ${url} as the webhook failed: ${err.message}` : `${baseUrl} did not answer: ${(err as Error).message}`);
  }
  console.log(`Listening on ${url}, registered as the webhook of subscription ${subscriptionId}.`);
  console.log('Every push is verified with its signing secret before it is printed. Ctrl-C stops.');
  process.once('SIGINT', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1]?.endsWith('try-receiver.ts')) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
