//! A `text/event-stream` decoder: bytes in, the `data` of each complete event out. Bytes may arrive cut
//! anywhere (inside a line, inside a UTF-8 sequence); comments (`: keep-alive`) and the other fields
//! (`event:`, `id:`, `retry:`) are skipped, several `data:` lines of one event are joined with `\n`.

/// A line longer than this is an error, not a reason to grow the buffer without end.
const MAX_LINE: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    buf: Vec<u8>,
    data: Option<String>,
}

impl SseDecoder {
    /// Feeds bytes; returns the data of each event these bytes completed, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, String> {
        self.buf.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buf[start..].iter().position(|&b| b == b'\n').map(|i| start + i) {
            let line = &self.buf[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = std::str::from_utf8(line).map_err(|e| format!("a stream line is not UTF-8: {e}"))?.to_owned();
            start = end + 1;
            if let Some(data) = self.line(&line) {
                events.push(data);
            }
        }
        self.buf.drain(..start);
        if self.buf.len() > MAX_LINE {
            return Err(format!("a stream line is longer than {MAX_LINE} bytes"));
        }
        Ok(events)
    }

    /// The body ended: the data of an event not closed by a blank line, if any (servers that close
    /// right after their last `data:` line).
    pub fn finish(&mut self) -> Result<Option<String>, String> {
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let line = String::from_utf8(rest).map_err(|e| format!("a stream line is not UTF-8: {e}"))?;
            if let Some(data) = self.line(line.trim_end_matches('\r')) {
                return Ok(Some(data));
            }
        }
        Ok(self.data.take())
    }

    fn line(&mut self, line: &str) -> Option<String> {
        if line.is_empty() {
            return self.data.take();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::SseDecoder;

    #[test]
    fn events_cut_anywhere_come_out_whole() {
        let body = "data: {\"a\":\"é\"}\r\n\r\n: keep-alive\n\nevent: x\ndata: one\ndata: two\n\ndata: [DONE]\n\n".as_bytes();
        for cut in 1..body.len() {
            let mut d = SseDecoder::default();
            let mut events = d.push(&body[..cut]).unwrap();
            events.extend(d.push(&body[cut..]).unwrap());
            assert_eq!(d.finish().unwrap(), None);
            assert_eq!(events, ["{\"a\":\"é\"}", "one\ntwo", "[DONE]"], "cut at {cut}");
        }
    }

    #[test]
    fn an_event_without_its_closing_blank_line_still_counts_at_the_end() {
        let mut d = SseDecoder::default();
        assert!(d.push(b"data: last").unwrap().is_empty());
        assert_eq!(d.finish().unwrap().as_deref(), Some("last"));
    }
}
