import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { pino } from 'pino';
import { AccessLogController, withoutToken } from '../../src/http/access-log.ts';
import { ApiError } from '../../src/http/api-error.ts';
import { installApiFamily } from '../../src/http/api-family.ts';

/** An app with one route whose log lines are collected, at the given level. */
function appLoggingAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const app = Fastify({ loggerInstance: logger, logController: new AccessLogController() });
  app.get('/thing', async () => ({ ok: true }));
  return { app, lines };
}

void describe('access log', () => {
  void it('writes one line per request at debug, with method, URL, status and time', async () => {
    const { app, lines } = appLoggingAt('debug');
    await app.inject({ url: '/thing?x=1' });
    await app.inject({ url: '/missing' });
    const requests = lines.filter((line) => line.msg === 'request completed');
    assert.equal(lines.length, 2, JSON.stringify(lines));
    assert.ok(
      requests.every((line) => line.level === 20),
      'at debug',
    );
    assert.deepEqual(
      requests.map(({ method, url, statusCode }) => ({ method, url, statusCode })),
      [
        { method: 'GET', url: '/thing?x=1', statusCode: 200 },
        { method: 'GET', url: '/missing', statusCode: 404 },
      ],
    );
    assert.equal(typeof requests[0]!.responseTime, 'number');
  });

  void it('writes none at info, the default level, nor at warn', async () => {
    for (const level of ['info', 'warn']) {
      const { app, lines } = appLoggingAt(level);
      for (let i = 0; i < 5; i++) await app.inject({ url: '/thing' });
      await app.inject({ url: '/missing' });
      assert.deepEqual(lines, [], level);
    }
  });

  void it('still writes a request that failed, at error, at the default level', async () => {
    const { app, lines } = appLoggingAt('info');
    app.get('/broken', () => {
      throw new Error('disk on fire');
    });
    await app.inject({ url: '/broken' });
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.level, 50);
    assert.match(JSON.stringify(lines[0]), /disk on fire/);
  });

  void it('writes one line for a refused API request, with the reason it was given', async () => {
    const { app, lines } = appLoggingAt('debug');
    await app.register(async (family) => {
      installApiFamily(family, {
        checkToken: (presented) => Promise.resolve(presented === 'good' ? 'write' : 'invalid'),
        errorBody: (code, message) => ({ code, message }),
        internalMessage: 'internal error',
        notFoundMessage: 'not found',
      });
      family.get('/gone', () => {
        throw new ApiError(404, 'model not found');
      });
    });
    await app.inject({ url: '/gone', headers: { 'x-api-token': 'good' } });
    await app.inject({ url: '/gone', headers: { 'x-api-token': 'bad' } });
    await app.inject({ url: '/nowhere', headers: { 'x-api-token': 'good' } });
    assert.deepEqual(
      lines.map(({ msg, url, statusCode, reason }) => ({ msg, url, statusCode, reason })),
      [
        { msg: 'request completed', url: '/gone', statusCode: 404, reason: 'model not found' },
        { msg: 'request completed', url: '/gone', statusCode: 401, reason: 'invalid API token' },
        { msg: 'request completed', url: '/nowhere', statusCode: 404, reason: 'not found' },
      ],
    );
  });

  void it('redacts a token parameter however its name is written or delimited', async () => {
    const cases: [string, string][] = [
      ['/api/events?token=s3cret', '/api/events?token=[redacted]'],
      ['/api/events?model_id=1&token=s3cret#x', '/api/events?model_id=1&token=[redacted]#x'],
      ['/api/events?tok%65n=s3cret', '/api/events?tok%65n=[redacted]'],
      ['/api/events?%74%6F%6B%65%6E=s3cret&a=1', '/api/events?%74%6F%6B%65%6E=[redacted]&a=1'],
      ['/api/events?tok%2565n=s3cret', '/api/events?tok%2565n=[redacted]'],
      ['/api/events;token=s3cret', '/api/events;token=[redacted]'],
      ['/api/events?a=1;token=s3cret;b=2', '/api/events?a=1;token=[redacted];b=2'],
      ['/api/events?TOKEN=s3cret', '/api/events?TOKEN=[redacted]'],
      ['/api/events?access_token=s3cret', '/api/events?access_token=[redacted]'],
      ['/api/events?tok%zzen=s3cret&token%=x', '/api/events?tok%zzen=s3cret&token%=[redacted]'],
      ['/api/models?search=token&limit=5', '/api/models?search=token&limit=5'],
    ];
    for (const [url, logged] of cases) assert.equal(withoutToken(url), logged, url);

    const { app, lines } = appLoggingAt('debug');
    await app.inject({ url: '/thing?tok%65n=s3cret' });
    await app.inject({ url: '/thing;token=s3cret' });
    assert.ok(lines.length >= 2);
    for (const line of lines) assert.ok(!JSON.stringify(line).includes('s3cret'), JSON.stringify(line));
  });
});
