import type { Messages } from '../en';

const lines = (n: number) => `${n.toLocaleString('ja')} 行`;

/** Japanese words of what a file-editing call would change (see ../index.svelte.ts and ../GLOSSARY.md). */
export const changes: Messages['changes'] = {
  heading: '変更される内容',
  edits: (n, path) => `${path} の ${lines(n)}を編集`,
  adds: (n, path) => `${path} に ${lines(n)}を追加`,
  removes: (n, path) => `${path} から ${lines(n)}を削除`,
  creates: (n, path) => `${path} を作成（${lines(n)}）`,
  deletes: (path) => `${path} を削除`,
  moves: (path, to) => `${path} を ${to} へ移動`,
  nothing: (path) => `${path} は変わりません`,
  writesUncompared: (n, path) => `${path} を書き込み（${lines(n)}、ファイルとは未比較）`,
  files: (n, added, removed, more) => `${n.toLocaleString('ja')} 個${more ? '以上' : ''}のファイルを編集（+${added.toLocaleString('ja')} −${removed.toLocaleString('ja')}）`,
  actions: { edit: '編集', create: '新規ファイル', write: 'ファイル全体', delete: '削除' },
  movedTo: '移動先',
  againstDisk: 'フックがディスク上で読んだファイルと比較しています。',
  fromCall: '呼び出し自身のテキストから: 行番号は編集箇所から数えています。',
  cut: '差分はここで切れています: コンソールが表示する長さを超えています。',
  moreFiles: '表示しきれないファイルがあります: 引数を開くとすべて見られます。',
  noLines: '表示する行はありません。',
  added: '追加',
  removed: '削除',
};
