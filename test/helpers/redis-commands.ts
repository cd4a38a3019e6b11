import { Cluster, Redis } from 'ioredis';

/** One command a connection of this process sent, with the keys Redis will hash. */
export interface SentCommand {
  name: string;
  keys: string[];
  /** The pipeline or transaction it was sent in (one object per exec), if any. */
  batch?: object;
}

interface Sendable {
  sendCommand(command: { name: string; getKeys(): (string | Buffer)[] }, stream?: object, ...rest: unknown[]): unknown;
}

/**
 * Records every command every ioredis connection of this process sends (BullMQ's included: it
 * runs on ioredis), with its keys as ioredis computes them for cluster routing (a script's from
 * its numkeys), until `stop`. A pipeline or a MULTI/EXEC sends its commands with one stream
 * object per exec, which marks them as one batch.
 */
export function recordRedisCommands(): { commands: SentCommand[]; stop(): void } {
  const commands: SentCommand[] = [];
  const patched: [Sendable, Sendable['sendCommand']][] = [];
  for (const proto of [Redis.prototype, Cluster.prototype] as unknown as Sendable[]) {
    const original = proto.sendCommand;
    patched.push([proto, original]);
    proto.sendCommand = function (this: Sendable, command, stream, ...rest) {
      try {
        const keys = command.getKeys().map((k) => (Buffer.isBuffer(k) ? k.toString('latin1') : String(k)));
        commands.push({ name: command.name, keys, ...(stream && typeof stream === 'object' ? { batch: stream } : {}) });
      } catch {
        commands.push({ name: command.name, keys: [] });
      }
      return original.call(this, command, stream, ...rest);
    };
  }
  return {
    commands,
    stop() {
      for (const [proto, original] of patched) proto.sendCommand = original;
    },
  };
}
