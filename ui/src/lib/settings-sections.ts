/**
 * The sections of Settings (issue 45), each addressable by id: the view shows `#settings-<id>` and
 * scrolls to the one its `section` prop names; a link names one (`?section=channels` in the shell's
 * route). Which of them a credential sees is the view's to say (a paired device sees Appearance only).
 */
export const SETTINGS_SECTIONS = [
  'notifications',
  'approvals',
  'time-limits',
  'channels',
  'remote-listener',
  'policy',
  'tokens',
  'devices',
  'desktop',
  'appearance',
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

/** The sections whose fields wait for the one Save (the settings the console keeps). */
export const SAVED_SECTIONS: readonly SettingsSection[] = ['notifications', 'approvals', 'time-limits', 'channels', 'remote-listener'];

export function isSettingsSection(value: unknown): value is SettingsSection {
  return typeof value === 'string' && (SETTINGS_SECTIONS as readonly string[]).includes(value);
}

/** The element id of a section. */
export function sectionId(s: SettingsSection): string {
  return `settings-${s}`;
}
