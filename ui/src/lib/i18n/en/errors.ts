/** English words of the `errors` section (see ../index.svelte.ts). */
export const errors = {
};
