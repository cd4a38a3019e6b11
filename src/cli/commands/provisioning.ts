import type { CliArgs, CliCommand, CliContext } from '../command.ts';
import { requiredString, stringList, UsageError } from '../command.ts';
import { unknownNames } from '../did-you-mean.ts';
import {
  addApiKey,
  createConsumer,
  createSubscription,
  getConsumer,
  getSubscription,
  listApiKeys,
  listConsumers,
  listSubscriptions,
  revokeApiKey,
  type ProvisioningDeps,
} from '../../provisioning/index.ts';
import type { LegalBasis } from '../../store/contract.ts';

async function deps(ctx: CliContext): Promise<ProvisioningDeps> {
  return { store: await ctx.store(), catalog: await ctx.catalog(), clock: ctx.clock };
}

async function storeOnly(ctx: CliContext) {
  return { store: await ctx.store(), clock: ctx.clock };
}

const consumerOption = { consumer: { type: 'string', description: 'The consumerId.' } } as const;

function subscriptionItems(args: CliArgs, all: string[]): string[] {
  const items = stringList(args, 'items');
  if (args.values['all-items'] === true) {
    if (items) throw new UsageError('use either --items or --all-items, not both');
    return all;
  }
  if (!items || items.length === 0) throw new UsageError('--items (comma-separated technical names) or --all-items is required');
  return items;
}

/** Provisioning of consumers, API keys and subscriptions: the admin API's operations. */
const commands: CliCommand[] = [
  {
    name: 'consumers create',
    summary: 'Create a consumer and its first API key (the key is shown only once).',
    options: { name: { type: 'string', description: "The consumer's display name." } },
    run: async (ctx, args) => createConsumer(await storeOnly(ctx), requiredString(args, 'name')),
  },
  {
    name: 'consumers list',
    summary: 'List consumers.',
    run: async (ctx) => listConsumers(await storeOnly(ctx)),
  },
  {
    name: 'consumers get',
    summary: 'Show one consumer.',
    positionals: { synopsis: '<consumerId>', min: 1, max: 1 },
    run: async (ctx, args) => getConsumer(await storeOnly(ctx), args.positionals[0]!),
  },
  {
    name: 'keys create',
    summary: 'Create a further API key for a consumer (older keys keep working until revoked).',
    options: consumerOption,
    run: async (ctx, args) => addApiKey(await storeOnly(ctx), requiredString(args, 'consumer')),
  },
  {
    name: 'keys list',
    summary: "List a consumer's API keys (never the keys themselves).",
    options: consumerOption,
    run: async (ctx, args) => listApiKeys(await storeOnly(ctx), requiredString(args, 'consumer')),
  },
  {
    name: 'keys revoke',
    summary: 'Revoke an API key at once.',
    options: { ...consumerOption, key: { type: 'string', description: 'The keyId (from `keys list`).' } },
    run: async (ctx, args) => {
      const { key, revokedNow } = await revokeApiKey(await storeOnly(ctx), requiredString(args, 'consumer'), requiredString(args, 'key'));
      return { ...key, revokedNow };
    },
  },
  {
    name: 'subscriptions create',
    summary: 'Create a subscription for a consumer.',
    options: {
      ...consumerOption,
      items: { type: 'string', multiple: true, description: 'Data items (technical names), comma-separated or repeated.' },
      'all-items': { type: 'boolean', description: 'Subscribe to every catalog item.' },
      'redirect-url': { type: 'string', multiple: true, description: 'An allowed redirect URL (repeatable; https, or http on loopback).' },
      'legal-basis': { type: 'string', description: 'CONSENT (default), CONTRACT or LEGITIMATE_INTEREST.' },
    },
    run: async (ctx, args) => {
      const d = await deps(ctx);
      const all = d.catalog.list().map((e) => e.technicalName);
      const dataItems = subscriptionItems(args, all);
      const unknown = unknownNames('data items', dataItems, all);
      if (unknown) throw new UsageError(unknown);
      const legalBasis = args.values['legal-basis'];
      return createSubscription(d, {
        consumerId: requiredString(args, 'consumer'),
        dataItems,
        allowedRedirectUrls: (args.values['redirect-url'] as string[] | undefined) ?? [],
        ...(typeof legalBasis === 'string' ? { legalBasis: legalBasis as LegalBasis } : {}),
      });
    },
  },
  {
    name: 'subscriptions list',
    summary: "List subscriptions, or one consumer's.",
    options: consumerOption,
    run: async (ctx, args) => {
      const consumerId = args.values['consumer'];
      return listSubscriptions(await storeOnly(ctx), typeof consumerId === 'string' ? { consumerId } : {});
    },
  },
  {
    name: 'subscriptions get',
    summary: 'Show one subscription.',
    positionals: { synopsis: '<subscriptionId>', min: 1, max: 1 },
    run: async (ctx, args) => getSubscription(await storeOnly(ctx), args.positionals[0]!),
  },
];

export default commands;
