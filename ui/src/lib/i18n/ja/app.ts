import type { Messages } from '../en';

/** Japanese words of the `app` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const app: Messages['app'] = {
  tabs: { queue: 'キュー', audit: '監査ログ', team: '統計', grants: '常に許可', engines: 'エンジン', settings: '設定' },
  backToList: '呼び出し一覧',
  backToListLabel: '呼び出しの一覧に戻る',
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

  whoami: '{name}（{role}）としてログイン中',
  whoamiYou: 'あなた（{name}、このコンピューターの管理者）としてログイン中',
  whoamiLocal: 'ローカルの管理者としてログイン中',
  whoamiDevice: '{name}（ペアリング済みの端末）としてログイン中',
  roles: { agent: 'エージェント', viewer: '閲覧者', operator: 'オペレーター', admin: '管理者' },
  checkingToken: 'トークンを確認しています…',
  sessionFailed: 'このトークンが誰のものか、コンソールは確認できませんでした。',
  otherToken: '別のトークンを使う',

  viewerTitle: 'Approval Console: チームの数値',
  viewerSignedIn: '名前が {name} の、閲覧者の役割を持つトークンでログイン中です。',
  viewerCan: '閲覧者のトークンはメトリクスとチームの数値だけを読めます。呼び出しは見えず、何も決定しません。',
  agentTitle: 'これはエージェント用のトークンです',
  agentSignedIn: '名前が {name} の、エージェントの役割を持つトークンです。',
  agentCan:
    'エージェント用のトークンでは、エージェントの実行を開始し、自分が開始した実行を一覧できますが、コンソールは使えません。呼び出しは表示されず、何も決定できません。エージェントが自分の呼び出しを承認することがないようにするためです。',
  agentHow: '呼び出しを確認するには、オペレーターのトークンでコンソールを開いてください。コンソールの管理者が {cmd} で作成でき、最後の行にトークンだけが表示されます。',
};
