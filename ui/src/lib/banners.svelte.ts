/** Error banners: one per distinct error, dismissible, newest last. */
import type { ApiError } from './backend/backend';

export type Banner = { key: number; code: string; message: string; details: unknown };

export class Banners {
  list = $state.raw<Banner[]>([]);
  private nextKey = 1;

  push(err: Pick<ApiError, 'code' | 'message' | 'details'>): void {
    // The same failure repeating (e.g. a reconnect loop) shows once.
    const dup = this.list.find((b) => b.code === err.code && b.message === err.message);
    if (dup && err.code !== 'fingerprint_mismatch') return;
    this.list = [...this.list.filter((b) => b !== dup), { key: this.nextKey++, code: err.code, message: err.message, details: err.details }];
  }

  dismiss(key: number): void {
    this.list = this.list.filter((b) => b.key !== key);
  }

  dismissCode(code: string): void {
    this.list = this.list.filter((b) => b.code !== code);
  }
}
