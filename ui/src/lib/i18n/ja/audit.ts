import type { Messages } from '../en';

/** Japanese words of the `audit` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const audit: Messages['audit'] = {
};
