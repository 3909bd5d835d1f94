import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { after, describe, it } from 'node:test';
import { createAddressGuard } from '../../src/webhooks/address-guard.ts';
import { guardedLookup, RefusedAddressError, type ResolveHost } from '../../src/webhooks/guarded-lookup.ts';
import { postWebhook } from '../../src/webhooks/post-webhook.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/** A resolver with a fixed table, standing in for DNS so no test asks a real name server. */
function tableResolver(table: Record<string, LookupAddress[]>): ResolveHost & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string, family: 0 | 4 | 6) => {
    asked.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.filter((each) => family === 0 || each.family === family);
  };
  return Object.assign(resolve, { asked });
}

/** Calls a lookup as Node's net module does and collects its answer. */
function lookUp(
  lookup: LookupFunction,
  hostname: string,
  options: { all?: boolean; family?: number },
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

const TABLE = {
  'dual.example.test': [
    { address: '2606:4700::1111', family: 6 },
    { address: '93.184.216.34', family: 4 },
  ],
  'sneaky.example.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.7', family: 4 },
  ],
  'hooks.example.test': [{ address: '127.0.0.1', family: 4 }],
};
const guardOn = createAddressGuard({ refusePrivate: true, allowedRanges: [] });

void describe('guardedLookup', () => {
  void it('answers every address as an array of { address, family } when asked with all: true', async () => {
    const answer = await lookUp(guardedLookup(guardOn, tableResolver(TABLE)), 'dual.example.test', {
      all: true,
    });
    assert.equal(answer.error, null);
    assert.deepEqual(answer.address, TABLE['dual.example.test']);
  });

  void it('answers one address and its family otherwise, of the family asked for', async () => {
    const lookup = guardedLookup(guardOn, tableResolver(TABLE));
    const first = await lookUp(lookup, 'dual.example.test', {});
    assert.deepEqual([first.error, first.address, first.family], [null, '2606:4700::1111', 6]);
    const v4 = await lookUp(lookup, 'dual.example.test', { family: 4 });
    assert.deepEqual([v4.error, v4.address, v4.family], [null, '93.184.216.34', 4]);
  });

  void it('refuses a name when any of its addresses is private, and passes resolver errors on', async () => {
    const lookup = guardedLookup(guardOn, tableResolver(TABLE));
    for (const all of [true, false]) {
      const answer = await lookUp(lookup, 'sneaky.example.test', { all });
      assert.ok(answer.error instanceof RefusedAddressError);
      assert.match(
        answer.error.message,
        /^sneaky\.example\.test is 10\.0\.0\.7: the receiver has a private address/,
      );
    }
    const missing = await lookUp(lookup, 'nowhere.example.test', { all: true });
    assert.equal(missing.error?.code, 'ENOTFOUND');
  });
});

void describe('postWebhook with the guard on', () => {
  const receivers: Receiver[] = [];
  after(() => Promise.all(receivers.map((each) => each.close())));
  const post = (url: string, allowedRanges: string[], resolve: ResolveHost) =>
    postWebhook(url, '{"a":1}', {
      guard: createAddressGuard({ refusePrivate: true, allowedRanges }),
      resolve,
      timeoutMs: 5_000,
      headers: {},
    });

  void it("delivers to a host name whose address is explicitly allowed, through Node's own connect", async () => {
    const target = await startReceiver([204]);
    receivers.push(target);
    const resolve = tableResolver(TABLE);
    const url = target.url.replace('127.0.0.1', 'hooks.example.test');
    assert.equal(await post(url, ['127.0.0.1'], resolve), 204);
    assert.deepEqual(resolve.asked, ['hooks.example.test']);
    assert.equal(target.received[0]!.body, '{"a":1}');
    assert.equal(target.received[0]!.headers.host, `hooks.example.test:${new URL(target.url).port}`);
  });

  void it('connects to nothing when the name resolves to an address not allowed', async () => {
    const target = await startReceiver();
    receivers.push(target);
    const url = target.url.replace('127.0.0.1', 'hooks.example.test');
    await assert.rejects(post(url, [], tableResolver(TABLE)), RefusedAddressError);
    await assert.rejects(post(target.url, [], tableResolver(TABLE)), RefusedAddressError);
    assert.equal(target.received.length, 0);
  });
});
