/** Error banners: one per distinct error, dismissible, newest last. */
import type { ApiError } from './backend/backend';

/** `item`: the call the error is about (a refused decision): it goes when another call is opened. */
export type Banner = { key: number; code: string; message: string; details: unknown; item?: string };

export class Banners {
  list = $state.raw<Banner[]>([]);
  private nextKey = 1;

  push(err: Pick<ApiError, 'code' | 'message' | 'details'>, item?: string): void {
    // The same failure repeating (e.g. a reconnect loop) shows once.
    const dup = this.list.find((b) => b.code === err.code && b.message === err.message && b.item === item);
    if (dup && err.code !== 'fingerprint_mismatch') return;
    const banner: Banner = { key: this.nextKey++, code: err.code, message: err.message, details: err.details };
    if (item !== undefined) banner.item = item;
    this.list = [...this.list.filter((b) => b !== dup), banner];
  }

  /** Another call is on screen (or none): what was said about a call other than `item` goes with it. */
  opened(item: string | null): void {
    if (this.list.some((b) => b.item !== undefined && b.item !== item)) {
      this.list = this.list.filter((b) => b.item === undefined || b.item === item);
    }
  }

  dismiss(key: number): void {
    this.list = this.list.filter((b) => b.key !== key);
  }

  dismissCode(code: string): void {
    this.list = this.list.filter((b) => b.code !== code);
  }
}
