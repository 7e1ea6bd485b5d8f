// A call's fingerprint: "sha256:" + hex(SHA-256(UTF-8(JCS({"toolName": tool, "args": args})))).
import { canonicalize } from "./jcs.ts";

/** Lower-case hex of `bytes`. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

/** SHA-256 of the UTF-8 of `text`, as lower-case hex (WebCrypto). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(digest);
}

/**
 * The fingerprint of a call of `tool` with `args`, as the console computes it. Throws a TypeError
 * when `args` is not JSON (see `canonicalize`).
 */
export async function fingerprint(tool: string, args: unknown): Promise<string> {
  return "sha256:" + (await sha256Hex(canonicalize({ toolName: tool, args })));
}
