/** English words of the `engines` section (see ../index.svelte.ts). */
export const engines = {
};
