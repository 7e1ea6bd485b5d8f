/**
 * The one-time warning that desktop notifications do not work: shown while this process runs them
 * and showing failed; once dismissed, hidden until the error text changes.
 */
import type { NotifyStatus } from './backend/backend';

export class NotifyWarning {
  /** The last status fetched; `null` before the first answer. */
  status = $state.raw<NotifyStatus | null>(null);
  /** The error text that was dismissed (`''` for none given); `null`: nothing dismissed yet. */
  private dismissed = $state<string | null>(null);

  /** What the warning names as the cause, when it is shown. */
  readonly error = $derived(this.status?.lastError ?? '');

  readonly visible = $derived(
    this.status !== null && this.status.running && this.status.available === false && this.dismissed !== (this.status.lastError ?? ''),
  );

  update(status: NotifyStatus): void {
    this.status = status;
  }

  dismiss(): void {
    if (this.status) this.dismissed = this.status.lastError ?? '';
  }
}

/**
 * The page's warning. The console is mounted again when the token changes; a warning dismissed
 * before that stays dismissed for the rest of the page session.
 */
export const pageNotifyWarning = new NotifyWarning();
