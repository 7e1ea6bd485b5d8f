import type { Messages } from '../en';

/** Japanese words of the `queue` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const queue: Messages['queue'] = {
};
