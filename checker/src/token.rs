//! Replay tokens: an execution's choices, written so that the same program
//! run with [`crate::explore::replay::Replay`] takes exactly those choices,
//! and notices the first step where the program no longer does what the
//! token recorded.
//!
//! A token lists, in an order compatible with program order and reads-from,
//! every visible step of the execution: each read (a load or the read part
//! of an RMW) with its location and the write it read, each write with its
//! location and final rank in mo, each join with the thread it joined, each
//! barrier. Every step names its thread and its index in that thread, so
//! replay checks thread, operation kind, location and position before taking
//! the recorded choice. It is printed as `sc2.` followed by URL-safe base64.
//!
//! An execution with a cycle in po ∪ rf (`c11`) holds *promised* reads
//! (docs/c11-model.md section 4): such a read is recorded as reading the
//! initial write, its placeholder in the engine's graph, and the token
//! ends with the promises themselves (the read, the write po ∪ rf-after it
//! that it reads, and the value), which the replay gives the engine before
//! the program runs, so the read returns that value again and the
//! execution counts only if the re-run program keeps the promise.
//! (`sc1.` tokens, of earlier versions, lack the kinds and locations of
//! reads and joins: they are refused with a message saying so.)

use crate::event::*;
use crate::graph::{ExecutionGraph, Promise};
use crate::model::MemoryModel;
use base64::Engine as _;
use std::collections::BinaryHeap;

/// One recorded step.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Record {
    /// `event` read `loc` from `rf`: a load, or the read part of an RMW
    /// (spuriously failing if `spurious`).
    Read {
        /// The read.
        event: EventId,
        /// Its location.
        loc: Loc,
        /// The write it read.
        rf: EventId,
        /// Whether it is the read part of an RMW (a mutex lock is one).
        rmw: bool,
        /// Whether a weak compare-exchange failed spuriously.
        spurious: bool,
    },
    /// `event` is the `rank`-th write of `loc` in mo (from 1).
    Write {
        /// The write.
        event: EventId,
        /// Its location.
        loc: Loc,
        /// Its position in mo.
        rank: u32,
        /// Whether it is the write part of an RMW.
        rmw: bool,
    },
    /// `event` joined thread `target`.
    Join {
        /// The join.
        event: EventId,
        /// The thread joined.
        target: ThreadId,
    },
    /// `event` passed a GPU barrier.
    Barrier {
        /// The barrier event.
        event: EventId,
    },
}

impl Record {
    /// The event the record is about.
    pub fn event(&self) -> EventId {
        match *self {
            Record::Read { event, .. }
            | Record::Write { event, .. }
            | Record::Join { event, .. }
            | Record::Barrier { event } => event,
        }
    }
}

/// A decoded token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The model the execution ran under.
    pub model: MemoryModel,
    /// The steps, in a porf-compatible order.
    pub records: Vec<Record>,
    /// The promised reads among them (each recorded as reading the
    /// initial write, its placeholder), with the writes they read.
    pub promises: Vec<Promise>,
}

/// The events of `g` in an order compatible with po and rf (and spawn/join),
/// earliest-added first among the ready ones.
pub fn linearize(g: &ExecutionGraph) -> Vec<EventId> {
    let n = g.num_threads();
    let mut next = vec![0u32; n];
    let mut out = Vec::with_capacity(g.len());
    let ready = |e: EventId, next: &[u32]| -> bool {
        let done = |x: EventId| x.is_init() || next.get(x.thread as usize).is_some_and(|&k| k > x.index);
        match &g.event(e).kind {
            EventKind::Read(r) => done(r.rf),
            EventKind::Start { parent: Some(p) } => done(*p),
            EventKind::Join { target } => done(EventId::new(*target, g.thread_len(*target) - 1)),
            EventKind::Barrier { partners, .. } => partners.iter().all(|&p| done(p)),
            _ => true,
        }
    };
    let mut heap = BinaryHeap::new();
    let mut waiting: Vec<EventId> = Vec::new();
    for t in 0..n as ThreadId {
        if g.thread_len(t) > 0 {
            waiting.push(EventId::new(t, 0));
        }
    }
    loop {
        let mut i = 0;
        while i < waiting.len() {
            if ready(waiting[i], &next) {
                let e = waiting.swap_remove(i);
                heap.push(std::cmp::Reverse((g.event(e).stamp, e)));
            } else {
                i += 1;
            }
        }
        let Some(std::cmp::Reverse((_, e))) = heap.pop() else {
            break;
        };
        out.push(e);
        next[e.thread as usize] = e.index + 1;
        if e.index + 1 < g.thread_len(e.thread) {
            waiting.push(EventId::new(e.thread, e.index + 1));
        }
    }
    out
}

fn put(buf: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf.push(b);
            return;
        }
        buf.push(b | 0x80);
    }
}

fn get(buf: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = *buf.get(*at).ok_or("token is truncated")?;
        *at += 1;
        if shift > 63 {
            return Err("token has an overlong number".into());
        }
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
    }
}

const PREFIX: &str = "sc2.";

/// Record tags (the low bits of a record's first number; the thread is
/// folded into the same number so that one byte holds both for the first
/// threads).
const LOAD: u64 = 0;
const STORE: u64 = 1;
const RMW_READ: u64 = 2;
const RMW_READ_SPURIOUS: u64 = 3;
const RMW_WRITE: u64 = 4;
const JOIN: u64 = 5;
const BARRIER: u64 = 6;
const TAGS: u64 = 7;

/// The steps of `g` as records, in a porf-compatible order.
pub fn records(g: &ExecutionGraph) -> Vec<Record> {
    let mut recs = Vec::new();
    for e in linearize(g) {
        match &g.event(e).kind {
            EventKind::Read(r) => recs.push(Record::Read {
                event: e,
                loc: r.loc,
                rf: r.rf,
                rmw: r.rmw.is_some(),
                spurious: r.spurious,
            }),
            EventKind::Write(w) => recs.push(Record::Write {
                event: e,
                loc: w.loc,
                rank: g.mo_position(w.loc, e) as u32,
                rmw: w.rmw,
            }),
            EventKind::Join { target } => recs.push(Record::Join {
                event: e,
                target: *target,
            }),
            EventKind::Barrier { .. } => recs.push(Record::Barrier { event: e }),
            _ => {}
        }
    }
    recs
}

/// Encodes the steps of `g` as a token.
///
/// Layout (numbers as LEB128 varints): the model; the locations the steps
/// name, as a table (count, then each location's allocating thread and
/// sequence number), so that a step names its location by a small index;
/// the number of steps; each step as `tag + 7 * thread`, its index in the
/// thread, then per tag: a read's location index and the write it read
/// (0 for the initial value, else thread + 1, then index); a store's
/// location index and mo rank; an RMW's write part only its rank (its
/// location is its read part's, the event just before it); a join's target.
/// Then, only when the execution holds promised reads that it reached,
/// their number and each one's read (thread, index), write (thread, index)
/// and value (a token without promises is the same as before promises
/// existed).
pub fn encode(g: &ExecutionGraph, model: MemoryModel) -> String {
    let mut buf = vec![model.code()];
    let recs = records(g);
    let mut locs: Vec<Loc> = Vec::new();
    let loc_index = |l: Loc, locs: &mut Vec<Loc>| -> u64 {
        match locs.iter().position(|&x| x == l) {
            Some(i) => i as u64,
            None => {
                locs.push(l);
                (locs.len() - 1) as u64
            }
        }
    };
    let mut body = Vec::new();
    put(&mut body, recs.len() as u64);
    for r in &recs {
        let e = r.event();
        let tag = match *r {
            Record::Read { rmw: false, .. } => LOAD,
            Record::Read {
                rmw: true,
                spurious: false,
                ..
            } => RMW_READ,
            Record::Read { rmw: true, .. } => RMW_READ_SPURIOUS,
            Record::Write { rmw: false, .. } => STORE,
            Record::Write { rmw: true, .. } => RMW_WRITE,
            Record::Join { .. } => JOIN,
            Record::Barrier { .. } => BARRIER,
        };
        put(&mut body, tag + TAGS * e.thread as u64);
        put(&mut body, e.index as u64);
        match *r {
            Record::Read { loc, rf, .. } => {
                put(&mut body, loc_index(loc, &mut locs));
                put(&mut body, if rf.is_init() { 0 } else { rf.thread as u64 + 1 });
                if !rf.is_init() {
                    put(&mut body, rf.index as u64);
                }
            }
            Record::Write { loc, rank, rmw, .. } => {
                if !rmw {
                    put(&mut body, loc_index(loc, &mut locs));
                }
                put(&mut body, rank as u64);
            }
            Record::Join { target, .. } => put(&mut body, target as u64),
            Record::Barrier { .. } => {}
        }
    }
    let promises: Vec<&Promise> = g.promises().iter().filter(|p| g.contains(p.read)).collect();
    if !promises.is_empty() {
        put(&mut body, promises.len() as u64);
        for p in promises {
            // The write by its position in this execution (a replay
            // re-runs it step by step: the position is the same).
            let w = g.promised_write(p).unwrap_or(p.write);
            for n in [p.read.thread, p.read.index, w.thread, w.index] {
                put(&mut body, n as u64);
            }
            put(&mut body, p.value);
        }
    }
    put(&mut buf, locs.len() as u64);
    for l in &locs {
        put(&mut buf, l.thread() as u64);
        put(&mut buf, l.seq() as u64);
    }
    buf.extend(body);
    format!(
        "{PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
    )
}

/// Decodes a token, saying what is wrong with a malformed one.
pub fn decode(s: &str) -> Result<Token, String> {
    let s = s.trim();
    if s.starts_with("sc1.") {
        return Err(
            "this replay token (`sc1.`) was printed by an older version of scopecheck, whose tokens \
             do not record what each step does, so a replay could not notice a changed program; run the test \
             again without SCOPECHECK_REPLAY and use the `sc2.` token its report prints"
                .into(),
        );
    }
    let body = s
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("a replay token starts with `{PREFIX}`"))?;
    let buf = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|e| format!("replay token is not valid base64: {e}"))?;
    let model = match buf.first().copied().and_then(MemoryModel::from_code) {
        Some(m) => m,
        None => return Err("replay token names an unknown memory model".into()),
    };
    let small =
        |v: u64| -> Result<u32, String> { u32::try_from(v).map_err(|_| "token number out of range".to_string()) };
    let mut at = 1;
    let nlocs = get(&buf, &mut at)?;
    // Every entry takes at least two bytes: a count beyond that is malformed
    // (and must not size an allocation).
    if nlocs > buf.len() as u64 {
        return Err("replay token is truncated".into());
    }
    let mut locs = Vec::with_capacity(nlocs as usize);
    for _ in 0..nlocs {
        let t = small(get(&buf, &mut at)?)?;
        let seq = small(get(&buf, &mut at)?)?;
        locs.push(Loc::new(t, seq));
    }
    let loc = |i: u64| -> Result<Loc, String> {
        locs.get(i as usize)
            .copied()
            .ok_or_else(|| "replay token names a location it does not list".to_string())
    };
    let n = get(&buf, &mut at)?;
    let mut records: Vec<Record> = Vec::new();
    // The location of each RMW read part (its write part names none).
    let mut rmw_reads: std::collections::HashMap<EventId, Loc> = std::collections::HashMap::new();
    for _ in 0..n {
        let head = get(&buf, &mut at)?;
        let (tag, thread) = (head % TAGS, small(head / TAGS)?);
        let event = EventId::new(thread, small(get(&buf, &mut at)?)?);
        let rec = match tag {
            LOAD | RMW_READ | RMW_READ_SPURIOUS => {
                let l = loc(get(&buf, &mut at)?)?;
                let t = get(&buf, &mut at)?;
                let rf = if t == 0 {
                    EventId::INIT
                } else {
                    EventId::new(small(t - 1)?, small(get(&buf, &mut at)?)?)
                };
                Record::Read {
                    event,
                    loc: l,
                    rf,
                    rmw: tag != LOAD,
                    spurious: tag == RMW_READ_SPURIOUS,
                }
            }
            STORE => Record::Write {
                event,
                loc: loc(get(&buf, &mut at)?)?,
                rank: small(get(&buf, &mut at)?)?,
                rmw: false,
            },
            RMW_WRITE => {
                // Its location is its read part's, the event before it.
                let l = event
                    .index
                    .checked_sub(1)
                    .and_then(|i| rmw_reads.get(&EventId::new(thread, i)).copied())
                    .ok_or("replay token has an RMW write without its read part")?;
                Record::Write {
                    event,
                    loc: l,
                    rank: small(get(&buf, &mut at)?)?,
                    rmw: true,
                }
            }
            JOIN => Record::Join {
                event,
                target: small(get(&buf, &mut at)?)?,
            },
            BARRIER => Record::Barrier { event },
            _ => return Err("replay token has an unknown record".into()),
        };
        if let Record::Read {
            event, loc, rmw: true, ..
        } = rec
        {
            rmw_reads.insert(event, loc);
        }
        records.push(rec);
    }
    let promises = if at == buf.len() {
        Vec::new()
    } else {
        decode_promises(&buf, &mut at, model, &records)?
    };
    if at != buf.len() {
        return Err("replay token has trailing bytes".into());
    }
    Ok(Token {
        model,
        records,
        promises,
    })
}

/// The promises that end a token (see [`encode`]), each checked against
/// the steps: its read must be a recorded load or RMW read part reading the
/// initial write (the placeholder), under a model that allows cycles in
/// po ∪ rf.
fn decode_promises(buf: &[u8], at: &mut usize, model: MemoryModel, records: &[Record]) -> Result<Vec<Promise>, String> {
    let small =
        |v: u64| -> Result<u32, String> { u32::try_from(v).map_err(|_| "token number out of range".to_string()) };
    let n = get(buf, at)?;
    // Every promise takes at least five bytes.
    if n == 0 || n > buf.len() as u64 {
        return Err("replay token has trailing bytes".into());
    }
    if !model.allows_porf_cycles() {
        return Err(format!(
            "replay token promises values to reads, but its model {} allows no cycle in po ∪ rf",
            model.name()
        ));
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let read = EventId::new(small(get(buf, at)?)?, small(get(buf, at)?)?);
        let write = EventId::new(small(get(buf, at)?)?, small(get(buf, at)?)?);
        let value = get(buf, at)?;
        let loc = records
            .iter()
            .find_map(|r| match *r {
                // A load or an RMW's read part (`engine/promised.rs`), never
                // a spurious failure.
                Record::Read {
                    event,
                    loc,
                    rf,
                    spurious: false,
                    ..
                } if event == read && rf.is_init() => Some(loc),
                _ => None,
            })
            .ok_or("replay token promises a value to a step that is not a recorded load")?;
        if out.iter().any(|p: &Promise| p.read == read) {
            return Err("replay token promises two values to one read".into());
        }
        out.push(Promise {
            read,
            write,
            loc,
            value,
            rank: None,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token made of raw numbers (each one varint).
    fn raw(nums: &[u64]) -> String {
        let mut buf = Vec::new();
        for &n in nums {
            put(&mut buf, n);
        }
        format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
        )
    }

    #[test]
    fn a_token_of_an_older_version_says_so() {
        let e = decode("sc1.AQUAAAMAAAABAAQAAQABAQAAAAEBAgACAwAF").unwrap_err();
        assert!(e.contains("printed by an older version of scopecheck"), "{e}");
    }

    #[test]
    fn malformed_tokens_say_what_is_wrong() {
        // model cpp20, no locations, one load naming location 0.
        let e = decode(&raw(&[2, 0, 1, LOAD, 1, 0, 0])).unwrap_err();
        assert_eq!(e, "replay token names a location it does not list");
        let e = decode(&raw(&[2, 0, 1, RMW_WRITE, 2, 1])).unwrap_err();
        assert_eq!(e, "replay token has an RMW write without its read part");
        // A location table longer than the token.
        let e = decode(&raw(&[2, 1 << 40])).unwrap_err();
        assert_eq!(e, "replay token is truncated");
        let e = decode(&raw(&[2, 0, 1, 6 + TAGS])).unwrap_err();
        assert_eq!(e, "token is truncated");
        let e = decode(&raw(&[2, 0, 0, 9])).unwrap_err();
        assert_eq!(e, "replay token has trailing bytes");
        let e = decode(&raw(&[9])).unwrap_err();
        assert_eq!(e, "replay token names an unknown memory model");
    }

    #[test]
    fn every_step_kind_decodes() {
        let x = Loc::new(0, 1);
        let y = Loc::new(3, 0);
        let s = raw(&[
            1, // rc11
            2, // locations: x, y
            0,
            1,
            3,
            0,
            7, // steps
            STORE + TAGS,
            1,
            0,
            1, // thread 1 #1: store x, rank 1
            LOAD,
            2,
            0,
            2,
            1, // thread 0 #2: load x from thread 1 #1
            RMW_READ_SPURIOUS + TAGS * 3,
            4,
            1,
            0, // thread 3 #4: failed CAS on y, initial value
            RMW_READ + TAGS * 3,
            5,
            1,
            0, // thread 3 #5: RMW on y
            RMW_WRITE + TAGS * 3,
            6,
            1, // its write part, rank 1
            JOIN,
            3,
            3, // thread 0 #3: join thread 3
            BARRIER + TAGS * 2,
            7, // thread 2 #7: a barrier
        ]);
        let t = decode(&s).unwrap();
        assert_eq!(t.model, MemoryModel::Rc11);
        let e = EventId::new;
        assert_eq!(
            t.records,
            vec![
                Record::Write {
                    event: e(1, 1),
                    loc: x,
                    rank: 1,
                    rmw: false
                },
                Record::Read {
                    event: e(0, 2),
                    loc: x,
                    rf: e(1, 1),
                    rmw: false,
                    spurious: false
                },
                Record::Read {
                    event: e(3, 4),
                    loc: y,
                    rf: EventId::INIT,
                    rmw: true,
                    spurious: true
                },
                Record::Read {
                    event: e(3, 5),
                    loc: y,
                    rf: EventId::INIT,
                    rmw: true,
                    spurious: false
                },
                Record::Write {
                    event: e(3, 6),
                    loc: y,
                    rank: 1,
                    rmw: true
                },
                Record::Join {
                    event: e(0, 3),
                    target: 3
                },
                Record::Barrier { event: e(2, 7) },
            ]
        );
    }

    #[test]
    fn promises_end_a_token_and_are_checked_against_its_steps() {
        let x = Loc::new(0, 1);
        // c11; location x; two steps: thread 0 #1 loads x (the initial
        // write, the placeholder), thread 1 #1 stores x at rank 1; then one
        // promise: T0.1 reads T1.1, value 7.
        let steps = [5, 1, 0, 1, 2, LOAD, 1, 0, 0, STORE + TAGS, 1, 0, 1];
        let with = |tail: &[u64]| raw(&[&steps[..], tail].concat());
        let t = decode(&with(&[1, 0, 1, 1, 1, 7])).unwrap();
        assert_eq!(t.model, MemoryModel::C11);
        assert_eq!(
            t.promises,
            vec![Promise {
                read: EventId::new(0, 1),
                write: EventId::new(1, 1),
                loc: x,
                value: 7,
                rank: None,
            }]
        );
        // Without the tail: no promise, the token of before.
        assert!(decode(&with(&[])).unwrap().promises.is_empty());
        // A promise to the store, or to a step the token lacks.
        let e = decode(&with(&[1, 1, 1, 1, 1, 7])).unwrap_err();
        assert_eq!(e, "replay token promises a value to a step that is not a recorded load");
        let e = decode(&with(&[1, 0, 5, 1, 1, 7])).unwrap_err();
        assert_eq!(e, "replay token promises a value to a step that is not a recorded load");
        let e = decode(&with(&[2, 0, 1, 1, 1, 7, 0, 1, 1, 1, 8])).unwrap_err();
        assert_eq!(e, "replay token promises two values to one read");
        let e = decode(&with(&[1, 0, 1, 1])).unwrap_err();
        assert_eq!(e, "token is truncated");
        // Under a model without cycles in po ∪ rf (rc11): refused.
        let mut rc11 = steps;
        rc11[0] = 1;
        let e = decode(&raw(&[&rc11[..], &[1, 0, 1, 1, 1, 7]].concat())).unwrap_err();
        assert_eq!(
            e,
            "replay token promises values to reads, but its model rc11 allows no cycle in po ∪ rf"
        );
    }

    #[test]
    fn a_huge_thread_number_costs_nothing_to_replay() {
        // A well-formed token naming thread 4,000,000,000: the replay keeps
        // its threads in a map, not a vector that long.
        let t = decode(&raw(&[2, 0, 1, JOIN + TAGS * 4_000_000_000, 1, 5])).unwrap();
        assert_eq!(t.records.len(), 1);
        // (Replaying it is `explore::replay`'s test of the same name, so
        // that this module needs no explorer.)
        assert_eq!(raw(&[2, 0, 1, JOIN + TAGS * 4_000_000_000, 1, 5]), "sc2.AgABhbC4p2gBBQ");
    }
}
