import type { Messages } from '../en';

/** Japanese words of the `app` section (see ../index.svelte.ts and ../GLOSSARY.md). */
export const app: Messages['app'] = {
};
