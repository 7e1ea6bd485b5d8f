/** English words of the `audit` section (see ../index.svelte.ts). */
export const audit = {
};
