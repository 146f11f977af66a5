//! Searching a saved output: [`search_file`] reads a spill in chunks into
//! the core's [`Searcher`] (every decision is the core's).

use std::error::Error as StdError;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use dory_wire::search::{SearchOptions, SearchResult, Searcher};

/// The size of each read: memory stays bounded whatever the file's size.
const CHUNK_BYTES: usize = 1 << 20;

/// Why [`search_file`] gave no result.
#[derive(Debug)]
#[non_exhaustive]
pub enum SearchFileError {
    /// The core refused the search before any read: a bad pattern
    /// (`invalid_argument`, argument `pattern`) or limits a run refuses
    /// (`invalid_limits`).
    Search(dory_wire::Error),
    /// The file could not be read.
    Io(io::Error),
}

impl fmt::Display for SearchFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchFileError::Search(error) => error.fmt(f),
            SearchFileError::Io(error) => write!(f, "the saved output could not be read: {error}"),
        }
    }
}

impl StdError for SearchFileError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            SearchFileError::Search(error) => Some(error),
            SearchFileError::Io(error) => Some(error),
        }
    }
}

impl From<dory_wire::Error> for SearchFileError {
    fn from(error: dory_wire::Error) -> Self {
        SearchFileError::Search(error)
    }
}

impl From<io::Error> for SearchFileError {
    fn from(error: io::Error) -> Self {
        SearchFileError::Io(error)
    }
}

/// Searches the file at `path` (a spill, of any size) for `pattern`: the
/// matching lines with their 1-based numbers, `options.context` lines
/// around each, within `options.max_lines` lines and `options.max_bytes`
/// bytes (a run's defaults), with a notice naming the `grep -n -E` command
/// that lists every match — the follow-up an agent hands its model after a
/// cut preview (`docs/api.md`, "Searching a spill").
///
/// The file is read in 1 MiB chunks on tokio's blocking pool (the search is
/// CPU work); memory is bounded by the limits whatever the file's size.
///
/// ```no_run
/// # async fn demo() -> Result<(), dory_wire_client::SearchFileError> {
/// use dory_wire::search::SearchOptions;
///
/// let options = SearchOptions { context: 2, ..SearchOptions::default() };
/// let found = dory_wire_client::search_file("/tmp/out.txt", r"error\[E\d+\]", options).await?;
/// println!("{}", found.text);
/// # Ok(()) }
/// ```
///
/// # Errors
///
/// [`SearchFileError::Search`] when the core refuses the pattern or the
/// limits (nothing is read); [`SearchFileError::Io`] when the file cannot
/// be opened or read.
pub async fn search_file(
    path: impl AsRef<Path>,
    pattern: &str,
    options: SearchOptions,
) -> Result<SearchResult, SearchFileError> {
    let searcher = Searcher::new(pattern, options)?;
    let path: PathBuf = path.as_ref().to_owned();
    tokio::task::spawn_blocking(move || search_blocking(searcher, &path))
        .await
        .map_err(|joined| SearchFileError::Io(io::Error::other(joined)))?
}

fn search_blocking(mut searcher: Searcher, path: &Path) -> Result<SearchResult, SearchFileError> {
    let mut file = File::open(path)?;
    let mut chunk = vec![0u8; CHUNK_BYTES];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        searcher.push(&chunk[..n]);
    }
    let name = path.to_string_lossy();
    Ok(searcher.finish(Some(&name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_file_is_searched_and_named_in_the_notice() {
        let dir = std::env::temp_dir().join(format!("dory-search-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let path = dir.join("out.txt");
        let mut text = String::new();
        for i in 1..=3000 {
            if i % 100 == 0 {
                text.push_str(&format!("error: case {i}\n"));
            } else {
                text.push_str(&format!("ok {i}\n"));
            }
        }
        std::fs::write(&path, &text).expect("the spill");
        let options = SearchOptions {
            max_lines: 5,
            ..SearchOptions::default()
        };
        let found = search_file(&path, "^error", options)
            .await
            .expect("a result");
        assert_eq!(found.matched_lines, 30);
        assert!(found
            .text
            .starts_with("100:error: case 100\n200:error: case 200\n"));
        assert!(found.truncated);
        assert_eq!(
            found.spill_path.as_deref(),
            Some(path.to_string_lossy().as_ref())
        );
        assert!(found.text.contains("grep -n -E '^error'"), "{}", found.text);
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }

    #[tokio::test]
    async fn a_bad_pattern_reads_nothing_and_a_missing_file_is_io() {
        let bad = search_file("/nonexistent/dory", "(", SearchOptions::default()).await;
        match bad {
            Err(SearchFileError::Search(e)) => assert_eq!(e.code(), "invalid_argument"),
            other => panic!("{other:?}"),
        }
        let missing = search_file("/nonexistent/dory", "x", SearchOptions::default()).await;
        match missing {
            Err(SearchFileError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
    }
}
