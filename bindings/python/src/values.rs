//! Immutable value classes: `Cursor`, `ResumeState`, the stream names, and
//! `value_class!`, which declares the events and the ends (`events.rs`) and
//! the follower's decisions.
//!
//! Every class is frozen, compares and hashes by value, has a `repr` that
//! evaluates back to an equal value, and `__match_args__` for `match`.

use dory_wire::{Cursor, ResumeState, Stream};
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::{intern, Borrowed, IntoPyObjectExt};

use crate::args;
use crate::errors::to_py_err;

/// `Name(a=repr(a), b=repr(b))`.
pub(crate) fn repr_call(name: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut out = String::with_capacity(64);
    out.push_str(name);
    out.push('(');
    for (i, (field, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(field);
        out.push('=');
        out.push_str(&value.repr()?.to_cow()?);
    }
    out.push(')');
    Ok(out)
}

/// A stream name as a Python `str`, the `stream` field of `Output` and
/// `Skipped`. `"stdout"` and `"stderr"` are interned: every event (and every
/// access to its `stream`) shares one `str` object per name, none is built
/// per event or per access.
pub(crate) struct StreamName(Py<PyString>);

impl StreamName {
    /// The interned name of `stream`.
    pub(crate) fn of(py: Python<'_>, stream: Stream) -> Self {
        let name = match stream {
            Stream::Stdout => intern!(py, "stdout"),
            Stream::Stderr => intern!(py, "stderr"),
        };
        StreamName(name.clone().unbind())
    }

    /// The core stream this names, if any.
    pub(crate) fn stream(&self, py: Python<'_>) -> PyResult<Option<Stream>> {
        let name = self.0.bind(py);
        // The interned objects first: a pointer comparison.
        if name.is(intern!(py, "stdout")) {
            return Ok(Some(Stream::Stdout));
        }
        if name.is(intern!(py, "stderr")) {
            return Ok(Some(Stream::Stderr));
        }
        Ok(match &*name.to_cow()? {
            "stdout" => Some(Stream::Stdout),
            "stderr" => Some(Stream::Stderr),
            _ => None,
        })
    }

    /// The name as Rust text (for messages).
    pub(crate) fn to_string_lossy(&self, py: Python<'_>) -> String {
        self.0.bind(py).to_string_lossy().into_owned()
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for StreamName {
    type Error = PyErr;

    /// Any `str`, as before (same `TypeError` otherwise); a plain `str` copy
    /// is kept, and the two known names are the interned objects.
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let text: String = obj.extract()?;
        Ok(match text.as_str() {
            "stdout" => StreamName::of(py, Stream::Stdout),
            "stderr" => StreamName::of(py, Stream::Stderr),
            other => StreamName(PyString::new(py, other).unbind()),
        })
    }
}

impl<'py> IntoPyObject<'py> for &StreamName {
    type Target = PyString;
    type Output = Bound<'py, PyString>;
    type Error = std::convert::Infallible;

    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        Ok(self.0.bind(py).clone())
    }
}

/// Declares a frozen value class whose fields convert to Python by reference.
///
/// Generates the constructor, getters, `__match_args__`, `__repr__`, `__eq__`
/// and `__hash__` (over a tuple of the fields). `signature (…)` after the
/// name gives the constructor's signature (its defaults), else every field
/// is required.
macro_rules! value_class {
    (
        $(#[$doc:meta])*
        $rust:ident as $py_name:literal
        {
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $crate::values::value_class! {
            $(#[$doc])*
            $rust as $py_name signature ($($field),*)
            {
                $( $(#[$fdoc])* $field : $ty ),*
            }
        }
    };
    (
        $(#[$doc:meta])*
        $rust:ident as $py_name:literal signature ($($sig:tt)*)
        {
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[::pyo3::pyclass(frozen, module = "dory_wire", name = $py_name)]
        pub(crate) struct $rust {
            $( $(#[$fdoc])* #[pyo3(get)] pub(crate) $field: $ty, )*
        }

        #[::pyo3::pymethods]
        impl $rust {
            #[new]
            #[pyo3(signature = ($($sig)*))]
            fn py_new($($field: $ty),*) -> Self {
                $rust { $($field),* }
            }

            /// Field names for ``match`` class patterns.
            #[classattr]
            fn __match_args__(
                py: ::pyo3::Python<'_>,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'_, ::pyo3::types::PyTuple>> {
                let names: Vec<&str> = vec![$(stringify!($field)),*];
                ::pyo3::types::PyTuple::new(py, names)
            }

            #[allow(unused_variables, unused_imports)]
            fn __repr__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                use ::pyo3::IntoPyObjectExt as _;
                let fields: Vec<(&str, ::pyo3::Bound<'_, ::pyo3::PyAny>)> = vec![
                    $((stringify!($field), (&self.$field).into_bound_py_any(py)?)),*
                ];
                $crate::values::repr_call($py_name, &fields)
            }

            fn __eq__(
                &self,
                other: &::pyo3::Bound<'_, ::pyo3::PyAny>,
            ) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                use ::pyo3::types::PyAnyMethods as _;
                let py = other.py();
                let Ok(other) = other.cast::<$rust>() else {
                    return Ok(py.NotImplemented());
                };
                let equal = self.key(py)?.eq(other.get().key(py)?)?;
                Ok(::pyo3::types::PyBool::new(py, equal).to_owned().into_any().unbind())
            }

            fn __hash__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<isize> {
                use ::pyo3::types::PyAnyMethods as _;
                self.key(py)?.hash()
            }
        }

        impl $rust {
            /// The fields as a tuple, for equality and hashing.
            fn key<'py>(
                &self,
                py: ::pyo3::Python<'py>,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::types::PyTuple>> {
                #[allow(unused_imports)]
                use ::pyo3::IntoPyObjectExt as _;
                let fields: Vec<::pyo3::Bound<'py, ::pyo3::PyAny>> =
                    vec![$((&self.$field).into_bound_py_any(py)?),*];
                ::pyo3::types::PyTuple::new(py, fields)
            }
        }
    };
}
pub(crate) use value_class;

/// Per-stream consumed byte offsets: where output has been delivered up to.
///
/// Offsets count raw bytes, never characters; setup logs use only `stdout`.
/// Wherever a cursor is accepted, a mapping such as ``{"stdout": 5}`` is too
/// (missing streams are 0). Round-trips through :meth:`to_json` /
/// :meth:`from_json` and :meth:`to_dict`.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "Cursor")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyCursor(pub(crate) Cursor);

#[pymethods]
impl PyCursor {
    #[new]
    #[pyo3(signature = (stdout = None, stderr = None))]
    fn py_new(
        stdout: Option<&Bound<'_, PyAny>>,
        stderr: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let offset = |obj: Option<&Bound<'_, PyAny>>, arg| match obj {
            Some(o) => args::offset(o, arg),
            None => Ok(0),
        };
        Ok(PyCursor(Cursor::new(
            offset(stdout, "stdout")?,
            offset(stderr, "stderr")?,
        )))
    }

    /// Bytes of stdout consumed (for setup logs: of the combined log).
    #[getter]
    fn stdout(&self) -> u64 {
        self.0.stdout
    }

    /// Bytes of stderr consumed (always 0 for setup logs).
    #[getter]
    fn stderr(&self) -> u64 {
        self.0.stderr
    }

    /// Field names for `match` class patterns.
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("stdout", "stderr")
    }

    /// The cursor as JSON: ``{"stdout": N, "stderr": M}``.
    #[pyo3(name = "to_json")]
    fn json(&self) -> String {
        format!(
            "{{\"stdout\":{},\"stderr\":{}}}",
            self.0.stdout, self.0.stderr
        )
    }

    /// Parses JSON made by :meth:`to_json` (or any object with those keys).
    ///
    /// Raises ``ValueError`` for anything else.
    #[staticmethod]
    fn from_json(py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = args::string(json, "json")?;
        let parsed = py
            .import("json")?
            .call_method1("loads", (text,))
            .map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("invalid cursor JSON: {e}"))
            })?;
        Ok(PyCursor(args::cursor(Some(&parsed), "json")?))
    }

    /// The cursor as a dict: ``{"stdout": N, "stderr": M}``.
    #[pyo3(name = "to_dict")]
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("stdout", self.0.stdout)?;
        d.set_item("stderr", self.0.stderr)?;
        Ok(d)
    }

    /// The consumed offsets after ``event``, from these before it (the
    /// core's rule): an ``Output`` or a ``Skipped`` moves its stream to its
    /// ``end``; other events move nothing.
    fn after(&self, event: &Bound<'_, PyAny>) -> PyResult<Self> {
        let event = crate::answers::event_arg(event, "after")?;
        Ok(PyCursor(self.0.after(&event)))
    }

    fn __getnewargs__(&self) -> (u64, u64) {
        (self.0.stdout, self.0.stderr)
    }

    fn __repr__(&self) -> String {
        format!("Cursor(stdout={}, stderr={})", self.0.stdout, self.0.stderr)
    }
}

/// Everything needed to resume reading a process's output, even in another
/// process: the process id, the cursor and whether ``exit`` was seen.
///
/// Get one from :meth:`Reader.resume_state`, save it with
/// :meth:`to_json`, load it with :meth:`ResumeState.from_json` and pass it to
/// :meth:`Reader.resume`.
#[pyclass(frozen, eq, module = "dory_wire", name = "ResumeState")]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyResumeState(pub(crate) ResumeState);

#[pymethods]
impl PyResumeState {
    /// Format version of the serialized form.
    #[getter]
    fn version(&self) -> u32 {
        self.0.version
    }

    /// The process id, once known.
    #[getter]
    fn proc_id(&self) -> Option<&str> {
        self.0.proc_id.as_deref()
    }

    /// Consumed offsets.
    #[getter]
    fn cursor(&self) -> PyCursor {
        PyCursor(self.0.cursor)
    }

    /// Whether the ``exit`` frame was seen (the output is complete).
    #[getter]
    fn exit_seen(&self) -> bool {
        self.0.exit_seen
    }

    /// The exit code, when ``exit`` was seen with one.
    #[getter]
    fn exit_code(&self) -> Option<i64> {
        self.0.exit_code
    }

    /// Whether the exit was a timeout.
    #[getter]
    fn timed_out(&self) -> bool {
        self.0.timed_out
    }

    /// Serializes to JSON (versioned, snake_case keys, the same in every
    /// language; stable across releases of the format).
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    /// Parses JSON made by :meth:`to_json` in any language (version 1
    /// states with the older key ``process_id`` too).
    ///
    /// Raises :class:`InvalidState` (a ``ValueError``) for malformed JSON or an
    /// unsupported version.
    #[staticmethod]
    fn from_json(py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = args::string(json, "json")?;
        ResumeState::from_json(&text)
            .map(PyResumeState)
            .map_err(|e| to_py_err(py, e, Vec::new()))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = &self.0;
        let proc_id = s.proc_id.as_deref().into_bound_py_any(py)?;
        let exit_code = s.exit_code.into_bound_py_any(py)?;
        Ok(format!(
            "ResumeState(version={}, proc_id={}, cursor=Cursor(stdout={}, stderr={}), exit_seen={}, exit_code={}, timed_out={})",
            s.version,
            proc_id.repr()?,
            s.cursor.stdout,
            s.cursor.stderr,
            if s.exit_seen { "True" } else { "False" },
            exit_code.repr()?,
            if s.timed_out { "True" } else { "False" },
        ))
    }
}
