//! A plain HTTP server on 127.0.0.1 that records the `Authorization` header of every request: what
//! an engine URL points at when a test checks where a token goes. Shared by the test binaries.

#![allow(dead_code)]

/// A plain HTTP server on 127.0.0.1 that answers every request `{}` and keeps each request's
/// Authorization header (or "" without one).
pub async fn recording_server() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    answering_server(|_| (200, "{}".to_owned())).await
}

/// Like [`recording_server`], answering each request with `answer(its Authorization header)`.
pub async fn answering_server(answer: fn(&str) -> (u16, String)) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&head).to_string();
                let auth = text
                    .lines()
                    .find_map(|l| l.get(..15).filter(|name| name.eq_ignore_ascii_case("authorization: ")).map(|_| &l[15..]))
                    .unwrap_or("")
                    .to_owned();
                let (status, body) = answer(&auth);
                log.lock().unwrap().push(auth);
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    (base, seen)
}
