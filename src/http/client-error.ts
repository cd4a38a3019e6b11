import type { ConnectionError, FastifyInstance } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBodyFor, JSON_UTF8 } from './error-body.ts';

const REQUEST_LINE = /^([A-Z]{1,20}) (\/[\x21-\x7e]{0,2048}) HTTP\/1\.[01]\r?$/;

/**
 * Method and path from the raw request line Node read before it gave up (`rawPacket`), when
 * there is a readable one. The packet may hold an API key in its headers, so it is never logged.
 */
export function requestLine(raw: unknown): { method: string; url: string } {
  const first = Buffer.isBuffer(raw) ? (raw.subarray(0, 2200).toString('latin1').split('\n', 1)[0] ?? '') : '';
  const m = REQUEST_LINE.exec(first);
  return m ? { method: m[1]!, url: m[2]! } : { method: '', url: '' };
}

function classify(code: string | undefined): { status: number; text: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, text: 'Request header fields too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, text: 'Request timeout.' };
    default:
      return { status: 400, text: 'Bad request, malformed HTTP request.' };
  }
}

/**
 * Fastify's `clientErrorHandler`: requests Node's parser refused before Fastify saw them (huge
 * headers, malformed request lines, timeouts) get the contract's error body instead of
 * Fastify's own, then the connection is closed as Node does by default.
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, text } = classify(err.code);
  const { method, url } = requestLine(err.rawPacket);
  const body = JSON.stringify(errorBodyFor(method, url, status, text));
  this.log.debug({ code: err.code, status }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: ${JSON_UTF8}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
