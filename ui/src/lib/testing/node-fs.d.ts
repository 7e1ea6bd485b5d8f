// The parts of Node's `fs` and `process` that the look-alike corpus test uses to rewrite its fixture
// on request (the UI itself never imports Node modules, so @types/node is not a dependency).
declare module 'node:fs' {
  export function writeFileSync(path: string, data: string): void;
}
declare module 'node:process' {
  export const env: Record<string, string | undefined>;
}
