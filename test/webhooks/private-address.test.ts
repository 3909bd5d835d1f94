import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrivateAddress } from '../../src/webhooks/private-address.ts';
import { signatureHeader } from '../../src/webhooks/sign.ts';

void describe('isPrivateAddress', () => {
  void it('refuses loopback, private, link-local and mapped addresses, and lets public ones through', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.5',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });
});

void describe('signatureHeader', () => {
  void it('is t=<unix>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
    assert.equal(
      signatureHeader('secret', '{"a":1}', 1_700_000_000),
      't=1700000000,v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686',
    );
  });
});
