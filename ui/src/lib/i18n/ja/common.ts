import type { Messages } from '../en';

/** Japanese words used across views (see ../index.svelte.ts and ../GLOSSARY.md). */
export const common: Messages['common'] = {
  approve: '承認',
  decline: '拒否',
  resume: '再開',
  cancel: 'キャンセル',
  save: '保存',
  saved: '保存しました',
  close: '閉じる',
  remove: '削除',
  edit: '編集',
  retry: '再試行',
  loading: '読み込み中…',
  loadMore: 'さらに読み込む',
  copy: 'コピー',
  copied: 'コピーしました',
  none: 'なし',
  yes: 'はい',
  no: 'いいえ',
  calls: (n: number) => `${n.toLocaleString('ja')} 件の呼び出し`,
};
