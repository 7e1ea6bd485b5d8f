/** English words of what a file-editing call would change (see ../index.svelte.ts): its row's line and its detail's diff. */
const lines = (n: number) => (n === 1 ? '1 line' : `${n.toLocaleString('en')} lines`);

export const changes = {
  heading: 'What it would change',
  /** One file's summary, by what the call does to it. */
  edits: (n: number, path: string) => `edits ${lines(n)} in ${path}`,
  adds: (n: number, path: string) => `adds ${lines(n)} to ${path}`,
  removes: (n: number, path: string) => `removes ${lines(n)} from ${path}`,
  creates: (n: number, path: string) => `creates ${path} (${lines(n)})`,
  deletes: (path: string) => `deletes ${path}`,
  moves: (path: string, to: string) => `moves ${path} to ${to}`,
  nothing: (path: string) => `changes nothing in ${path}`,
  writesUncompared: (n: number, path: string) => `writes ${path} (${lines(n)}, not compared with the file)`,
  files: (n: number, added: number, removed: number, more: boolean) =>
    `edits ${more ? 'more than ' : ''}${n.toLocaleString('en')} files (+${added.toLocaleString('en')} −${removed.toLocaleString('en')})`,
  actions: { edit: 'edit', create: 'new file', write: 'whole file', delete: 'delete' },
  movedTo: 'moved to',
  againstDisk: 'Compared with the file as the hook read it on disk.',
  fromCall: "From the call's own text: line numbers count from the edit.",
  cut: 'The diff is cut here: it is longer than the console shows.',
  moreFiles: 'More files than shown: open the arguments to see all of them.',
  noLines: 'No lines to show.',
  /** Screen readers: what a line's first character means. */
  added: 'added',
  removed: 'removed',
};
