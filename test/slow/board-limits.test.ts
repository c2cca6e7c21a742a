/**
 * `tasks board`'s limits on a request, as a hostile or slow client meets them over raw
 * sockets: a body over 1 MB is answered with 413 and a body that trickles in with 408.
 * In the slow tier: the 408 comes only after the server's 10 s wait for a body.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, postAction, startBoard } from '../helpers/board.js';
import { readJson, tempConfig, writeTask } from '../helpers/cli.js';

function demo() {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'demo');
  writeTask(dir, { id: '3', subject: 'Run tests', description: '', status: 'pending', blocks: [], blockedBy: [] });
  return { config, dir };
}

/**
 * One request on a raw socket, as a hostile or slow client sends it: the head, then the
 * body at once (as fast as the socket takes it) or a byte every `trickleMs`; what came
 * back until the server closed the connection, and the socket error if there was one.
 */
function rawExchange(
  port: number,
  head: string,
  body: Buffer,
  opts: { trickleMs?: number } = {},
): Promise<{ status: number; headers: string; body: string; error: string | undefined }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    let error: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => (got += d));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    socket.on('close', () => {
      clearInterval(timer);
      const [headers = '', rest = ''] = got.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), headers: `${headers}\r\n`, body: rest, error });
    });
    socket.write(head);
    if (opts.trickleMs !== undefined) {
      let at = 0;
      timer = setInterval(() => {
        if (!socket.destroyed && at < body.length) socket.write(body.subarray(at, ++at));
      }, opts.trickleMs);
      return;
    }
    let at = 0;
    const pump = (): void => {
      while (at < body.length && !socket.destroyed) {
        const more = socket.write(body.subarray(at, at + 65536));
        at += 65536;
        if (!more) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

let boards: BoardRun[] = [];
afterEach(async () => {
  for (const b of boards) await b.stop('SIGKILL');
  boards = [];
});

async function board(config: string): Promise<BoardRun> {
  const b = await startBoard(config, [], {});
  boards.push(b);
  return b;
}

describe('tasks board: limits on a request', () => {
  it('answers a body over 1 MB with 413 and a body that trickles in with 408, then closes (raw sockets); nothing written', async () => {
    const { config, dir } = demo();
    const before = fs.readFileSync(path.join(dir, '3.json'), 'utf8');
    const b = await board(config);
    const head = (extra: string) =>
      `POST /${b.token}/api/action HTTP/1.1\r\nHost: 127.0.0.1:${b.port}\r\nOrigin: http://127.0.0.1:${b.port}\r\nContent-Type: application/json\r\n${extra}\r\n`;
    const action = Buffer.from(JSON.stringify({ action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } }));
    const big = Buffer.concat([action, Buffer.alloc(3 * 1024 * 1024, ' ')]);
    // Declared too large: answered at once, while the client is still sending.
    const declared = await rawExchange(b.port, head(`Content-Length: ${big.length}\r\n`), big);
    // Too large without a declared length (chunked): answered once the limit is passed.
    const chunked = await rawExchange(
      b.port,
      head('Transfer-Encoding: chunked\r\n'),
      Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]),
    );
    for (const r of [declared, chunked]) {
      // The answer comes while the client still sends: a client that goes on writing after
      // the close may meet it (EPIPE, ECONNRESET), but it has read the answer first.
      expect([undefined, 'EPIPE', 'ECONNRESET']).toContain(r.error);
      expect(r.status).toBe(413);
      expect(r.headers).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(r.body)).toEqual({ ok: false, error: { code: 'usage', message: 'request too large (over 1048576 bytes)' } });
    }
    // A byte every 200 ms, never the whole body: answered with 408 (after 10 s), then closed.
    const trickled = await rawExchange(b.port, head('Content-Length: 1000\r\n'), action, { trickleMs: 200 });
    expect(trickled.error).toBeUndefined();
    expect(trickled.status).toBe(408);
    expect(JSON.parse(trickled.body)).toEqual({ ok: false, error: { code: 'timeout', message: 'request body not received within 10 s' } });
    expect(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).toBe(before);
    // The board serves on: the same action, sent whole, is done.
    expect((await postAction(b, JSON.parse(String(action)))).status).toBe(200);
    expect(readJson(path.join(dir, '3.json'))).toMatchObject({ status: 'in_progress' });
  });
});
