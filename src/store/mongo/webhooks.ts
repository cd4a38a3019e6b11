import type { Db } from 'mongodb';
import type { WebhookRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the WebhookRepo. Creates its indexes before it is used. */
export async function createMongoWebhookRepo(_db: Db): Promise<WebhookRepo> {
  return notImplemented<WebhookRepo>('mongo.webhooks');
}
