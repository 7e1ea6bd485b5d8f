/** English words of the `args` section (see ../index.svelte.ts). */
export const args = {
};
