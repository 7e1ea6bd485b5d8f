// The part of Node's `crypto` that tests use to compute expected fingerprints independently of
// Web Crypto (the UI itself never imports Node modules, so @types/node is not a dependency).
declare module 'node:crypto' {
  interface Hash {
    update(data: string, encoding?: 'utf8'): Hash;
    digest(encoding: 'hex'): string;
  }
  export function createHash(algorithm: 'sha256'): Hash;
}

// And of `fs`, for a test that reads the desktop app's list of commands from its Rust source.
declare module 'node:fs' {
  export function readFileSync(path: URL | string, encoding: 'utf8'): string;
}
