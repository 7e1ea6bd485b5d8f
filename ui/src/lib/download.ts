/**
 * Saves text as a file the browser downloads (a Blob behind an object URL and a `download` link),
 * the same in the web UI and the desktop window; nothing is written anywhere else.
 */
export type Save = (text: string, fileName: string, type: string) => void;

export const saveText: Save = (text, fileName, type) => {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has started from the URL by now; give slow ones time before letting it go.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
};

/** `approval-console-audit-<UTC time>.<ext>`, as the server names its exports. */
export function exportFileName(ext: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  return `approval-console-audit-${stamp}.${ext}`;
}
