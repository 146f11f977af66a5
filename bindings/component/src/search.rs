//! The `search` interface: the `searcher` resource over
//! [`dory_wire::search`]. Types are converted and errors mapped; every
//! decision is the core's.
//!
//! As in [`crate::reader`], a `RefCell` borrow lasts one call and calls never
//! overlap (no re-entry into a component instance, no imports).
#![forbid(unsafe_code)]

use std::cell::RefCell;

use dory_wire::search::{SearchOptions, SearchResult, Searcher};

use crate::bindings::exports::dory::wire::search as wit;
use crate::bindings::exports::dory::wire::types::Error as WitError;
use crate::convert;
use crate::preview::limit;
use crate::Component;

/// The state behind one `searcher` handle.
#[derive(Debug)]
pub struct SearcherResource {
    inner: RefCell<Searcher>,
}

fn result(r: SearchResult) -> wit::SearchResult {
    wit::SearchResult {
        text: r.text,
        truncated: r.truncated,
        total_lines: r.total_lines,
        total_bytes: r.total_bytes,
        matched_lines: r.matched_lines,
        shown_lines: r.shown_lines,
        omitted_lines: r.omitted_lines,
        partial_line: r.partial_line,
        long_lines: r.long_lines,
        first_long_line: r.first_long_line,
        spill_path: r.spill_path,
        command: r.command,
    }
}

impl wit::Guest for Component {
    type Searcher = SearcherResource;
}

impl wit::GuestSearcher for SearcherResource {
    fn create(pattern: String, options: wit::SearchOptions) -> Result<wit::Searcher, WitError> {
        let options = SearchOptions {
            context: limit(options.context),
            max_lines: limit(options.max_lines),
            max_bytes: limit(options.max_bytes),
            ignore_case: options.ignore_case,
        };
        let inner = Searcher::new(&pattern, options).map_err(|e| convert::error(&e))?;
        Ok(wit::Searcher::new(SearcherResource {
            inner: RefCell::new(inner),
        }))
    }

    fn push(&self, chunk: Vec<u8>) {
        self.inner.borrow_mut().push(&chunk);
    }

    fn buffered_bytes(&self) -> u64 {
        self.inner.borrow().buffered_bytes() as u64
    }

    fn finish(searcher: wit::Searcher, path: Option<String>) -> wit::SearchResult {
        let this: SearcherResource = searcher.into_inner();
        result(this.inner.into_inner().finish(path.as_deref()))
    }
}
