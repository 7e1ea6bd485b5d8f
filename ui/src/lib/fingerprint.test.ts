import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkFingerprint, computeFingerprint, fingerprintInput, inexactNumbers } from './fingerprint';

/** The expected fingerprint of a canonical text, by Node's own SHA-256 (independent of Web Crypto). */
const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('computeFingerprint', () => {
  it("is the server's fingerprint of delete_record {id: rec-1}", async () => {
    // The server's own test vector (src/domain/fingerprint.rs).
    const expected = sha256('{"args":{"id":"rec-1"},"toolName":"delete_record"}');
    expect(fingerprintInput('delete_record', { id: 'rec-1' })).toBe('{"args":{"id":"rec-1"},"toolName":"delete_record"}');
    expect(await computeFingerprint('delete_record', { id: 'rec-1' })).toBe(expected);
  });

  it('does not depend on key order or number spelling', async () => {
    const a = JSON.parse('{"id":"rec-1","n":1.0,"o":{"b":1,"a":2}}');
    const b = JSON.parse('{"o":{"a":2,"b":1},"n":1,"id":"rec-1"}');
    const expected = sha256('{"args":{"id":"rec-1","n":1,"o":{"a":2,"b":1}},"toolName":"delete_record"}');
    expect(await computeFingerprint('delete_record', a)).toBe(expected);
    expect(await computeFingerprint('delete_record', b)).toBe(expected);
    expect(await computeFingerprint('delete_record', { ...a, x: null })).not.toBe(expected);
  });

  it('hashes non-ASCII text as UTF-8 with keys in UTF-16 order', async () => {
    const args = { '\ufb33': 'dalet', '\u{1f600}': 'grin', é: 'ü\u202e' };
    expect(await computeFingerprint('t', args)).toBe(sha256('{"args":{"é":"ü\u202e","\u{1f600}":"grin","\ufb33":"dalet"},"toolName":"t"}'));
  });

  it('handles arguments 10,000 levels deep', async () => {
    const n = 10_000;
    let args: unknown = { leaf: 1 };
    for (let i = 0; i < n; i++) args = { a: args };
    const text = '{"args":' + '{"a":'.repeat(n) + '{"leaf":1}' + '}'.repeat(n) + ',"toolName":"t"}';
    expect(await computeFingerprint('t', args)).toBe(sha256(text));
  });
});

describe('checkFingerprint', () => {
  const fp = sha256('{"args":{"id":"rec-1"},"toolName":"delete_record"}');

  it('verifies a fingerprint that matches the arguments shown', async () => {
    expect(await checkFingerprint('delete_record', { id: 'rec-1' }, fp)).toEqual({ status: 'verified', computed: fp });
    expect((await checkFingerprint('delete_record', { id: 'rec-1' }, fp.toUpperCase().replace('SHA256', 'sha256'))).status).toBe('verified');
  });

  it('reports a mismatch when the arguments, the tool or the fingerprint differ', async () => {
    expect(await checkFingerprint('delete_record', { id: 'rec-2' }, fp)).toEqual({
      status: 'mismatch',
      computed: sha256('{"args":{"id":"rec-2"},"toolName":"delete_record"}'),
    });
    expect((await checkFingerprint('archive_record', { id: 'rec-1' }, fp)).status).toBe('mismatch');
    expect((await checkFingerprint('delete_record', { id: 'rec-1' }, 'sha256:' + 'ab'.repeat(32))).status).toBe('mismatch');
  });

  it('says it cannot verify when a whole number beyond 2^53 may have been rounded by JSON.parse', async () => {
    const args = JSON.parse('{"id":"rec-1","amount":{"cents":9007199254740993},"ok":0.1,"small":9007199254740991}');
    // 9007199254740993 became …992 in this window. A fingerprint over the exact digits, which this
    // window cannot recompute, must not read as a mismatch; and a match would not prove the digits shown.
    const exactDigits = sha256('{"args":{"amount":{"cents":9007199254740993},"id":"rec-1","ok":0.1,"small":9007199254740991},"toolName":"t"}');
    const r = await checkFingerprint('t', args, exactDigits);
    expect(r.status).toBe('unverifiable');
    expect(r.status === 'unverifiable' && r.reason).toContain('/amount/cents');
    expect(inexactNumbers(args)).toEqual({ count: 1, pointers: ['/amount/cents'] });
    expect(inexactNumbers(JSON.parse('[1e21, -1e300, 0.5, 12345678901234567890]'))).toEqual({ count: 3, pointers: ['/0', '/1', '/3'] });
    expect(inexactNumbers(2 ** 60)).toEqual({ count: 1, pointers: ['(top level)'] });
  });

  it('says it cannot verify without Web Crypto, or with a fingerprint of another kind', async () => {
    vi.stubGlobal('crypto', undefined);
    expect(await checkFingerprint('delete_record', { id: 'rec-1' }, fp)).toMatchObject({ status: 'unverifiable', reason: expect.stringContaining('Web Crypto') });
    vi.unstubAllGlobals();
    expect((await checkFingerprint('delete_record', { id: 'rec-1' }, 'blake3:' + 'ab'.repeat(32))).status).toBe('unverifiable');
  });
});
