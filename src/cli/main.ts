import { runCli } from './run.ts';

/** `npm run cli -- <command>`: provisioning and other operator commands (see src/cli/commands/). */
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
process.exitCode = code;
