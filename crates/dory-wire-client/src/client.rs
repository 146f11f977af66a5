//! The client and its IO: requests the core built, sent with reqwest;
//! responses fed back to the core; the core's timers on tokio's clock.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dory_wire::{
    Decision, Error, Event, FollowOptions, Follower, Method, Request, Run, RunSink, RunStep, Sink,
    Wait, DEFAULT_LIVENESS_TIMEOUT, DEFAULT_MAX_FRAME_BYTES,
};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use tokio::time::Instant;

use crate::Result;

/// The environment variable holding the base URL when none is given.
pub const ENV_URL: &str = dory_wire::BASE_URL_ENV;
/// The default timeout of a request answered by a JSON document (starts,
/// gets, kills). Streams are bounded by the liveness timeout instead, and a
/// synchronous exec waits for its process.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A client of the Dory API. Cheap to clone (one connection pool, shared);
/// one client serves many concurrent reads.
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    http: reqwest::Client,
    base_url: String,
    headers: HeaderMap,
    pub(crate) timeout: Duration,
    pub(crate) liveness_timeout: Duration,
    pub(crate) max_frame_bytes: usize,
    jitter_counter: AtomicU64,
}

/// Builds a [`Client`]: base URL, default headers, timeouts, liveness, the
/// frame limit, or a `reqwest::Client` of the caller's.
#[derive(Debug, Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    headers: Vec<(String, String)>,
    timeout: Option<Duration>,
    liveness_timeout: Option<Duration>,
    max_frame_bytes: Option<usize>,
    http_client: Option<reqwest::Client>,
}

impl ClientBuilder {
    /// The API's base URL (else `$DORY_URL`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// A header sent with every request (`Authorization`, …) unless the
    /// request sets the same header itself.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The timeout of a request answered by a JSON document. Default: 30 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long to wait for the headers, then for each complete frame, of an
    /// output stream. Default: the core's, 30 s.
    pub fn liveness_timeout(mut self, timeout: Duration) -> Self {
        self.liveness_timeout = Some(timeout);
        self
    }

    /// The longest frame accepted. Default: the core's, 16 MiB.
    pub fn max_frame_bytes(mut self, limit: usize) -> Self {
        self.max_frame_bytes = Some(limit);
        self
    }

    /// Sends through this `reqwest::Client` (its pool, proxies, TLS).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http_client = Some(client);
        self
    }

    /// The client; `invalid_argument` for a missing or malformed base URL or
    /// a header that cannot be sent.
    pub fn build(self) -> Result<Client> {
        // The core's rule for every client (no URL at all included).
        let env = std::env::var(ENV_URL).ok();
        let base_url = dory_wire::base_url(self.base_url.as_deref().or(env.as_deref()))?;
        let mut headers = HeaderMap::new();
        for (name, value) in self.headers {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| invalid("headers", &format!("{name:?}: {e}")))?;
            let value = HeaderValue::from_str(&value)
                .map_err(|e| invalid("headers", &format!("the value of {name:?}: {e}")))?;
            headers.insert(header, value);
        }
        let http = match self.http_client {
            Some(http) => http,
            // Redirects are answers, never followed (docs/api.md, "Redirects").
            None => reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| invalid("http_client", &describe(&e)))?,
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base_url,
                headers,
                timeout: self.timeout.unwrap_or(DEFAULT_TIMEOUT),
                liveness_timeout: self.liveness_timeout.unwrap_or(DEFAULT_LIVENESS_TIMEOUT),
                max_frame_bytes: self.max_frame_bytes.unwrap_or(DEFAULT_MAX_FRAME_BYTES),
                jitter_counter: AtomicU64::new(0),
            }),
        })
    }
}

impl Client {
    /// A client of the API at `base_url` (else `$DORY_URL`), with the
    /// defaults. See [`Client::builder`] for the rest.
    pub fn new(base_url: Option<&str>) -> Result<Client> {
        let builder = ClientBuilder::default();
        match base_url {
            Some(url) => builder.base_url(url),
            None => builder,
        }
        .build()
    }

    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The API's base URL.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }
}

pub(crate) fn invalid(name: &str, reason: &str) -> Error {
    Error::InvalidArgument {
        argument: name.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Whether reqwest's error says the connection was never made: refused,
/// the name lookup failed, the host was unreachable, the connect timed out
/// (`is_connect`: reqwest's connector failed, before a byte of the request
/// was written). Then the request cannot have reached the service.
pub(crate) fn never_connected(error: &reqwest::Error) -> bool {
    error.is_connect()
}

/// A transport error with its causes: the address and the reason.
pub(crate) fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

/// What reading one more piece of a body gave.
pub(crate) enum Pumped<D = Decision> {
    /// A piece was fed; the body goes on.
    More,
    /// The body ended: the conversation's decision.
    Ended(D),
}

/// A conversation of the core that the client drives with its IO: a
/// [`Follower`] (a read, a one-answer call) or a [`Run`] (the agent call).
/// Every decision is the conversation's; the client only sends, reads,
/// times its waits and reports what happened.
pub(crate) trait Conversation {
    /// What it decides when an answer ends.
    type Decision;
    fn request(&mut self) -> Result<Request>;
    fn open(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
        retry_after: Option<&str>,
    ) -> Result<()>;
    fn no_response(&mut self, detail: &str, jitter: f64) -> Result<Self::Decision>;
    fn not_connected(&mut self, detail: &str, jitter: f64) -> Result<Self::Decision>;
    fn wait_limit(&mut self) -> Option<Duration>;
    fn waited(&mut self, elapsed: Duration) -> bool;
}

/// A [`Conversation`] whose answers' bodies go to a sink of type `S`.
pub(crate) trait Fed<S: ?Sized>: Conversation {
    fn feed(&mut self, data: &[u8], sink: &mut S) -> Result<()>;
    fn finish(
        &mut self,
        transport_error: Option<&str>,
        jitter: f64,
        sink: &mut S,
    ) -> Result<Self::Decision>;
}

macro_rules! conversation {
    ($ty:ty, $decision:ty, $bound:path) => {
        impl Conversation for $ty {
            type Decision = $decision;
            fn request(&mut self) -> Result<Request> {
                <$ty>::request(self)
            }
            fn open(
                &mut self,
                status: u16,
                content_type: &str,
                proc_id: Option<&str>,
                retry_after: Option<&str>,
            ) -> Result<()> {
                <$ty>::open(self, status, content_type, proc_id, retry_after)
            }
            fn no_response(&mut self, detail: &str, jitter: f64) -> Result<$decision> {
                <$ty>::no_response(self, detail, jitter)
            }
            fn not_connected(&mut self, detail: &str, jitter: f64) -> Result<$decision> {
                <$ty>::not_connected(self, detail, jitter)
            }
            fn wait_limit(&mut self) -> Option<Duration> {
                <$ty>::wait_limit(self)
            }
            fn waited(&mut self, elapsed: Duration) -> bool {
                <$ty>::waited(self, elapsed)
            }
        }

        impl<S: $bound> Fed<S> for $ty {
            fn feed(&mut self, data: &[u8], sink: &mut S) -> Result<()> {
                <$ty>::feed(self, data, sink)
            }
            fn finish(
                &mut self,
                transport_error: Option<&str>,
                jitter: f64,
                sink: &mut S,
            ) -> Result<$decision> {
                <$ty>::finish(self, transport_error, jitter, sink)
            }
        }
    };
}

conversation!(Follower, Decision, Sink);
conversation!(Run, RunStep, RunSink);

impl Inner {
    /// A random value in `[0, 1)` for the follower's jitter.
    pub(crate) fn jitter(&self) -> f64 {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(self.jitter_counter.fetch_add(1, Ordering::Relaxed));
        (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn builder(&self, request: &Request) -> reqwest::RequestBuilder {
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
        };
        let url = format!("{}{}", self.base_url, request.target());
        let mut headers = self.headers.clone();
        for (name, value) in &request.headers {
            // Built by the core: names and values are valid header text.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                headers.insert(name, value);
            }
        }
        let mut builder = self.http.request(method, url).headers(headers);
        if let Some(body) = &request.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        if request.wait == Wait::Default {
            builder = builder.timeout(self.timeout);
        }
        builder
    }

    /// Sends a request answered by one JSON document — the core's
    /// one-answer conversation decides what is sent again, and when — and
    /// returns the answer's events (what they mean is the core's rule).
    pub(crate) async fn document(&self, request: Request) -> Result<Vec<Event>> {
        // The client's answer timeout bounds each wait of a call.
        let options = FollowOptions::default()
            .liveness_timeout(self.timeout)
            .max_frame_bytes(self.max_frame_bytes);
        let mut follower = Follower::call(request, options)?;
        let mut events: Vec<Event> = Vec::new();
        loop {
            let decision = match self.open(&mut follower).await? {
                Err(decision) => decision,
                Ok(mut response) => loop {
                    match self.pump(&mut follower, &mut response, &mut events).await? {
                        Pumped::More => {}
                        Pumped::Ended(decision) => break decision,
                    }
                },
            };
            match decision {
                Decision::Done(_) => break,
                Decision::Reconnect(record) => tokio::time::sleep(record.delay).await,
                Decision::Continue => {}
            }
        }
        Ok(events)
    }

    /// Sends the follower's next request and opens its response; or the
    /// follower's decision when no response came. Only the wait for the
    /// headers counts on the follower's clock.
    pub(crate) async fn open<C: Conversation>(
        &self,
        follower: &mut C,
    ) -> Result<std::result::Result<reqwest::Response, C::Decision>> {
        let request = follower.request()?;
        let limit = follower.wait_limit();
        let began = Instant::now();
        let sent = within(limit, self.builder(&request).send()).await;
        let response = match sent {
            Some(Ok(response)) => response,
            Some(Err(e)) => {
                follower.waited(began.elapsed());
                let detail = describe(&e);
                return Ok(Err(if never_connected(&e) {
                    // The request never left: the core may send it again.
                    follower.not_connected(&detail, self.jitter())?
                } else {
                    follower.no_response(&detail, self.jitter())?
                }));
            }
            None => {
                // The timer waited the whole limit (it may fire a little early).
                follower.waited(began.elapsed().max(limit.unwrap_or_default()));
                return Ok(Err(follower.no_response("", self.jitter())?));
            }
        };
        let (content_type, proc_id) = head(&response);
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        follower.open(
            response.status().as_u16(),
            content_type.as_deref().unwrap_or(""),
            proc_id.as_deref(),
            retry_after.as_deref(),
        )?;
        Ok(Ok(response))
    }

    /// Reads one more piece of `response` into the follower (and `sink`),
    /// within the follower's wait limit. Only this wait counts on the
    /// follower's clock: the caller's time between pulls never does.
    pub(crate) async fn pump<S, C: Fed<S>>(
        &self,
        follower: &mut C,
        response: &mut reqwest::Response,
        sink: &mut S,
    ) -> Result<Pumped<C::Decision>> {
        let limit = follower.wait_limit();
        let began = Instant::now();
        match within(limit, response.chunk()).await {
            Some(Ok(Some(chunk))) => {
                if follower.waited(began.elapsed()) {
                    // A trickle ran the clock out: this piece is read again
                    // from the cursor by the next request, if one is sent.
                    return self.end(follower, None, sink);
                }
                follower.feed(&chunk, sink)?;
                Ok(Pumped::More)
            }
            Some(Ok(None)) => self.end(follower, None, sink),
            Some(Err(e)) => self.end(follower, Some(&describe(&e)), sink),
            None => {
                if follower.waited(began.elapsed().max(limit.unwrap_or_default())) {
                    self.end(follower, None, sink)
                } else {
                    Ok(Pumped::More)
                }
            }
        }
    }

    fn end<S, C: Fed<S>>(
        &self,
        follower: &mut C,
        transport_error: Option<&str>,
        sink: &mut S,
    ) -> Result<Pumped<C::Decision>> {
        Ok(Pumped::Ended(follower.finish(
            transport_error,
            self.jitter(),
            sink,
        )?))
    }
}

/// `future` within `limit` (`None`: no limit); `None` when the time ran out.
async fn within<T>(
    limit: Option<Duration>,
    future: impl std::future::Future<Output = T>,
) -> Option<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
        None => Some(future.await),
    }
}

fn head(response: &reqwest::Response) -> (Option<String>, Option<String>) {
    let text = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    (text("content-type"), text("ce-process-id"))
}
