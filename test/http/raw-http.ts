import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given over a TCP socket and reads the answer until the server closes
 * or the response is complete. For what an HTTP client library would not send (huge headers,
 * broken request lines, header names in an exact case).
 */
export function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const body = rest.join('\r\n\r\n');
      const length = headers['content-length'];
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: length ? body.slice(0, Number(length)) : body });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /content-length: *(\d+)/i.exec(text);
      const headEnd = text.indexOf('\r\n\r\n');
      if (m && headEnd >= 0 && Buffer.byteLength(text.slice(headEnd + 4)) >= Number(m[1])) {
        socket.destroy();
        done();
      }
    });
    socket.on('end', done);
    socket.on('error', (err) => (chunks.length > 0 ? done() : reject(err)));
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error('raw request timed out'));
    });
    socket.write(request);
  });
}
