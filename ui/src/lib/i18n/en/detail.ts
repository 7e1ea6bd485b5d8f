/** English words of the `detail` section (see ../index.svelte.ts). */
export const detail = {
};
