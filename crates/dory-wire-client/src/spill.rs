//! Spill writers for [`Computer::run`](crate::Computer::run): each view of a
//! run is written as it streams, then committed (saved under its spill id)
//! or discarded.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What [`Computer::run`](crate::Computer::run) writes each view's spill
/// with, as the output arrives, so that memory stays in proportion to the
/// preview limits whatever the output's size.
///
/// For each view that receives bytes, `run` calls [`open`](Self::open) once
/// with the view's spill id, then [`write`](Self::write) with each chunk in
/// order, then, at the end, [`commit`](Self::commit) when the view's preview
/// was cut (its notice names the returned path) or
/// [`discard`](Self::discard) when the preview holds every byte. A call
/// that is cancelled (its future dropped) or fails discards every file it
/// opened and did not commit.
///
/// An error from any method never loses the preview: that view's
/// [`Preview::spill_error`](dory_wire::preview::Preview::spill_error) says
/// why, in the core's words (`spill writer failed: <kind>: <message>`), its
/// notice names no file, and nothing more is written to it.
///
/// The methods are called from inside the call's future: blocking IO there
/// blocks the runtime's thread for as long as it takes (fine for local
/// files, as [`SpillDirectory`] writes; hand slow storage to a thread of
/// your own through the file type).
///
/// ```
/// use std::io;
/// use std::sync::{Arc, Mutex};
/// use dory_wire_client::RunSpill;
///
/// /// Keeps each committed view in memory, under its spill id.
/// #[derive(Default)]
/// struct Memory(Arc<Mutex<Vec<(String, Vec<u8>)>>>);
///
/// impl RunSpill for Memory {
///     type File = (String, Vec<u8>);
///     fn open(&self, spill_id: &str) -> io::Result<Self::File> {
///         Ok((spill_id.to_owned(), Vec::new()))
///     }
///     fn write(&self, file: &mut Self::File, data: &[u8]) -> io::Result<()> {
///         file.1.extend_from_slice(data);
///         Ok(())
///     }
///     fn commit(&self, file: Self::File) -> io::Result<String> {
///         let path = format!("memory:{}", file.0);
///         self.0.lock().map_err(|_| io::Error::other("poisoned"))?.push(file);
///         Ok(path)
///     }
///     fn discard(&self, _file: Self::File) {}
/// }
/// ```
pub trait RunSpill: Send + Sync + 'static {
    /// One view's file while it is written.
    type File: Send + 'static;

    /// Opens the file of the view saved as `spill_id` (a plain name such as
    /// `run-<32 hex>-combined`).
    ///
    /// # Errors
    /// Any IO error: the view is not spilled and its preview says why.
    fn open(&self, spill_id: &str) -> io::Result<Self::File>;

    /// Appends the next bytes of the view.
    ///
    /// # Errors
    /// Any IO error: the file is discarded and the preview says why.
    fn write(&self, file: &mut Self::File, data: &[u8]) -> io::Result<()>;

    /// Saves the file: where it now is (one line: the notice names it).
    ///
    /// # Errors
    /// Any IO error: the preview names no file and says why.
    fn commit(&self, file: Self::File) -> io::Result<String>;

    /// Removes the file: the view was not cut, or the call did not finish.
    /// Called from `Drop` on cancellation, so it must not block for long.
    fn discard(&self, file: Self::File);
}

/// The spill of a run, its type erased (what [`RunOptions`](crate::RunOptions) keeps).
pub(crate) trait DynSpill: Send + Sync {
    fn open_dyn(self: Arc<Self>, spill_id: &str) -> io::Result<Box<dyn DynFile>>;
}

/// One open view file of an erased spill; discarded when dropped uncommitted.
pub(crate) trait DynFile: Send {
    fn write(&mut self, data: &[u8]) -> io::Result<()>;
    fn commit(self: Box<Self>) -> io::Result<String>;
}

impl<S: RunSpill> DynSpill for S {
    fn open_dyn(self: Arc<Self>, spill_id: &str) -> io::Result<Box<dyn DynFile>> {
        let file = self.open(spill_id)?;
        Ok(Box::new(Opened {
            spill: self,
            file: Some(file),
        }))
    }
}

struct Opened<S: RunSpill> {
    spill: Arc<S>,
    /// `None` once committed.
    file: Option<S::File>,
}

impl<S: RunSpill> DynFile for Opened<S> {
    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        match self.file.as_mut() {
            Some(file) => self.spill.write(file, data),
            None => Err(io::Error::other("the spill file was already committed")),
        }
    }

    fn commit(mut self: Box<Self>) -> io::Result<String> {
        match self.file.take() {
            Some(file) => self.spill.commit(file),
            None => Err(io::Error::other("the spill file was already committed")),
        }
    }
}

impl<S: RunSpill> Drop for Opened<S> {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            self.spill.discard(file);
        }
    }
}

/// A [`RunSpill`] that saves each view as `<directory>/<spill_id><suffix>`.
///
/// The directory is created when a file is first opened. Each view is
/// written to a temporary file in the directory (`.spill-<random>.tmp`,
/// created with mode 0600 on Unix), renamed to its name on commit — so no
/// reader ever sees a partial file — and removed on discard, on error and
/// when the call is cancelled. [`commit`](RunSpill::commit) returns the
/// absolute path. A spill id that is not a plain file name (1–128 of
/// `[A-Za-z0-9._-]`, not `.` or `..`) is refused with an
/// [`io::ErrorKind::InvalidInput`] error saying why.
///
/// Writes are plain blocking file IO inside the call's future (local files:
/// each write is a `write(2)` of one chunk).
///
/// ```no_run
/// use dory_wire_client::{Client, RunOptions, SpillDirectory};
///
/// # async fn run() -> dory_wire_client::Result<()> {
/// let computer = Client::new(None)?.computers().get("c1");
/// let spill = SpillDirectory::new("/tmp/tool-output").with_suffix(".log");
/// let result = computer.run("make test", RunOptions::new().spill(spill)).await?;
/// println!("{}", result.combined.text); // a cut preview names the saved file
/// # Ok(()) }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SpillDirectory {
    directory: PathBuf,
    suffix: String,
}

impl fmt::Debug for SpillDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpillDirectory")
            .field("directory", &self.directory)
            .field("suffix", &self.suffix)
            .finish()
    }
}

impl SpillDirectory {
    /// Saves into `directory` (created when needed), names ending `.txt`.
    pub fn new(directory: impl Into<PathBuf>) -> Self {
        SpillDirectory {
            directory: directory.into(),
            suffix: ".txt".to_owned(),
        }
    }

    /// Names end with `suffix` instead of `.txt` (empty: the bare id). The
    /// suffix is part of the file name, so it follows the same rule as ids.
    #[must_use]
    pub fn with_suffix(mut self, suffix: impl Into<String>) -> Self {
        self.suffix = suffix.into();
        self
    }

    /// The directory.
    pub fn directory(&self) -> &Path {
        &self.directory
    }

    /// The suffix.
    pub fn suffix(&self) -> &str {
        &self.suffix
    }

    /// Where the spill `spill_id` is saved.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] when `spill_id` (or the suffix) is
    /// not a plain file name.
    pub fn path_for(&self, spill_id: &str) -> io::Result<PathBuf> {
        // The core's one rule for every client's spill directory.
        let name = dory_wire::preview::spill_file_name(spill_id, &self.suffix)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        Ok(self.directory.join(name))
    }

    fn create_temp(&self) -> io::Result<(File, PathBuf)> {
        let mut tries = 0;
        loop {
            let mut random = [0u8; 8];
            getrandom::getrandom(&mut random).map_err(|e| io::Error::other(e.to_string()))?;
            let name = format!(".spill-{:016x}.tmp", u64::from_le_bytes(random));
            let path = self.directory.join(name);
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            match options.open(&path) {
                Ok(file) => return Ok((file, path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

/// A view being written by a [`SpillDirectory`]: its temporary file, removed
/// when dropped before it is committed.
#[derive(Debug)]
pub struct SpillDirectoryFile {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl Drop for SpillDirectoryFile {
    fn drop(&mut self) {
        if !self.committed {
            drop(self.file.take());
            let _ = fs::remove_file(&self.temp);
        }
    }
}

impl RunSpill for SpillDirectory {
    type File = SpillDirectoryFile;

    fn open(&self, spill_id: &str) -> io::Result<SpillDirectoryFile> {
        let target = self.path_for(spill_id)?;
        fs::create_dir_all(&self.directory)?;
        let (file, temp) = self.create_temp()?;
        Ok(SpillDirectoryFile {
            file: Some(file),
            temp,
            target,
            committed: false,
        })
    }

    fn write(&self, file: &mut SpillDirectoryFile, data: &[u8]) -> io::Result<()> {
        match file.file.as_mut() {
            Some(f) => f.write_all(data),
            None => Err(io::Error::other("the spill file is closed")),
        }
    }

    fn commit(&self, mut file: SpillDirectoryFile) -> io::Result<String> {
        if let Some(mut f) = file.file.take() {
            f.flush()?;
            f.sync_all()?;
        }
        fs::rename(&file.temp, &file.target)?;
        file.committed = true;
        let path = fs::canonicalize(&file.target)?;
        path.into_os_string().into_string().map_err(|path| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the spill path {path:?} is not UTF-8"),
            )
        })
    }

    fn discard(&self, file: SpillDirectoryFile) {
        drop(file);
    }
}
