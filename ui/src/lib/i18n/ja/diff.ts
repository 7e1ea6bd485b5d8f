import type { Messages } from '../en';

/** Japanese words of the `diff` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const diff: Messages['diff'] = {
};
