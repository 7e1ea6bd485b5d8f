import type { Messages } from '../en';

/** Japanese words of the `resume` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const resume: Messages['resume'] = {
};
