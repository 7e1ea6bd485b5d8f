/**
 * Reasons offered as one-click buttons next to the decline reason: a click fills the field (still
 * editable), Enter there sends. Told to the agent as typed, so write them for the model to read.
 * To change the offer, change this list.
 */
export const DECLINE_PRESETS: readonly string[] = ['Not authorised', 'Wrong target', 'Too risky', 'Ask me again later'];
