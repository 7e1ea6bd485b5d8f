import type { Messages } from '../en';

/** Japanese words of the `grants` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const grants: Messages['grants'] = {
};
