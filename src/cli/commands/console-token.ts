import { tryOutAdminToken } from '../../main/try-out-console.ts';
import type { CliCommand } from '../command.ts';

/** The try-out's console token again, for a start after the one that printed the demo block. */
const commands: CliCommand[] = [
  {
    name: 'console token',
    summary: 'Print the admin token the local try-out generated for its console (derived from DATA_DIR/secret.key); nothing when ADMIN_TOKEN is set or outside the try-out',
    async run(ctx) {
      const token = tryOutAdminToken(ctx.config);
      if (!token) {
        ctx.exitCode = 1;
        ctx.note(ctx.config.ADMIN_TOKEN ? 'ADMIN_TOKEN is set: sign in to the console with it.' : 'Not the local try-out (DEMO_SEED is off): set ADMIN_TOKEN to turn the console on.');
        return undefined;
      }
      ctx.note(`sign in at ${ctx.config.publicUrl}/console with this token`);
      return { console: `${ctx.config.publicUrl}/console`, token };
    },
  },
];

export default commands;
