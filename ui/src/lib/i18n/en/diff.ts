/** English words of the `diff` section (see ../index.svelte.ts). */
export const diff = {
};
