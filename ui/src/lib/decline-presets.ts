/**
 * Reasons offered as one-click buttons next to the decline reason: a click fills the field (still
 * editable), Enter there sends. Told to the agent as typed, so write them for the model to read; the
 * words are the operator's language (`i18n` `detail.presets`), and that is the text sent. The ids
 * stay the same in every language. To change the offer, change this list and the words. "Ask me
 * again later" is not a reason: it is the snooze control (the call stays undecided).
 */
import { i18n } from './i18n/index.svelte';

export const DECLINE_PRESET_IDS = ['notAuthorised', 'wrongTarget', 'tooRisky'] as const;
export type DeclinePresetId = (typeof DECLINE_PRESET_IDS)[number];

/** The presets in the console's language, in order. */
export function declinePresets(): { id: DeclinePresetId; text: string }[] {
  const words = i18n.m.detail.presets;
  return DECLINE_PRESET_IDS.map((id) => ({ id, text: words[id] }));
}
