import type { Messages } from '../en';

/** Japanese words of the `errors` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const errors: Messages['errors'] = {
};
