//! The files generated from the core's record tables (`dory_wire::records`),
//! and the check that they are up to date.
//!
//! Each generated piece is rendered here from the tables and compared with
//! what the repository holds: a whole file (`bindings/python/src/records.rs`,
//! `bindings/component/src/records.rs`) or the region of a hand-written file
//! between a `<generated …>` line and a `</generated>` line (the `.pyi`, the
//! `.d.ts`, the WIT). The test fails when one is stale; `DORY_GENERATE=1`
//! (what `scripts/generate.sh` sets) writes them instead. After a WIT change,
//! `bash scripts/component.sh --bindings` regenerates the Component's
//! `bindings.rs` (wit-bindgen), which its build checks against the WIT.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dory_wire::records::{
    FieldType, Record, DECISIONS, DISCONNECT_REASONS, ENDS, END_REASONS, EVENTS,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const BEGIN: &str = "<generated from dory_wire::records by scripts/generate.sh: do not edit>";
const END: &str = "</generated>";

/// Compares (or with `DORY_GENERATE=1` writes) one generated piece. `region`
/// names the region inside the file, `None` for the whole file. Returns a
/// complaint when stale.
fn settle(path: &str, region: Option<(&str, &str)>, text: &str) -> Option<String> {
    let full = root().join(path);
    let current = std::fs::read_to_string(&full).unwrap_or_default();
    let wanted = match region {
        None => text.to_owned(),
        Some((comment, name)) => {
            let begin = format!("{comment} {BEGIN} {name}\n");
            let end = format!("{comment} {END} {name}\n");
            let (Some(b), Some(e)) = (current.find(&begin), current.find(&end)) else {
                return Some(format!(
                    "{path}: the region {name} is missing (lines `{}` and `{}`)",
                    begin.trim_end(),
                    end.trim_end()
                ));
            };
            assert!(b < e, "{path}: region {name} ends before it begins");
            format!("{}{begin}{text}{}", &current[..b], &current[e..])
        }
    };
    if wanted == current {
        return None;
    }
    if std::env::var_os("DORY_GENERATE").is_some() {
        std::fs::write(&full, &wanted).unwrap();
        eprintln!(
            "generated {path}{}",
            region.map(|r| format!(" ({})", r.1)).unwrap_or_default()
        );
        None
    } else {
        Some(format!(
            "{path}{} is stale: run bash scripts/generate.sh",
            region
                .map(|r| format!(" (region {})", r.1))
                .unwrap_or_default()
        ))
    }
}

fn all<'a>() -> impl Iterator<Item = &'a Record> {
    EVENTS.iter().chain(ENDS).chain(DECISIONS)
}

/// A field's doc, with the unit its language takes a duration in.
fn unit_doc(field: &dory_wire::records::Field, unit: &str) -> String {
    match field.ty {
        FieldType::Duration => format!("{} {unit}", field.doc),
        _ => field.doc.to_owned(),
    }
}

/// The names of an end's reasons (`end == true`) or of every reason.
fn reasons(end: bool) -> Vec<&'static str> {
    let list = if end { END_REASONS } else { DISCONNECT_REASONS };
    list.iter().map(|r| r.as_str()).collect()
}

// ---------------------------------------------------------------- Python

/// The pyo3 type of a field, as the value class stores it.
fn pyo3_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Str
        | FieldType::ProcessStatus
        | FieldType::DisconnectReason
        | FieldType::EndReason => "String",
        FieldType::Stream => "StreamName",
        FieldType::U64 => "u64",
        FieldType::OptI64 => "Option<i64>",
        FieldType::Bool => "bool",
        FieldType::Bytes => "Py<PyBytes>",
        FieldType::Cursor => "Py<PyCursor>",
        FieldType::OptStr => "Option<String>",
        FieldType::U32 => "u32",
        FieldType::Duration => "f64",
    }
}

/// The method of `records::Fields` that takes the next value of a type.
fn pyo3_take(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Str => "string",
        FieldType::Stream => "stream",
        FieldType::ProcessStatus => "status",
        FieldType::U64 => "u64",
        FieldType::OptI64 => "opt_i64",
        FieldType::Bool => "bool",
        FieldType::Bytes => "bytes",
        FieldType::Cursor => "cursor",
        FieldType::DisconnectReason | FieldType::EndReason => "reason",
        FieldType::OptStr => "opt_str",
        FieldType::U32 => "u32",
        FieldType::Duration => "duration",
    }
}

/// Python docstrings (pyo3 takes them from the Rust doc comments).
fn rust_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = doc.replace("`none`", "``None``");
    for line in wrap(&doc, 96 - indent.len() - 4) {
        writeln!(out, "{indent}/// {line}").unwrap();
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn python_records_rs() -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated from dory_wire::records by scripts/generate.sh: do not edit.\n\
         //! The events and the ends as immutable value classes, one per row of\n\
         //! the core's record tables (`dory_wire::records::EVENTS`, `ENDS`), and\n\
         //! the conversion of a row's values into its class.\n\
         //!\n\
         //! Generated by `crates/dory-wire/tests/generated.rs` (run\n\
         //! `bash scripts/generate.sh`); `make test` fails when it is stale.\n\n\
         use dory_wire::records::{Record, Value, EVENTS};\n\
         use dory_wire::Event;\n\
         use pyo3::prelude::*;\n\
         use pyo3::types::PyBytes;\n\n\
         use crate::events::{from, Fields};\n\
         use crate::values::{value_class, PyCursor, StreamName};\n",
    );
    for record in all() {
        out.push_str("\nvalue_class! {\n");
        rust_doc(&mut out, "    ", record.doc);
        let optional = optional_tail(record);
        let signature = if optional == 0 {
            String::new()
        } else {
            let sig: Vec<String> = record
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    if i >= record.fields.len() - optional {
                        format!("{} = None", f.python_name())
                    } else {
                        f.python_name()
                    }
                })
                .collect();
            format!(" signature ({})", sig.join(", "))
        };
        writeln!(
            out,
            "    {} as \"{}\"{signature} {{",
            record.class_name(),
            record.class_name()
        )
        .unwrap();
        for field in record.fields {
            rust_doc(&mut out, "        ", &unit_doc(field, "In seconds."));
            writeln!(
                out,
                "        {}: {},",
                field.python_name(),
                pyo3_type(field.ty)
            )
            .unwrap();
        }
        out.push_str("    }\n}\n");
    }
    out.push_str(
        "\n/// The value class of `record`, built from its values in the row's order.\n\
         pub(crate) fn to_py<'py>(\n    py: Python<'py>,\n    record: &Record,\n    values: Vec<Value<'_>>,\n\
         ) -> PyResult<Bound<'py, PyAny>> {\n    \
         let mut f = Fields::new(py, record, values);\n    \
         let obj = match record.name {\n",
    );
    for record in all() {
        if record.fields.is_empty() {
            writeln!(
                out,
                "        \"{}\" => {} {{}}.into_pyobject(py)?.into_any(),",
                record.name,
                record.class_name()
            )
            .unwrap();
            continue;
        }
        writeln!(
            out,
            "        \"{}\" => {} {{",
            record.name,
            record.class_name()
        )
        .unwrap();
        for field in record.fields {
            writeln!(
                out,
                "            {}: f.{}()?,",
                field.python_name(),
                pyo3_take(field.ty)
            )
            .unwrap();
        }
        out.push_str("        }\n        .into_pyobject(py)?\n        .into_any(),\n");
    }
    out.push_str("        _ => return Err(f.unknown()),\n    };\n    f.done()?;\n    Ok(obj)\n}\n");
    out.push_str(
        "\n/// The core event of an object of one of the event classes; `None` for\n\
         /// any other object.\n\
         pub(crate) fn event_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Option<Event>> {\n    \
         let py = obj.py();\n",
    );
    for (i, record) in EVENTS.iter().enumerate() {
        writeln!(
            out,
            "    if let Ok(e) = obj.cast::<{}>() {{",
            record.class_name()
        )
        .unwrap();
        if record.fields.is_empty() {
            out.push_str("        let _ = e;\n");
        } else {
            out.push_str("        let e = e.get();\n");
        }
        let values: Vec<String> = record
            .fields
            .iter()
            .map(|f| format!("from::{}(py, &e.{})?", pyo3_take(f.ty), f.python_name()))
            .collect();
        writeln!(
            out,
            "        return from::event(&EVENTS[{i}], &[{}]);\n    }}",
            values.join(", ")
        )
        .unwrap();
    }
    out.push_str("    Ok(None)\n}\n");
    out.push_str("\n/// Adds every class of the tables to the module.\n");
    out.push_str("pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {\n");
    for record in all() {
        writeln!(out, "    m.add_class::<{}>()?;", record.class_name()).unwrap();
    }
    out.push_str("    Ok(())\n}\n");
    out
}

/// How many fields at the end of `record` may be absent (an optional field
/// added to a record keeps its constructor's old calls working): they
/// default to none in the Python constructor.
fn optional_tail(record: &Record) -> usize {
    record
        .fields
        .iter()
        .rev()
        .take_while(|f| matches!(f.ty, FieldType::OptI64 | FieldType::OptStr))
        .count()
        .min(record.fields.len().saturating_sub(1))
}

/// The stub's types of a field: the constructor's and the property's.
fn pyi_types(ty: FieldType) -> (String, String) {
    let same = |s: &str| (s.to_owned(), s.to_owned());
    match ty {
        FieldType::Str => same("str"),
        FieldType::Stream => ("str".into(), "_StreamName".into()),
        FieldType::ProcessStatus => ("str".into(), "Literal[\"running\", \"exited\"]".into()),
        FieldType::U64 => same("int"),
        FieldType::OptI64 => same("int | None"),
        FieldType::Bool => same("bool"),
        FieldType::Bytes => same("bytes"),
        FieldType::Cursor => same("Cursor"),
        FieldType::EndReason => {
            let names: Vec<String> = reasons(true).iter().map(|r| format!("\"{r}\"")).collect();
            ("str".into(), format!("Literal[{}]", names.join(", ")))
        }
        // The alias of every reason, written beside the follower's stubs.
        FieldType::DisconnectReason => ("str".into(), "_Reason".into()),
        FieldType::OptStr => same("str | None"),
        FieldType::U32 => same("int"),
        FieldType::Duration => same("float"),
    }
}

fn pyi_region(tables: &[(&[Record], &str)]) -> String {
    let mut out = String::new();
    let union = |records: &[Record]| -> String {
        records
            .iter()
            .map(|r| r.class_name())
            .collect::<Vec<_>>()
            .join(" | ")
    };
    for &(records, alias) in tables {
        for record in records {
            let class = record.class_name();
            writeln!(out, "@final\nclass {class}:").unwrap();
            let names: Vec<String> = record
                .fields
                .iter()
                .map(|f| format!("\"{}\"", f.python_name()))
                .collect();
            let args = if names.len() == 1 {
                format!("{},", names[0])
            } else {
                names.join(", ")
            };
            let one = format!("    __match_args__ = ({args})");
            if one.len() <= 100 {
                out.push_str(&one);
                out.push('\n');
            } else {
                out.push_str("    __match_args__ = (\n");
                for n in &names {
                    writeln!(out, "        {n},").unwrap();
                }
                out.push_str("    )\n");
            }
            let mut params = vec!["cls".to_owned()];
            let optional = optional_tail(record);
            params.extend(record.fields.iter().enumerate().map(|(i, f)| {
                let default = if i >= record.fields.len() - optional {
                    " = None"
                } else {
                    ""
                };
                format!("{}: {}{default}", f.python_name(), pyi_types(f.ty).0)
            }));
            let one = format!("    def __new__({}) -> {class}: ...", params.join(", "));
            if one.len() <= 100 {
                out.push_str(&one);
                out.push('\n');
            } else {
                out.push_str("    def __new__(\n");
                for p in &params {
                    writeln!(out, "        {p},").unwrap();
                }
                writeln!(out, "    ) -> {class}: ...").unwrap();
            }
            for field in record.fields {
                writeln!(
                    out,
                    "    @property\n    def {}(self) -> {}: ...",
                    field.python_name(),
                    pyi_types(field.ty).1
                )
                .unwrap();
            }
            out.push_str("    def __eq__(self, other: object, /) -> bool: ...\n");
            out.push_str("    def __hash__(self) -> int: ...\n\n");
        }
        writeln!(out, "{alias}: TypeAlias = {}\n", union(records)).unwrap();
    }
    out
}

// ---------------------------------------------------------------- TypeScript

fn ts_type(ty: FieldType) -> String {
    let union = |end: bool| {
        reasons(end)
            .iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    match ty {
        FieldType::Str => "string".into(),
        FieldType::Stream => "Stream".into(),
        FieldType::ProcessStatus => "\"running\" | \"exited\"".into(),
        FieldType::U64 | FieldType::U32 | FieldType::Duration => "number".into(),
        FieldType::OptI64 => "number | null".into(),
        FieldType::Bool => "boolean".into(),
        FieldType::Bytes => "Uint8Array".into(),
        FieldType::Cursor => "Cursor".into(),
        FieldType::EndReason => union(true),
        FieldType::DisconnectReason => union(false),
        FieldType::OptStr => "string | null".into(),
    }
}

fn ts_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = &doc.replace("`none`", "`null`");
    let one = format!("{indent}/** {doc} */");
    if one.len() <= 100 {
        writeln!(out, "{one}").unwrap();
        return;
    }
    writeln!(out, "{indent}/**").unwrap();
    for line in wrap(doc, 96 - indent.len()) {
        writeln!(out, "{indent} * {line}").unwrap();
    }
    writeln!(out, "{indent} */").unwrap();
}

/// The TypeScript interfaces of the tables' rows, and a union per table.
fn dts_region(tables: &[(&[Record], &str, &str)]) -> String {
    let mut out = String::new();
    for &(records, alias, what) in tables {
        for record in records {
            ts_doc(&mut out, "", record.doc);
            writeln!(out, "export interface {} {{", record.class_name()).unwrap();
            writeln!(out, "  type: \"{}\";", record.name).unwrap();
            for field in record.fields {
                ts_doc(&mut out, "  ", &unit_doc(field, "In milliseconds."));
                writeln!(out, "  {}: {};", field.js_name(), ts_type(field.ty)).unwrap();
            }
            out.push_str("}\n");
        }
        ts_doc(&mut out, "", what);
        let names: Vec<String> = records.iter().map(|r| r.class_name()).collect();
        writeln!(out, "export type {alias} = {};\n", names.join(" | ")).unwrap();
    }
    out
}

// ---------------------------------------------------------------- WIT

/// WIT's keywords, which a name must escape with `%`.
const WIT_KEYWORDS: &[&str] = &[
    "stream",
    "future",
    "list",
    "option",
    "result",
    "record",
    "enum",
    "flags",
    "variant",
    "resource",
    "func",
    "type",
    "use",
    "own",
    "borrow",
    "string",
    "bool",
    "char",
    "u8",
    "u16",
    "u32",
    "u64",
    "s8",
    "s16",
    "s32",
    "s64",
    "f32",
    "f64",
    "static",
    "constructor",
    "interface",
    "world",
    "import",
    "export",
    "package",
    "include",
    "with",
    "as",
    "from",
    "tuple",
    "async",
];

fn wit_name(name: String) -> String {
    if WIT_KEYWORDS.contains(&name.as_str()) {
        format!("%{name}")
    } else {
        name
    }
}

fn wit_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Str => "string",
        FieldType::Stream => "%stream",
        FieldType::ProcessStatus => "process-status",
        FieldType::U64 | FieldType::Duration => "u64",
        FieldType::OptI64 => "option<s64>",
        FieldType::Bool => "bool",
        FieldType::Bytes => "list<u8>",
        FieldType::Cursor => "cursor",
        FieldType::DisconnectReason | FieldType::EndReason => "disconnect-reason",
        FieldType::OptStr => "option<string>",
        FieldType::U32 => "u32",
    }
}

fn wit_doc(out: &mut String, indent: &str, doc: &str) {
    for line in wrap(doc, 96 - indent.len() - 4) {
        writeln!(out, "{indent}/// {line}").unwrap();
    }
}

fn wit_region(records: &[Record], variant: &str, doc: &str) -> String {
    let mut out = String::new();
    for record in records.iter().filter(|r| !r.fields.is_empty()) {
        wit_doc(&mut out, "    ", record.doc);
        writeln!(out, "    record {} {{", wit_name(record.kebab_name())).unwrap();
        for field in record.fields {
            wit_doc(&mut out, "        ", &unit_doc(field, "In nanoseconds."));
            writeln!(
                out,
                "        {}: {},",
                wit_name(field.wit_name()),
                wit_type(field.ty)
            )
            .unwrap();
        }
        out.push_str("    }\n\n");
    }
    wit_doc(&mut out, "    ", doc);
    writeln!(out, "    variant {variant} {{").unwrap();
    for record in records {
        wit_doc(&mut out, "        ", record.summary);
        let name = wit_name(record.kebab_name());
        if record.fields.is_empty() {
            writeln!(out, "        {name},").unwrap();
        } else {
            writeln!(out, "        {name}({name}),").unwrap();
        }
    }
    out.push_str("    }\n");
    out
}

// ---------------------------------------------------------------- Component

fn component_rs() -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated from dory_wire::records by scripts/generate.sh: do not edit.\n\
         //! The events, the ends and the follower's decisions as their WIT\n\
         //! values, one function per row of the core's record tables\n\
         //! (`dory_wire::records::EVENTS`, `ENDS`, `DECISIONS`).\n\
         //!\n\
         //! Generated by `crates/dory-wire/tests/generated.rs` (run\n\
         //! `bash scripts/generate.sh`); `make test` fails when it is stale.\n\n\
         use dory_wire::records::{Record, Value};\n\n\
         use crate::bindings::exports::dory::wire::decode as wit;\n\
         use crate::bindings::exports::dory::wire::follow;\n\
         use crate::reader::Fields;\n",
    );
    for (records, module, ty, what) in [
        (EVENTS, "wit", "Event", "event"),
        (ENDS, "wit", "End", "end"),
        (DECISIONS, "follow", "Decision", "decision"),
    ] {
        for record in records.iter().filter(|r| !r.fields.is_empty()) {
            let case = record.class_name();
            writeln!(
                out,
                "\n/// The WIT `{}` of its row's values, in order; `None` when they are not\n\
                 /// the row's.\n\
                 pub(crate) fn {}_of(values: Vec<Value<'_>>) -> Option<{module}::{case}> {{\n    \
                 let mut f = Fields::new(values);\n    \
                 let value = {module}::{case} {{",
                record.kebab_name(),
                record.name
            )
            .unwrap();
            for field in record.fields {
                writeln!(
                    out,
                    "        {}: f.{}()?,",
                    field.wit_name().replace('-', "_"),
                    pyo3_take(field.ty)
                )
                .unwrap();
            }
            out.push_str("    };\n    f.done().then_some(value)\n}\n");
        }
        writeln!(
            out,
            "\n/// The WIT {what} of `record`, built from its values in the row's order;\n\
             /// `None` for a row this build does not know or values of other types.\n\
             pub(crate) fn {what}(record: &Record, values: Vec<Value<'_>>) -> Option<{module}::{ty}> {{\n    \
             Some(match record.name {{"
        )
        .unwrap();
        for record in records {
            let case = record.class_name();
            if record.fields.is_empty() {
                writeln!(
                    out,
                    "        \"{}\" if values.is_empty() => {module}::{ty}::{case},",
                    record.name
                )
                .unwrap();
            } else {
                writeln!(
                    out,
                    "        \"{}\" => {module}::{ty}::{case}({}_of(values)?),",
                    record.name, record.name
                )
                .unwrap();
            }
        }
        out.push_str("        _ => return None,\n    })\n}\n");
    }
    out
}

// ---------------------------------------------------------------- wasm + npm

/// The events that cross the wasm boundary in the side document: every
/// event but output (a numeric record).
fn side_events() -> impl Iterator<Item = &'static Record> {
    EVENTS.iter().filter(|r| r.name != "output")
}

/// The `other` member of the wasm event layout: each side event's fields as
/// `[camelName, kind]`.
fn layout_other_json() -> String {
    let entries: Vec<String> = side_events()
        .map(|r| {
            let fields: Vec<String> = r
                .fields
                .iter()
                .map(|f| format!("[\"{}\",\"{}\"]", f.js_name(), f.ty.as_str()))
                .collect();
            format!("\"{}\":[{}]", r.name, fields.join(","))
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// `bindings/wasm/src/layout.rs`'s `EVENT_LAYOUT_JSON` (the constants are the
/// module's own; its unit tests check them against this document).
fn layout_rs_region() -> String {
    format!(
        "pub const EVENT_LAYOUT_JSON: &str = r#\"{{\"version\":2,\"result\":{{\"records\":2,\"flagSide\":1}},\"record\":{{\"f64s\":3,\"fields\":[\"tag\",\"start\",\"end\"]}},\"tags\":{{\"stdout\":0,\"stderr\":1,\"other\":2}},\"other\":{}}}\"#;\n",
        layout_other_json()
    )
}

/// `npm/src/layout.js`'s `LAYOUT.other`.
fn layout_js_region() -> String {
    let mut out = String::from("  other: Object.freeze({\n");
    for r in side_events() {
        let fields: Vec<String> = r
            .fields
            .iter()
            .map(|f| format!("[\"{}\", \"{}\"]", f.js_name(), f.ty.as_str()))
            .collect();
        let one = format!("    {}: fields({}),", r.name, fields.join(", "));
        if one.len() <= 140 {
            writeln!(out, "{one}").unwrap();
        } else {
            writeln!(out, "    {}: fields(", r.name).unwrap();
            for f in &fields {
                writeln!(out, "      {f},").unwrap();
            }
            out.push_str("    ),\n");
        }
    }
    out.push_str("  }),\n");
    out
}

// ---------------------------------------------------------------- the check

/// `text` as `cargo fmt` leaves it (the workspace's rustfmt settings).
fn rustfmt(text: &str) -> String {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
        .args(["--edition", "2021", "--emit", "stdout"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("rustfmt (the toolchain's) formats the generated Rust");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "rustfmt failed on the generated Rust");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_generated_files_are_up_to_date() {
    let mut stale = Vec::new();
    let mut check = |path: &str, region: Option<(&str, &str)>, text: &str| {
        if let Some(complaint) = settle(path, region, text) {
            stale.push(complaint);
        }
    };
    check(
        "bindings/python/src/records.rs",
        None,
        &rustfmt(&python_records_rs()),
    );
    check(
        "python/dory_wire/_core.pyi",
        Some(("#", "records")),
        &pyi_region(&[(EVENTS, "_Event"), (ENDS, "_End")]),
    );
    check(
        "python/dory_wire/_core.pyi",
        Some(("#", "decisions")),
        &pyi_region(&[(DECISIONS, "_Decision")]),
    );
    check(
        "npm/src/index.d.ts",
        Some(("//", "records")),
        &dts_region(&[
            (EVENTS, "Event", "What a reader yields; switch on `type`."),
            (
                ENDS,
                "End",
                "How a response ended. It never carries events: `finish()` returns them beside it.",
            ),
        ]),
    );
    check(
        "npm/src/index.d.ts",
        Some(("//", "decisions")),
        &dts_region(&[(
            DECISIONS,
            "Decision",
            "What a follower decided when a response ended; switch on `type`.",
        )]),
    );
    check(
        "bindings/component/wit/follow.wit",
        Some(("    //", "decisions")),
        &wit_region(
            DECISIONS,
            "decision",
            "What the follower decided when a response ended (or none came).",
        ),
    );
    check(
        "bindings/component/wit/decode.wit",
        Some(("    //", "events")),
        &wit_region(EVENTS, "event", "What a reader yields while a body is fed."),
    );
    check(
        "bindings/component/wit/decode.wit",
        Some(("    //", "ends")),
        &wit_region(
            ENDS,
            "end",
            "How a response ended, once the whole body was fed.",
        ),
    );
    check(
        "bindings/component/src/records.rs",
        None,
        &rustfmt(&component_rs()),
    );
    check(
        "bindings/wasm/src/layout.rs",
        Some(("//", "layout")),
        &layout_rs_region(),
    );
    check(
        "npm/src/layout.js",
        Some(("  //", "layout")),
        &layout_js_region(),
    );
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

/// `tests/api/surface.json` names every event and end under the class name
/// the tables give it, in Python and JavaScript.
#[test]
fn the_surface_lists_every_record_by_its_table_name() {
    let surface = std::fs::read_to_string(root().join("tests/api/surface.json")).unwrap();
    for (records, what) in [(EVENTS, "event"), (ENDS, "end"), (DECISIONS, "decision")] {
        for record in records {
            let class = record.class_name();
            let concept = format!("\"concept\": \"{what} {class}");
            let at = surface
                .find(&concept)
                .unwrap_or_else(|| panic!("tests/api/surface.json has no {what} {class}"));
            let entry = &surface[at..surface[at..].find('}').map_or(surface.len(), |e| at + e)];
            for key in ["python", "js"] {
                assert!(
                    entry.contains(&format!("\"{key}\": \"{class}\"")),
                    "tests/api/surface.json: {what} {class} has another {key} name: {entry}"
                );
            }
        }
    }
}
