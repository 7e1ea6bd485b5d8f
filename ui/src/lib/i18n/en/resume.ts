/** English words of the `resume` section (see ../index.svelte.ts). */
export const resume = {
};
