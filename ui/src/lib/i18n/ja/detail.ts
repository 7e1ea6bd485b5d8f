import type { Messages } from '../en';

/** Japanese words of the `detail` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const detail: Messages['detail'] = {
};
