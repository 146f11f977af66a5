//! Fault injection: cut a response body after a byte budget and drop the
//! connection without the chunked terminator, as a broken network would.

use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{self, BoxStream};
use futures_util::StreamExt as _;

enum State {
    Pass(BoxStream<'static, std::io::Result<Bytes>>, u64),
    Abort,
    Done,
}

/// Passes `body` through until `budget` bytes were sent (possibly in the
/// middle of a line), then fails the body, which makes the HTTP server close
/// the connection without ending the chunked body.
pub(crate) fn cut_after(
    body: BoxStream<'static, std::io::Result<Bytes>>,
    budget: u64,
) -> BoxStream<'static, std::io::Result<Bytes>> {
    stream::unfold(State::Pass(body, budget), |state| async move {
        match state {
            State::Pass(mut body, left) => match body.next().await {
                None => None,
                Some(Err(e)) => Some((Err(e), State::Done)),
                Some(Ok(b)) if (b.len() as u64) < left => {
                    let left = left - b.len() as u64;
                    Some((Ok(b), State::Pass(body, left)))
                }
                Some(Ok(b)) => {
                    // `left` < b.len() here, so it fits in usize.
                    let keep = usize::try_from(left).unwrap_or(b.len()).min(b.len());
                    Some((Ok(b.slice(..keep)), State::Abort))
                }
            },
            State::Abort => {
                // Pausing lets the server flush the partial line before the
                // error tears the connection down.
                tokio::time::sleep(Duration::from_millis(20)).await;
                Some((
                    Err(std::io::Error::other("fault injection: connection dropped")),
                    State::Done,
                ))
            }
            State::Done => None,
        }
    })
    .boxed()
}
