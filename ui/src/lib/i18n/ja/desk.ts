import type { Messages } from '../en';

/** Japanese words of the `desk` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const desk: Messages['desk'] = {
  quorumBadge: (have: number, need: number, first: string | null) => (first ? `${have}/${need} · ${first}` : `${have}/${need}`),
  quorumTitle: (have: number, need: number, names: string) =>
    have === 0 ? `異なる ${need} 人の承認が必要です。まだ承認はありません` : `承認 ${have}/${need}: ${names}`,
  withdrawn: '取り下げ',
  pausedAt: (time: string) => `一時停止: ${time}`,
  requestedBy: (agent: string, by: string) => `${agent}（${by} 経由）`,

  summaryLabel: '概要',
  what: '内容',
  where: '場所',
  why: '理由',
  whereParts: { cwd: '作業ディレクトリ', host: 'ホスト', database: 'データベース' },
  agentWords: 'エージェント自身の言葉です。確認されていません',

  channelsLine: (sent: number, waiting: number, failed: number, skipped: number) =>
    [
      `チャネルへの送信: 送信済み ${sent}`,
      waiting ? `待機中 ${waiting}` : '',
      failed ? `失敗 ${failed}` : '',
      skipped ? `未送信 ${skipped}` : '',
    ]
      .filter((s) => s !== '')
      .join('、'),

  lineBreak: '改行',
};
