/** English words used across views (see ../index.svelte.ts). */
export const common = {
  approve: 'Approve',
  decline: 'Decline',
  resume: 'Resume',
  cancel: 'Cancel',
  save: 'Save',
  saved: 'Saved',
  close: 'Close',
  remove: 'Remove',
  edit: 'Edit',
  retry: 'Try again',
  loading: 'Loading…',
  loadMore: 'Load more',
  copy: 'Copy',
  copied: 'Copied',
  none: 'none',
  yes: 'yes',
  no: 'no',
  /** "3 calls", "1 call". */
  calls: (n: number) => (n === 1 ? '1 call' : `${n.toLocaleString('en')} calls`),
};
