import type { Messages } from '../en';

/** Japanese words of "since the last decision" (see ../index.svelte.ts and ../GLOSSARY.md). */
export const diff: Messages['diff'] = {
  heading: 'このスレッドでの前回の判断からの変化',
  approved: (operator: string, time: string) => `${operator} が承認 (${time})`,
  approvedEdited: (operator: string, time: string) => `${operator} が引数を編集して承認 (${time})。実行された引数と比べています`,
  declined: (operator: string, time: string) => `${operator} が拒否 (${time})`,
  answered: (operator: string, time: string) => `${operator} が回答 (${time})`,
  reason: '理由:',
  same: '前回と同じ引数です。',
  changes: (n: number) => `${n.toLocaleString('ja')} 件の変更:`,
  more: (n: number) => `ほか ${n.toLocaleString('ja')} 件`,
  before: '前回',
  after: '今回',
  loadFailed: '前回の判断を読み込めませんでした:',
};
