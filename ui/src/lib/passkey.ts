/**
 * Passkeys (WebAuthn) on the remote listener (`serve --listen`): pairing this device, signing in,
 * and the step-up every decision asks for. The server (webauthn-rs) sends the options as JSON with
 * binary fields in base64url; the browser wants ArrayBuffers, and answers with ArrayBuffers the
 * server reads back as base64url. Written out here rather than with `PublicKeyCredential
 * .parseCreationOptionsFromJSON`/`toJSON()`, which older phone browsers lack.
 */

export function fromB64u(text: string): ArrayBuffer {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes.buffer;
}

export function toB64u(data: ArrayBuffer | ArrayBufferView): string {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type Json = Record<string, unknown>;
type Described = { id: string; type: string; transports?: string[] };

const described = (list: unknown) =>
  Array.isArray(list) ? (list as Described[]).map((c) => ({ ...c, id: fromB64u(c.id) }) as PublicKeyCredentialDescriptor) : undefined;

/** The server's creation options (`options.publicKey`) as the browser takes them. */
export function creationOptions(o: Json): PublicKeyCredentialCreationOptions {
  const user = o.user as Json;
  return {
    ...(o as unknown as PublicKeyCredentialCreationOptions),
    challenge: fromB64u(o.challenge as string),
    user: { ...(user as unknown as PublicKeyCredentialUserEntity), id: fromB64u(user.id as string) },
    excludeCredentials: described(o.excludeCredentials),
  };
}

/** The server's request options (`options.publicKey`) as the browser takes them. */
export function requestOptions(o: Json): PublicKeyCredentialRequestOptions {
  return { ...(o as unknown as PublicKeyCredentialRequestOptions), challenge: fromB64u(o.challenge as string), allowCredentials: described(o.allowCredentials) };
}

/** A credential the browser made or used, as JSON the server reads (base64url for every binary). */
export function credentialJson(c: PublicKeyCredential): Json {
  const r = c.response as AuthenticatorAttestationResponse & AuthenticatorAssertionResponse;
  const response: Json = { clientDataJSON: toB64u(r.clientDataJSON) };
  if ('attestationObject' in r && r.attestationObject) {
    response.attestationObject = toB64u(r.attestationObject);
    if (typeof r.getTransports === 'function') response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64u(r.authenticatorData);
    response.signature = toB64u(r.signature);
    if (r.userHandle) response.userHandle = toB64u(r.userHandle);
  }
  return { id: c.id, rawId: toB64u(c.rawId), type: c.type, response, extensions: {} };
}

/** An error the UI can show: the server's `{code, message}` or the browser's refusal. */
export class PasskeyError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function post(path: string, body: unknown): Promise<Json> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw new PasskeyError('network', e instanceof Error ? e.message : String(e));
  }
  const json = (await res.json().catch(() => ({}))) as Json;
  if (!res.ok) throw new PasskeyError(String(json.code ?? res.status), String(json.message ?? `HTTP ${res.status}`));
  return json;
}

async function browser<T>(call: () => Promise<T | null>): Promise<T> {
  if (!window.PublicKeyCredential || !navigator.credentials) {
    throw new PasskeyError('no_passkeys', 'This browser has no passkeys (WebAuthn).');
  }
  try {
    const got = await call();
    if (!got) throw new PasskeyError('cancelled', 'No passkey was given.');
    return got;
  } catch (e) {
    if (e instanceof PasskeyError) throw e;
    const name = e instanceof DOMException ? e.name : '';
    throw new PasskeyError(name === 'NotAllowedError' ? 'cancelled' : 'passkey', e instanceof Error ? e.message : String(e));
  }
}

type Begun = { ceremony: string; options: { publicKey: Json } };

/** Proves a pairing code, registers this device's passkey, and signs in (the cookie is set). */
export async function pair(code: string): Promise<string> {
  const begun = (await post('/api/remote/pair', { code })) as unknown as Begun;
  const made = await browser(() => navigator.credentials.create({ publicKey: creationOptions(begun.options.publicKey) }) as Promise<PublicKeyCredential | null>);
  const done = await post('/api/remote/pair/finish', { ceremony: begun.ceremony, credential: credentialJson(made) });
  return String(done.device);
}

/** Signs in with this device's passkey. */
export async function signIn(): Promise<string> {
  const begun = (await post('/api/remote/sign-in', {})) as unknown as Begun;
  const used = await browser(() => navigator.credentials.get({ publicKey: requestOptions(begun.options.publicKey) }) as Promise<PublicKeyCredential | null>);
  const done = await post('/api/remote/sign-in/finish', { ceremony: begun.ceremony, credential: credentialJson(used) });
  return String(done.device);
}

/** What a decision's step-up is for (`POST /api/remote/step-up`). */
export type StepUpFor = { itemId: string; fingerprint: string; decision: string; args?: unknown };

/** Asks for the passkey for exactly this decision; the headers its request then carries. */
export async function stepUp(what: StepUpFor): Promise<Record<string, string>> {
  const begun = (await post('/api/remote/step-up', what)) as unknown as Begun;
  const used = await browser(() => navigator.credentials.get({ publicKey: requestOptions(begun.options.publicKey) }) as Promise<PublicKeyCredential | null>);
  const assertion = toB64u(new TextEncoder().encode(JSON.stringify(credentialJson(used))));
  return { 'X-Step-Up': begun.ceremony, 'X-Step-Up-Assertion': assertion };
}

/** The pairing code in the page's fragment (`#pair=ABCDE-FGHJK`), if any. */
export function pairingCodeFromHash(hash: string): string | null {
  const code = new URLSearchParams(hash.replace(/^#/, '')).get('pair');
  return code && code.trim() ? code.trim() : null;
}
