import { describe, expect, it } from 'vitest';
import { SseParser } from './sse';
import { readEvents, toBackendEvent } from './web';
import type { SseMessage } from './sse';

function feed(chunks: string[]): SseMessage[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
}

const STREAM =
  ': keep-alive\n\n' +
  'event: queue\ndata: {"type":"added","id":"q1"}\n\n' +
  ':ping\n' +
  'event: resync\ndata: {}\n\n' +
  'event: queue\r\ndata: {"type":"removed",\r\ndata: "id":"q2"}\r\n\r\n';

describe('SseParser', () => {
  it('parses whole events and ignores keep-alive comments', () => {
    const events = feed([STREAM]);
    expect(events.map((e) => e.event)).toEqual(['queue', 'resync', 'queue']);
    expect(JSON.parse(events[0].data)).toEqual({ type: 'added', id: 'q1' });
    // Multi-line data joins with "\n".
    expect(JSON.parse(events[2].data)).toEqual({ type: 'removed', id: 'q2' });
  });

  it('gives the same events however the stream is split into chunks', () => {
    const whole = feed([STREAM]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
      expect(feed(chunks)).toEqual(whole);
    }
    // A CRLF split between two chunks is one line break, not an empty line.
    expect(feed(['event: queue\r', '\ndata: {"type":"added","id":"x"}\r', '\n\r', '\n']).map((e) => e.event)).toEqual(['queue']);
  });

  it('does not emit an event before its blank line arrives', () => {
    const p = new SseParser();
    expect(p.push('event: queue\ndata: {"type":"added","id":"q1"}\n')).toEqual([]);
    expect(p.push('\n')).toHaveLength(1);
  });
});

describe('readEvents over a byte stream', () => {
  it('decodes chunked bytes, including a multi-byte character split across chunks', async () => {
    const text = 'event: queue\ndata: {"type":"added","id":"é-1"}\n\n: keep-alive\n\nevent: resync\ndata: {}\n\n';
    const bytes = new TextEncoder().encode(text);
    const split = text.indexOf('é') + 1; // inside the two-byte é
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, split));
        c.enqueue(bytes.slice(split, split + 5));
        c.enqueue(bytes.slice(split + 5));
        c.close();
      },
    });
    const got: SseMessage[] = [];
    await readEvents(body, (m) => got.push(m));
    expect(got.map(toBackendEvent)).toEqual([{ kind: 'queue', type: 'added', id: 'é-1' }, { kind: 'resync' }]);
  });

  it('ignores unknown events and malformed data', () => {
    expect(toBackendEvent({ event: 'queue', data: 'not json', id: null })).toBeNull();
    expect(toBackendEvent({ event: 'queue', data: '{"type":"exploded","id":"a"}', id: null })).toBeNull();
    expect(toBackendEvent({ event: 'other', data: '{}', id: null })).toBeNull();
  });
});
