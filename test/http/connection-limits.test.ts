// Connection exhaustion: a request refused with 401 kept its socket while the client trickled body bytes (no
// request or connection timeout), so 20,000 such sockets took every file descriptor. Here a bounded crowd of
// trickling clients is refused and cut off, slow headers and slow bodies are cut, and /health keeps answering.
// Connection handling does not touch the database, so SQLite stands for both.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';
import { tusClient } from '../helpers/tus-client.ts';

/** What a raw client saw: the first response line and when the server closed the connection. */
interface Outcome {
  statusLine: string;
  closedAfterMs: number;
}

/**
 * Opens a connection, sends `head` (request line and headers), then one body byte every `trickleMs` until the
 * server closes the connection or `giveUpMs` passes (then the outcome says so with closedAfterMs = Infinity).
 */
function trickle(port: number, head: string, trickleMs: number, giveUpMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closedAfterMs: number) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ statusLine: received.split('\r\n')[0] ?? '', closedAfterMs });
    };
    const giveUp = setTimeout(() => finish(Infinity), giveUpMs);
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write('x');
      }, trickleMs);
    });
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset while we were still writing is the server closing on us, which is the point.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') finish(Date.now() - started);
      else reject(error);
    });
    socket.on('close', () => finish(Date.now() - started));
  });
}

async function listen(testApp: TestApp): Promise<number> {
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const address = testApp.app.server.address();
  if (!address || typeof address === 'string') throw new Error('not listening');
  return address.port;
}

const bodyHead = (path: string, headers: string, length = 10_000_000) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${headers}\r\n`;

void describe('connection limits', () => {
  let testApp: TestApp;
  let port: number;
  before(async () => {
    // A long body timeout, so what closes the refused sockets below is the refusal itself.
    testApp = await createTestApp('sqlite', {
      HTTP_HEADERS_TIMEOUT_SECONDS: '1',
      HTTP_BODY_TIMEOUT_SECONDS: '60',
      HTTP_IDLE_TIMEOUT_SECONDS: '60',
    });
    port = await listen(testApp);
  });
  after(() => testApp.close());

  void it('refuses 200 trickling unauthenticated bodies with 401 and closes every one at once', async () => {
    const crowd = Array.from({ length: 200 }, (_, index) =>
      trickle(port, bodyHead(`/api/v1/materials/${index + 1}/bindings`, ''), 50, 10_000),
    );
    // While the crowd trickles, the service still answers.
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
    const outcomes = await Promise.all(crowd);
    for (const outcome of outcomes) {
      assert.equal(outcome.statusLine, 'HTTP/1.1 401 Unauthorized');
      assert.ok(outcome.closedAfterMs < 5_000, `closed after ${outcome.closedAfterMs} ms`);
    }
  });

  void it('closes the connection of a 413 answered before its body arrived', async () => {
    const auth = `X-API-Token: ${TEST_TOKEN}\r\n`;
    const tooLarge = await trickle(port, bodyHead('/api/v1/materials', auth, 64 * 1024 * 1024), 50, 10_000);
    assert.equal(tooLarge.statusLine, 'HTTP/1.1 413 Payload Too Large');
    assert.ok(tooLarge.closedAfterMs < 5_000, `413 closed after ${tooLarge.closedAfterMs} ms`);
  });

  void it('closes a connection whose headers trickle past the headers timeout', async () => {
    const outcome = await trickle(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 100, 10_000);
    assert.ok(outcome.closedAfterMs < 4_000, `closed after ${outcome.closedAfterMs} ms`);
    assert.notEqual(outcome.statusLine, 'HTTP/1.1 200 OK');
  });

  void it('keeps a request whose body arrives promptly on a kept-alive connection', async () => {
    const first = await fetch(`http://127.0.0.1:${port}/api/v1/materials`, {
      method: 'POST',
      headers: { 'x-api-token': TEST_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Steel' }),
    });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('connection'), 'keep-alive');
  });
});

void describe('body timeouts', () => {
  let testApp: TestApp;
  let port: number;
  before(async () => {
    testApp = await createTestApp('sqlite', { HTTP_BODY_TIMEOUT_SECONDS: '1' });
    port = await listen(testApp);
  });
  after(() => testApp.close());

  void it('answers 408 and closes an authenticated JSON body that trickles past the body timeout', async () => {
    const head = bodyHead('/api/v1/materials', `X-API-Token: ${TEST_TOKEN}\r\n`, 1000);
    const outcome = await trickle(port, head, 50, 10_000);
    assert.equal(outcome.statusLine, 'HTTP/1.1 408 Request Timeout');
    assert.ok(outcome.closedAfterMs < 4_000, `closed after ${outcome.closedAfterMs} ms`);
  });

  void it('answers 408 to a body trickled to an unknown route, which waits for its body', async () => {
    const outcome = await trickle(port, bodyHead('/nowhere', '', 1000), 50, 10_000);
    assert.equal(outcome.statusLine, 'HTTP/1.1 408 Request Timeout');
    assert.ok(outcome.closedAfterMs < 4_000, `closed after ${outcome.closedAfterMs} ms`);
  });

  void it('closes an upload that brings less than 64 KiB per body period', async () => {
    const head =
      `POST /api/models HTTP/1.1\r\nHost: x\r\nX-API-Token: ${TEST_TOKEN}\r\n` +
      `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n` +
      `--b\r\nContent-Disposition: form-data; name="file"; filename="a.stl"\r\n\r\n`;
    const outcome = await trickle(port, head, 50, 10_000);
    assert.ok(outcome.closedAfterMs < 4_000, `closed after ${outcome.closedAfterMs} ms`);
    assert.equal(outcome.statusLine, 'HTTP/1.1 408 Request Timeout');
  });

  void it('keeps a resumable upload chunk that is slow but brings 64 KiB per period, and cuts one that trickles', async () => {
    const tus = tusClient(`http://127.0.0.1:${port}`, testApp.auth);
    const slices = 8;
    const slice = 100 * 1024;
    const created = await tus.create(slices * slice, { filename: 'slow.stl' });
    assert.equal(created.status, 201, created.text);
    // Eight slices half a second apart: the chunk takes four body periods, each bringing more than 64 KiB.
    const slow = Readable.from(
      (async function* () {
        for (let index = 0; index < slices; index++) {
          yield new Uint8Array(slice);
          await sleep(500);
        }
      })(),
    );
    const sent = await tus.patch(created.location, 0, slow, { contentLength: slices * slice });
    assert.equal(sent?.status, 204, sent?.text);
    assert.equal(sent?.headers['upload-offset'], String(slices * slice));

    const other = await tus.create(1000, { filename: 'trickle.stl' });
    const head =
      `PATCH ${other.location} HTTP/1.1\r\nHost: x\r\nX-API-Token: ${TEST_TOKEN}\r\nTus-Resumable: 1.0.0\r\n` +
      `Upload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: 1000\r\n\r\n`;
    const outcome = await trickle(port, head, 50, 10_000);
    assert.ok(outcome.closedAfterMs < 4_000, `closed after ${outcome.closedAfterMs} ms`);
  });
});
