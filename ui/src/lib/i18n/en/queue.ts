/** English words of the `queue` section (see ../index.svelte.ts). */
export const queue = {
};
