import type { Messages } from '../en';

/** Japanese words of the `risk` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const risk: Messages['risk'] = {
  levels: { low: '低', medium: '中', high: '高', critical: '重大' },
  unrated: '未評価',
  chipTitle: (level: string, reasons: string) => (reasons ? `リスク: ${level}\n${reasons}` : `リスク: ${level}`),
  unratedTitle: 'コンソールはこの呼び出しのリスクを評価していません。引数をご自身で確認してください。',
  approveRisky: '承認…',
  stepHeading: '{tool} を承認しますか？ {level}',
  whyHeading: '注意が必要な理由:',
  charactersOnly: '引数に見えない文字または紛らわしい文字が含まれています。読んだ内容と実行される内容が異なる可能性があります。',
  typeLabel: '承認するには {tool} と入力してください',
  typeMismatch: 'まだツール名と一致しません。正確に入力するか、ボタンを長押ししてください。',
  typedConfirm: '承認',
  hold: '長押しで承認',
  holding: 'そのまま押し続けてください…',
  hint: 'Enter やクリックを一度押すだけでは承認されません。ボタン（またはボタン上で Enter か Space）を 1 秒間押し続けるか、ツール名を入力してください。Esc で取り消します。',
  hintTouch: '一度タップするだけでは承認されません。ボタンを 1 秒間押し続けるか、ツール名を入力してください。',
  settling: 'この呼び出しは表示された直後のため、そのキーは無視されました。続けるにはもう一度押してください。',
};
