import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressGuard, parseAddressRange } from '../../src/webhooks/address-guard.ts';
import { embeddedIpv4, isPrivateAddress } from '../../src/webhooks/private-address.ts';
import { signatureHeader } from '../../src/webhooks/sign.ts';

void describe('isPrivateAddress', () => {
  void it('refuses loopback, private, link-local, CGNAT, multicast and every IPv6 form carrying one', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.5',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.251',
      '255.255.255.255',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::7f00:1',
      '::127.0.0.1',
      '::808:808',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::10.1.2.3',
      '64:ff9b:1::8.8.8.8',
      '2002:7f00:1::',
      '2002:c0a8:101::1',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:db8::1',
    ]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
  });

  void it('lets public addresses through, in IPv6 forms that carry a public IPv4 address too', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
    assert.equal(isPrivateAddress('example.com'), false, 'a host name is judged by its addresses');
  });

  void it('reads the IPv4 address of mapped, translated, NAT64 and 6to4 addresses', () => {
    assert.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIpv4('::ffff:0:a00:1'), '10.0.0.1');
    assert.equal(embeddedIpv4('64:ff9b::c0a8:1'), '192.168.0.1');
    assert.equal(embeddedIpv4('2002:a9fe:a9fe:1::5'), '169.254.169.254');
    assert.equal(embeddedIpv4('2606:4700::1111'), undefined);
  });
});

void describe('createAddressGuard', () => {
  void it('refuses nothing when private addresses are allowed', () => {
    const guard = createAddressGuard({ refusePrivate: false, allowedRanges: [] });
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '8.8.8.8'])
      assert.equal(guard.refuses(address), false);
  });

  void it('lets the listed ranges through, IPv4 ones in their mapped form too', () => {
    const guard = createAddressGuard({
      refusePrivate: true,
      allowedRanges: ['10.0.5.0/24', '::1', 'fd00:1::/32'],
    });
    for (const address of ['10.0.5.7', '::ffff:10.0.5.7', '::1', 'fd00:1::5', '8.8.8.8']) {
      assert.equal(guard.refuses(address), false, address);
    }
    for (const address of ['10.0.6.1', '127.0.0.1', 'fd00:2::5', '::ffff:127.0.0.1']) {
      assert.equal(guard.refuses(address), true, address);
    }
  });

  void it('parses addresses and CIDR ranges, and nothing else', () => {
    assert.deepEqual(parseAddressRange('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, type: 'ipv4' });
    assert.deepEqual(parseAddressRange('::1'), { address: '::1', prefix: 128, type: 'ipv6' });
    for (const text of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/8', 'intranet', '10.0.0.0/x']) {
      assert.equal(parseAddressRange(text), undefined, text);
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
