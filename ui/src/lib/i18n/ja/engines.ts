import type { Messages } from '../en';

/** Japanese words of the `engines` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const engines: Messages['engines'] = {
};
