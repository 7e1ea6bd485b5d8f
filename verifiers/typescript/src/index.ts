// @approval-console/receipt-verifier: check the console's decision receipts (docs/receipts.md).
export { canonicalize } from "./jcs.ts";
export { InexactNumber, exactLiteral, inexactPaths, parseExact } from "./exact.ts";
export { fingerprint, sha256Hex } from "./fingerprint.ts";
export { verifyReceipt, decodeBase64url } from "./verify.ts";
export type { ReceiptClaims, RefusalCode, VerifyOptions, VerifyResult } from "./verify.ts";
export { fetchJwks, loadJwks, findKey, RemoteJwks } from "./jwks.ts";
export type { FetchJwksOptions, FetchLike, Jwk, Jwks, KeySource } from "./jwks.ts";
export { FileStore, MemoryStore, SqliteStore, openStore } from "./stores.ts";
export type { ReceiptStore, StoreOptions } from "./stores.ts";
export { receiptHook } from "./mastra.ts";
export type { HookContext, HookRefusalCode, ReceiptHook, ReceiptHookOptions, RefusedOutput } from "./mastra.ts";
