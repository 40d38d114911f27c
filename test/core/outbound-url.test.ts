import { describe, it, expect } from '@jest/globals';
import { checkCallbackUrl, isBlockedAddress } from '../../src/core/outbound.js';

describe('callback URL checks', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.0.0.1', true],
    ['172.16.5.4', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['198.18.0.1', true],
    ['::', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['2001:db8::1', true],
    ['not-an-ip', true],
    ['93.184.215.14', false],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['1.1.1.1', false],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s is blocked: %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });

  it('lets the dev setting through http and loopback, and nothing but http(s)', async () => {
    await expect(checkCallbackUrl('http://127.0.0.1:8080/x', true)).resolves.toBeInstanceOf(URL);
    await expect(checkCallbackUrl('http://127.0.0.1:8080/x', false)).rejects.toThrow(/must be https/);
    await expect(checkCallbackUrl('file:///etc/passwd', true)).rejects.toThrow(/https or http/);
    await expect(checkCallbackUrl('not a url', true)).rejects.toThrow(/not an absolute URL/);
  });
});
