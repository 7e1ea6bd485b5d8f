/**
 * Incremental parser for a `text/event-stream` body (WHATWG "server-sent events" rules).
 * Feed it decoded text in whatever chunks the network delivers; it returns the events that
 * became complete. Comment lines (`:` keep-alives) are dropped.
 */

export type SseMessage = { event: string; data: string; id: string | null };

export class SseParser {
  private buffer = '';
  /** A chunk ended in `\r`: if the next starts with `\n`, that `\n` belongs to the same line break. */
  private pendingCr = false;
  private eventType = '';
  private dataLines: string[] = [];
  private hasData = false;
  private lastId: string | null = null;

  /** Adds text and returns every event completed by it, in order. */
  push(chunk: string): SseMessage[] {
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = false;
    this.buffer += chunk;
    const out: SseMessage[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      let end: number;
      if (lf === -1 && cr === -1) break;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr === this.buffer.length - 1) {
          // Can't know yet whether `\n` follows: take the line, remember to drop a leading `\n`.
          this.pendingCr = true;
          this.line(this.buffer.slice(start, end), out);
          start = end + 1;
          break;
        }
        const next = this.buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
        this.line(this.buffer.slice(start, end), out);
        start = next;
      } else {
        end = lf;
        this.line(this.buffer.slice(start, end), out);
        start = end + 1;
      }
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.dataLines.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        // `retry` and unknown fields: the client picks its own backoff.
        break;
    }
  }

  private dispatch(out: SseMessage[]): void {
    if (this.hasData) {
      out.push({ event: this.eventType || 'message', data: this.dataLines.join('\n'), id: this.lastId });
    }
    this.eventType = '';
    this.dataLines = [];
    this.hasData = false;
  }
}
