import type { Messages } from '../en';

/** Japanese words of the `args` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const args: Messages['args'] = {
};
