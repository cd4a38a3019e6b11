import { migrateStore } from '../../store/migrate.ts';
import { UsageError, type CliCommand } from '../command.ts';

/** Operators' command: the store's schema and indexes, as an explicit step before a release starts. */
const commands: CliCommand[] = [
  {
    name: 'store migrate',
    summary:
      'Bring the store to this release’s schema: on MongoDB build every index (commitQuorum majority), move the previous schema’s data and set the schema version (processes refuse to start until then); on SQLite open it, which migrates it. Safe to run again.',
    options: {
      shard: { type: 'boolean', description: 'MongoDB through a mongos: shard the collections on the keys of src/store/mongo/layout.ts first.' },
    },
    async run(ctx, args) {
      const shard = args.values['shard'] === true;
      if (shard && !ctx.config.MONGO_URL) throw new UsageError('--shard needs MONGO_URL (a mongos of a sharded cluster)');
      return migrateStore(ctx.config, { shard, note: ctx.note });
    },
  },
];

export default commands;
