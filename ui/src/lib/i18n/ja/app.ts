import type { Messages } from '../en';

/** Japanese words of the `app` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const app: Messages['app'] = {
  tabs: { queue: 'キュー', audit: '監査ログ', grants: '常に許可', engines: 'エンジン', settings: '設定' },
  views: '表示',
  pendingCalls: '保留中の呼び出し',
  shortcuts: 'ショートカット',
  connection: {
    open: '● 接続中',
    connecting: '接続しています…',
    retrying: (secs: number) => `${secs} 秒後に再接続`,
    closed: '切断',
  },
  notifyWarning: 'デスクトップ通知を利用できません{error}。新しい呼び出しはここに表示されます。',
  dismissNotifyWarning: '通知の警告を閉じる',
  dismissNotice: 'このお知らせを閉じる',

  tokenNeeded: 'このページを使うには、起動中のコンソールのアクセストークンが必要です。',
  tokenHow: '{cmd} でサーバーを起動し、表示されたアドレスを開いてください。アドレスは {url} の形式です。',
  tokenLabel: 'または、トークン（またはそのアドレス全体）をここに貼り付け',
  tokenOpen: 'コンソールを開く',
  tokenInvalid: 'トークンでも、#token=… 付きのコンソールの URL でもありません。',
};
