import { runCli } from './run.ts';

/** `npm run cli -- <command>`: provisioning and other operator commands (see src/cli/commands/). */

// Ctrl-C ends a watching command cleanly, its last exit code standing; any other command that
// has not ended a second later is ended as Ctrl-C would have (130).
const stop = new AbortController();
process.once('SIGINT', () => {
  stop.abort();
  setTimeout(() => process.exit(130), 1000).unref();
});
const code = await runCli(process.argv.slice(2), {
  signal: stop.signal,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
process.exitCode = code;
