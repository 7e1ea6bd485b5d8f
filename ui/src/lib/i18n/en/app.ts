/** English words of the `app` section (see ../index.svelte.ts). */
export const app = {
};
