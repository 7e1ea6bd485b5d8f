/** English words of the `settings` section (see ../index.svelte.ts). */
export const settings = {
};
