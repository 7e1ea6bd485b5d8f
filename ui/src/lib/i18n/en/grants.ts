/** English words of the `grants` section (see ../index.svelte.ts). */
export const grants = {
};
