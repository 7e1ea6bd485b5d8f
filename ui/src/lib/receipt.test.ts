import { describe, expect, it } from 'vitest';
import { decodeBase64url, readReceipt, receiptTime } from './receipt';
import { base64url, makeReceipt } from './testing/fixtures';

/** A receipt of the given header and payload texts, with a stand-in signature. */
const jws = (header: string, payload: string) => `${base64url(header)}.${base64url(payload)}.${base64url('sig')}`;
const HEADER = '{"alg":"EdDSA","kid":"ed25519-0011223344556677","typ":"approval-receipt"}';

describe('readReceipt', () => {
  it("reads a receipt's key id and claims", () => {
    expect(readReceipt(makeReceipt())).toEqual({
      kid: 'ed25519-3f4b19a00c1d8e72',
      claims: {
        id: 'rct_4be0c1d2e3f4a5b6c7d8e9f0a1b2c3d4',
        decision: 'approved',
        tool: 'delete_record',
        callId: 'itm_0b5e',
        approvers: ['local:admin'],
        policyVersion: 'pv_91ab',
        issuedAt: 1764949800,
        expiresAt: 1764950400,
      },
    });
    expect(receiptTime(1764950400)).toBe('2025-12-05T16:00:00.000Z');
  });

  it('reads the docs\' example header, and segments whose base64url uses - and _', () => {
    // The header of docs/receipts.md's example, as printed there.
    const header = 'eyJhbGciOiJFZERTQSIsImtpZCI6ImVkMjU1MTktM2Y0YjE5YTAwYzFkOGU3MiIsInR5cCI6ImFwcHJvdmFsLXJlY2VpcHQifQ';
    expect(readReceipt(`${header}.${base64url('{"id":"rct_1"}')}.AA`)).toEqual({ kid: 'ed25519-3f4b19a00c1d8e72', claims: { id: 'rct_1' } });
    // "?>?" encodes to `Pz4_`, "~~~" to `fn5-`: the URL-safe letters, never + or /.
    expect(base64url('?>?')).toBe('Pz4_');
    expect(decodeBase64url('Pz4_')).toBe('?>?');
    expect(decodeBase64url('fn5-')).toBe('~~~');
    expect(decodeBase64url('Pz4/')).toBeNull();
    expect(decodeBase64url('Pz4=')).toBeNull();
  });

  it('keeps unicode in a claim as it was written', () => {
    const r = readReceipt(makeReceipt({ approvers: ['local:アリス', 'token:bob', 'device:😀-phone'], tool: 'résumé_löschen' }));
    expect(r?.claims.approvers).toEqual(['local:アリス', 'token:bob', 'device:😀-phone']);
    expect(r?.claims.tool).toBe('résumé_löschen');
    expect(readReceipt(jws(HEADER, '{"id":"rct_\\u00e9\\ud83d\\ude00"}'))?.claims.id).toBe('rct_é😀');
  });

  it('is null for anything that is not three base64url segments', () => {
    const good = makeReceipt();
    const [h, p, s] = good.split('.');
    for (const junk of ['', 'abc', 'a.b', `${h}.${p}`, `${h}.${p}.${s}.x`, `${h}..${s}`, `.${p}.${s}`, `${h}.${p}.`, `${h}+.${p}.${s}`, `${h}.${p}.${s}=`, `${h}.${p}!.${s}`, `${h}.${p.slice(0, -3)}.${s}`, 'a.b.c', '...', `${h}.${p}.${s} with spaces`]) {
      expect(() => readReceipt(junk), junk).not.toThrow();
      expect(readReceipt(junk), junk).toBeNull();
    }
    // Not even a string (a server answer that is not what it says).
    expect(readReceipt(42 as unknown as string)).toBeNull();
    expect(readReceipt(null as unknown as string)).toBeNull();
  });

  it('is null when a segment is not JSON, not an object, or not UTF-8, or the header has no string kid', () => {
    const payload = '{"id":"rct_1"}';
    for (const [header, body] of [
      [HEADER, 'not json'],
      ['{"alg":', payload],
      [HEADER, '[1,2,3]'],
      [HEADER, 'null'],
      [HEADER, '"rct_1"'],
      ['{"alg":"EdDSA"}', payload],
      ['{"alg":"EdDSA","kid":7}', payload],
      ['[]', payload],
    ]) {
      expect(readReceipt(jws(header, body)), `${header} / ${body}`).toBeNull();
    }
    // A payload that is not UTF-8 (a lone 0xff byte).
    const notUtf8 = btoa('{"id":"\xff"}').replace(/=+$/, '');
    expect(readReceipt(`${base64url(HEADER)}.${notUtf8}.AA`)).toBeNull();
  });

  it('leaves out claims of the wrong type, and times a Date cannot hold', () => {
    const r = readReceipt(jws(HEADER, JSON.stringify({ id: 5, approvers: ['local:a', 3, null, 'token:b'], expiresAt: 1e300, issuedAt: 1.5, decision: 'declined' })));
    expect(r).toEqual({ kid: 'ed25519-0011223344556677', claims: { approvers: ['local:a', 'token:b'], decision: 'declined' } });
    expect(readReceipt(jws(HEADER, '{"approvers":"local:a","expiresAt":"1764950400"}'))?.claims).toEqual({});
  });
});
