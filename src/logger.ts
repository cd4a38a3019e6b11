import pino, { type Logger } from 'pino';
import { redactUrl } from './redact-url.ts';

export type { Logger };

/**
 * Paths that may carry credentials. pino removes them from every log line, so an API key,
 * a confirmation code or a webhook secret never reaches the log, whatever logged it.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'signingSecret',
  '*.signingSecret',
  'code',
  '*.code',
  'authorization',
  '*.authorization',
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
];

export interface LoggerOptions {
  level: string;
  pretty: boolean;
  /** Where JSON lines go; tests pass a capture stream. Default: stdout. */
  destination?: pino.DestinationStream;
}

export function createLogger(opts: LoggerOptions): Logger {
  const base: pino.LoggerOptions = {
    level: opts.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    serializers: {
      req: (req: { id?: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.destination) return pino(base, opts.destination);
  if (opts.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}
