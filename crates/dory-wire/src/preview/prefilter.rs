//! A literal prefilter for the keep patterns: for each pattern, a set of
//! literals one of which every match contains, read from the pattern's
//! syntax tree. One Aho-Corasick search over a piece of input then finds
//! the only lines the patterns can match (the candidates); every other
//! line is skipped without running the regular expression.
//!
//! The sets are exact in one direction only: a line the patterns match
//! always holds a literal (the prefilter never misses a match), a line that
//! holds one may still not match (the regular expression decides). A
//! pattern whose matches need no literal (`.*`, `[a-z]+`) gives no
//! prefilter at all, and every line is matched as before.
//!
//! A line is matched with a `\n` before it (the piece's previous line's
//! end), so that a pattern anchored at the line's start (`^E   `) requires
//! `"\nE   "`, much rarer than `"E   "` alone.

use aho_corasick::{AhoCorasick, Anchored, Input, MatchKind, StartKind};
use regex::bytes::Regex;
use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The most literals a set may hold while it is built.
const MAX_SET: usize = 64;

/// The longest literal kept (longer ones are cut: a literal's start is
/// still required).
const MAX_LEN: usize = 16;

/// The most characters of a class spelled out as literals.
const MAX_CLASS: usize = 10;

/// The most literals searched anywhere in a line (not at its start), when
/// each pattern's best set allows it (a packed SIMD search holds 64); past
/// it, patterns take their smaller sets.
const SEARCH_LITERALS: usize = 64;

/// The candidates' finder, and each pattern alone to check a candidate.
#[derive(Debug, Clone)]
pub(crate) struct Prefilter {
    /// Every literal, over many lines with the `\n` before them, when a
    /// packed search can hold them all (else lines are read one by one).
    finder: Option<aho_corasick::packed::Searcher>,
    /// The literals that do not start with `\n`, over one line: the first
    /// occurrence, then every one, with the patterns that require each.
    inner: Option<(Quick, Vec<Vec<usize>>)>,
    /// The literals that start with `\n`, without it, at one line's start,
    /// with the patterns that require each.
    start: Option<(AhoCorasick, Vec<Vec<usize>>)>,
    /// Each pattern alone.
    each: Vec<Regex>,
}

/// How a literal set is judged: `penalty` per literal.
#[derive(Debug, Clone, Copy)]
struct Judge {
    penalty: usize,
}

impl Prefilter {
    /// The prefilter of these patterns (each compiled alone by `build`), or
    /// `None` when one of them has no required literal or does not parse
    /// (the patterns' regular expression then decides alone).
    pub(crate) fn new<E>(
        patterns: &[String],
        build: impl Fn(&str) -> Result<Regex, E>,
    ) -> Option<Prefilter> {
        let mut hirs = Vec::with_capacity(patterns.len());
        let mut each = Vec::with_capacity(patterns.len());
        for p in patterns {
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(false)
                .build()
                .parse(p)
                .ok()?;
            hirs.push(hir);
            each.push(build(p).ok()?);
        }
        // Each pattern's richest set; the largest ones leaner while there
        // are too many literals for one packed search.
        let rich = Judge { penalty: 1 };
        let lean = Judge { penalty: 4 };
        let mut sets: Vec<Vec<Vec<u8>>> = Vec::with_capacity(hirs.len());
        for hir in &hirs {
            sets.push(required(hir, rich)?);
        }
        let rarest = |set: &Vec<Vec<u8>>| set.iter().map(|l| rarity(l)).min().unwrap_or(0);
        // Leaner where it loses least rarity first, saving most.
        let mut leaner: Vec<(usize, usize, usize, Vec<Vec<u8>>)> = Vec::new();
        for (i, hir) in hirs.iter().enumerate() {
            if let Some(l) = required(hir, lean) {
                if l.len() < sets[i].len() {
                    let rich = rarest(&sets[i]).max(1);
                    let loss = rich.saturating_sub(rarest(&l)) * 100 / rich;
                    leaner.push((loss, usize::MAX - (sets[i].len() - l.len()), i, l));
                }
            }
        }
        leaner.sort();
        for (_, _, i, l) in leaner {
            let inner = distinct(&sets)
                .0
                .iter()
                .filter(|l| l.first() != Some(&b'\n'))
                .count();
            if inner <= SEARCH_LITERALS {
                break;
            }
            sets[i] = l;
        }
        let (lits, owners) = distinct(&sets);
        if lits.iter().any(Vec::is_empty) {
            return None;
        }
        let finder = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(&lits)
            .build();
        let mut start = (Vec::new(), Vec::new());
        let mut inner = (Vec::new(), Vec::new());
        for (l, o) in lits.iter().zip(owners) {
            match l.strip_prefix(b"\n") {
                // Only `\n`: every line holds it, no prefilter.
                Some([]) => return None,
                Some(rest) => {
                    start.0.push(rest);
                    start.1.push(o);
                }
                None => {
                    inner.0.push(l.as_slice());
                    inner.1.push(o);
                }
            }
        }
        let start = match start.0.is_empty() {
            true => None,
            false => Some((
                AhoCorasick::builder()
                    .start_kind(StartKind::Anchored)
                    .build(&start.0)
                    .ok()?,
                start.1,
            )),
        };
        let inner = match inner.0.is_empty() {
            true => None,
            false => Some((Quick::new(&inner.0)?, inner.1)),
        };
        Some(Prefilter {
            finder,
            inner,
            start,
            each,
        })
    }

    /// The start of the first line of `lines` that holds a literal:
    /// `lines[0]` is the `\n` that ends the line before them, and the result
    /// is an index in `lines` (at least 1), or `None` when no line does.
    pub(crate) fn candidate(&self, lines: &[u8]) -> Option<usize> {
        let Some(finder) = &self.finder else {
            // The first line.
            return Some(1);
        };
        let m = finder.find(lines)?;
        let at = m.start();
        if lines.get(at) == Some(&b'\n') {
            return Some(at + 1);
        }
        Some(memchr::memrchr(b'\n', &lines[..at]).map_or(0, |i| i + 1))
    }

    /// Whether a pattern matches `line` (without its line end, cut as
    /// the patterns read it): only the patterns whose literals it holds are
    /// run, each alone.
    pub(crate) fn is_match(&self, line: &[u8]) -> bool {
        let check = |owners: &[usize]| owners.iter().any(|&i| self.each[i].is_match(line));
        if let Some((start, owners)) = &self.start {
            if let Some(m) = start.find(Input::new(line).anchored(Anchored::Yes)) {
                if check(&owners[m.pattern().as_usize()]) {
                    return true;
                }
            }
        }
        if let Some((quick, owners)) = &self.inner {
            // Every occurrence: one literal at most starts at each place (no
            // literal is another's start), the leftmost one after the last.
            let mut from = 0;
            while let Some((at, id)) = quick.find(line, from) {
                if check(&owners[id]) {
                    return true;
                }
                from = at + 1;
            }
        }
        false
    }
}

/// The literals of these sets (one per pattern), each with the patterns
/// that require it: a literal that holds a shorter one is found through it
/// (its patterns go to the shorter one).
fn distinct(sets: &[Vec<Vec<u8>>]) -> (Vec<Vec<u8>>, Vec<Vec<usize>>) {
    let mut all: Vec<(&[u8], usize)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        all.extend(set.iter().map(|l| (l.as_slice(), i)));
    }
    all.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)));
    let mut lits: Vec<Vec<u8>> = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    for (l, owner) in all {
        let at = lits
            .iter()
            .position(|s| memchr::memmem::find(l, s).is_some());
        let i = at.unwrap_or_else(|| {
            lits.push(l.to_vec());
            owners.push(Vec::new());
            lits.len() - 1
        });
        if !owners[i].contains(&owner) {
            owners[i].push(owner);
        }
    }
    (lits, owners)
}

/// The first occurrence of any of a few literals: a packed (SIMD) search
/// when the CPU and the literals allow it, else an automaton.
#[derive(Debug, Clone)]
enum Quick {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl Quick {
    fn new(lits: &[&[u8]]) -> Option<Quick> {
        let packed = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(lits)
            .build();
        match packed {
            Some(p) => Some(Quick::Packed(p)),
            None => AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(lits)
                .ok()
                .map(Quick::Automaton),
        }
    }

    /// Where the first occurrence from `from` starts, and its literal.
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        if from >= hay.len() {
            return None;
        }
        let m = match self {
            Quick::Packed(p) => p.find_in(hay, aho_corasick::Span::from(from..hay.len())),
            Quick::Automaton(a) => a.find(Input::new(hay).span(from..hay.len())),
        }?;
        Some((m.start(), m.pattern().as_usize()))
    }
}

/// A prefilter is made from its patterns only: two are compared through
/// the patterns (as [`Keep`](super::Keep)s are), not here.
impl PartialEq for Prefilter {
    fn eq(&self, _: &Prefilter) -> bool {
        true
    }
}

impl Eq for Prefilter {}

/// What is known of the strings a node matches: each set is `None` when
/// unknown (too many, or infinite).
#[derive(Debug, Clone, Default)]
struct Info {
    /// Every string it matches.
    exact: Option<Vec<Vec<u8>>>,
    /// Every match starts with one of these.
    prefix: Option<Vec<Vec<u8>>>,
    /// Every match ends with one of these.
    suffix: Option<Vec<Vec<u8>>>,
    /// Every match holds one of these.
    inner: Option<Vec<Vec<u8>>>,
}

impl Info {
    fn exact(set: Option<Vec<Vec<u8>>>) -> Info {
        match set {
            Some(set) => Info {
                prefix: Some(cut_prefix(set.clone())),
                suffix: Some(cut_suffix(set.clone())),
                inner: Some(cut_prefix(set.clone())),
                exact: Some(set),
            },
            None => Info::default(),
        }
    }
}

/// The literals one of which every match of `hir` holds, when known and
/// none is empty.
fn required(hir: &Hir, judge: Judge) -> Option<Vec<Vec<u8>>> {
    let info = info(hir, judge);
    let best = best(judge, [info.inner, info.prefix, info.suffix])?;
    (!best.iter().any(Vec::is_empty)).then_some(best)
}

fn info(hir: &Hir, judge: Judge) -> Info {
    match hir.kind() {
        HirKind::Empty => Info::exact(Some(vec![Vec::new()])),
        HirKind::Literal(lit) => Info::exact(Some(vec![lit.0.to_vec()])),
        HirKind::Class(class) => Info::exact(class_set(class)),
        // The line's start is after the `\n` that ends the line before
        // it (see the module's note); other assertions match no byte.
        HirKind::Look(Look::Start | Look::StartLF) => Info::exact(Some(vec![b"\n".to_vec()])),
        HirKind::Look(_) => Info::exact(Some(vec![Vec::new()])),
        HirKind::Capture(cap) => info(&cap.sub, judge),
        HirKind::Repetition(rep) => {
            let sub = info(&rep.sub, judge);
            if rep.min == 0 {
                let exact = match (rep.max, sub.exact) {
                    (Some(1), Some(mut set)) => {
                        set.push(Vec::new());
                        Some(dedup(set))
                    }
                    _ => None,
                };
                return Info::exact(exact);
            }
            match &sub.exact {
                Some(set) => {
                    let mut rep_set = Some(set.clone());
                    for _ in 1..rep.min.min(MAX_LEN as u32) {
                        rep_set = cross(rep_set.as_ref(), Some(set));
                    }
                    if rep.max == Some(rep.min) && rep.min as usize <= MAX_LEN && rep_set.is_some()
                    {
                        return Info::exact(rep_set);
                    }
                    let rep_set = rep_set.unwrap_or_else(|| set.clone());
                    Info {
                        exact: None,
                        prefix: Some(cut_prefix(rep_set.clone())),
                        suffix: Some(cut_suffix(rep_set.clone())),
                        inner: Some(cut_prefix(rep_set)),
                    }
                }
                None => Info { exact: None, ..sub },
            }
        }
        HirKind::Concat(subs) => {
            let mut acc = Info::exact(Some(vec![Vec::new()]));
            for sub in subs {
                acc = concat(acc, info(sub, judge), judge);
            }
            acc
        }
        HirKind::Alternation(subs) => {
            let infos: Vec<Info> = subs.iter().map(|s| info(s, judge)).collect();
            let union = |get: fn(&Info) -> &Option<Vec<Vec<u8>>>| {
                let mut out = Vec::new();
                for i in &infos {
                    out.extend(get(i).as_ref()?.iter().cloned());
                }
                let out = dedup(out);
                (out.len() <= MAX_SET).then_some(out)
            };
            let exact = union(|i| &i.exact);
            if exact.is_some() {
                return Info::exact(exact);
            }
            Info {
                exact: None,
                prefix: union(|i| &i.prefix),
                suffix: union(|i| &i.suffix),
                inner: union(|i| &i.inner),
            }
        }
    }
}

/// `a` then `b`.
fn concat(a: Info, b: Info, judge: Judge) -> Info {
    let empty = vec![Vec::new()];
    let exact = cross(a.exact.as_ref(), b.exact.as_ref());
    if exact.is_some() {
        return Info::exact(exact);
    }
    // A longer prefix (suffix) when it is better for a search, else the
    // part's own.
    let prefix = match &a.exact {
        Some(e) => match cross(Some(e), Some(b.prefix.as_ref().unwrap_or(&empty))) {
            Some(joined) => best(
                judge,
                [Some(cut_prefix(e.clone())), Some(cut_prefix(joined))],
            ),
            None => Some(cut_prefix(e.clone())),
        },
        None => a.prefix.clone(),
    };
    let suffix = match &b.exact {
        Some(e) => match cross(Some(a.suffix.as_ref().unwrap_or(&empty)), Some(e)) {
            Some(joined) => best(
                judge,
                [Some(cut_suffix(e.clone())), Some(cut_suffix(joined))],
            ),
            None => Some(cut_suffix(e.clone())),
        },
        None => b.suffix.clone(),
    };
    let joint = cross(a.suffix.as_ref(), b.prefix.as_ref()).map(cut_prefix);
    let inner = best(
        judge,
        [a.inner, b.inner, joint, prefix.clone(), suffix.clone()],
    );
    Info {
        exact: None,
        prefix,
        suffix,
        inner,
    }
}

/// Every string of `a` followed by one of `b`, when both are known and not
/// too many.
fn cross(a: Option<&Vec<Vec<u8>>>, b: Option<&Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let (a, b) = (a?, b?);
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            if s.len() > 4 * MAX_LEN {
                return None;
            }
            out.push(s);
        }
    }
    Some(dedup(out))
}

/// The characters of a small class, UTF-8 encoded.
fn class_set(class: &Class) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    match class {
        Class::Unicode(c) => {
            for r in c.iter() {
                let n = (r.end() as u32).checked_sub(r.start() as u32)? as usize + 1;
                if out.len() + n > MAX_CLASS {
                    return None;
                }
                for cp in r.start() as u32..=r.end() as u32 {
                    if let Some(ch) = char::from_u32(cp) {
                        let mut buf = [0u8; 4];
                        out.push(ch.encode_utf8(&mut buf).as_bytes().to_vec());
                    }
                }
            }
        }
        Class::Bytes(c) => {
            for r in c.iter() {
                let n = usize::from(r.end() - r.start()) + 1;
                if out.len() + n > MAX_CLASS {
                    return None;
                }
                out.extend((r.start()..=r.end()).map(|b| vec![b]));
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// How rare a literal is in text, roughly: a lowercase letter, a digit or
/// a space counts 1, other bytes 2, a line's start (`\n`) 3 (`\n` alone,
/// every line, 0).
fn rarity(lit: &[u8]) -> usize {
    if lit == b"\n" {
        // Every line.
        return 0;
    }
    lit.iter()
        .map(|&b| match b {
            b'a'..=b'z' | b'0'..=b'9' | b' ' => 1,
            b'\n' => 3,
            _ => 2,
        })
        .sum::<usize>()
        .min(12)
}

/// The best of these sets for a search: the rarest most common literal,
/// less the judge's penalty per literal.
fn best<const N: usize>(judge: Judge, sets: [Option<Vec<Vec<u8>>>; N]) -> Option<Vec<Vec<u8>>> {
    let score = |s: &Vec<Vec<u8>>| {
        let rarest = s.iter().map(|l| rarity(l)).min().unwrap_or(0);
        (rarest * 16).saturating_sub(judge.penalty * s.len())
    };
    sets.into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .max_by_key(score)
        .filter(|s| score(s) > 0)
}

fn dedup(mut set: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    set.sort();
    set.dedup();
    set
}

fn cut_prefix(set: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    dedup(
        set.into_iter()
            .map(|mut s| {
                s.truncate(MAX_LEN);
                s
            })
            .collect(),
    )
}

fn cut_suffix(set: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    dedup(
        set.into_iter()
            .map(|s| s[s.len().saturating_sub(MAX_LEN)..].to_vec())
            .collect(),
    )
}

/// The literals [`required`] finds for pattern `p` (as text), `None` when
/// it finds none or `p` does not parse.
#[cfg(test)]
pub(crate) fn req(p: &str) -> Option<Vec<String>> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(p)
        .ok()?;
    required(&hir, Judge { penalty: 1 }).map(|s| {
        s.into_iter()
            .map(|l| String::from_utf8_lossy(&l).into_owned())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_literals() {
        assert_eq!(req("^E   ").unwrap(), ["\nE   "]);
        assert_eq!(req("panicked at").unwrap(), ["panicked at"]);
        assert_eq!(req(".*"), None);
        assert_eq!(req("[a-z]+"), None);
        assert_eq!(req("a|.*"), None);
        assert_eq!(req("x?"), None);
        assert_eq!(req("^_{3,} [^ ].* _{3,}$").unwrap(), ["\n___"]);
        let go = req("^[^ ]+:[0-9]+:[0-9]+: ").unwrap();
        assert!(
            go.iter().all(|l| l.ends_with(": ") && l.len() == 3),
            "{go:?}"
        );
    }
}
