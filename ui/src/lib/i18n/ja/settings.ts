import type { Messages } from '../en';

/** Japanese words of the `settings` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const settings: Messages['settings'] = {
};
