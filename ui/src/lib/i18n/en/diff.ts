/** English words of "since the last decision" in a call's detail (see ../index.svelte.ts). */
export const diff = {
  heading: 'Since the last decision in this thread',
  approved: (operator: string, time: string) => `Approved by ${operator}, ${time}`,
  approvedEdited: (operator: string, time: string) => `Approved with edited arguments by ${operator}, ${time} (compared with the arguments it ran with)`,
  declined: (operator: string, time: string) => `Declined by ${operator}, ${time}`,
  answered: (operator: string, time: string) => `Answered by ${operator}, ${time}`,
  reason: 'Reason:',
  same: 'Same arguments as then.',
  changes: (n: number) => (n === 1 ? '1 change:' : `${n.toLocaleString('en')} changes:`),
  more: (n: number) => `and ${n.toLocaleString('en')} more`,
  before: 'before',
  after: 'now',
  loadFailed: 'Could not load the previous decision:',
};
