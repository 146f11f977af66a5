//! Python bindings for dory-wire.
#![forbid(unsafe_code)]
use pyo3::prelude::*;

/// A test class.
#[pyclass(frozen, eq, hash, module = "dory_wire")]
#[derive(PartialEq, Eq, Hash)]
struct Foo {
    #[pyo3(get)]
    x: u64,
}

#[pymethods]
impl Foo {
    #[new]
    fn new(x: u64) -> Self { Foo { x } }
    #[classattr]
    fn __match_args__() -> (&'static str,) { ("x",) }
    fn feed(&self, py: Python<'_>, data: &Bound<'_, pyo3::types::PyBytes>) -> usize {
        let d = data.as_bytes();
        py.detach(|| d.len())
    }
}

/// The native module.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Foo>()?;
    Ok(())
}
