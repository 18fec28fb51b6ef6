//! Replay tokens: an execution's choices, written so that the same program
//! run with [`crate::explore::replay::Replay`] takes exactly those choices.
//!
//! A token lists, in an order compatible with program order and reads-from,
//! every read with the write it read, every write with its final rank in mo,
//! and every join. It is printed as `sc1.` followed by URL-safe base64.

use crate::event::*;
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use base64::Engine as _;
use std::collections::BinaryHeap;

/// One recorded choice.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Record {
    /// `event` read from `rf` (spuriously failing if `spurious`).
    Read {
        /// The read.
        event: EventId,
        /// The write it read.
        rf: EventId,
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
    /// `event` joined a thread.
    Join {
        /// The join.
        event: EventId,
    },
}

impl Record {
    /// The event the record is about.
    pub fn event(&self) -> EventId {
        match *self {
            Record::Read { event, .. } | Record::Write { event, .. } | Record::Join { event } => event,
        }
    }
}

/// A decoded token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The model the execution ran under.
    pub model: MemoryModel,
    /// The choices, in a porf-compatible order.
    pub records: Vec<Record>,
}

impl Token {
    /// Whether `e` is recorded as the write part of an RMW.
    pub fn is_rmw_write(&self, e: EventId) -> bool {
        self.records
            .iter()
            .any(|r| matches!(*r, Record::Write { event, rmw: true, .. } if event == e))
    }
    /// The location of recorded write `e`.
    pub fn loc_of(&self, e: EventId) -> Option<Loc> {
        self.records.iter().find_map(|r| match *r {
            Record::Write { event, loc, .. } if event == e => Some(loc),
            _ => None,
        })
    }
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

const PREFIX: &str = "sc1.";

/// Encodes the choices of `g` as a token.
pub fn encode(g: &ExecutionGraph, model: MemoryModel) -> String {
    let mut buf = vec![match model {
        MemoryModel::Sc => 0u8,
        MemoryModel::Rc11 => 1,
        MemoryModel::Cpp20 => 2,
        MemoryModel::Src11 => 3,
        MemoryModel::Porf => 4,
    }];
    let order = linearize(g);
    let mut recs = Vec::new();
    for e in order {
        match &g.event(e).kind {
            EventKind::Read(r) => recs.push(Record::Read {
                event: e,
                rf: r.rf,
                spurious: r.spurious,
            }),
            EventKind::Write(w) => recs.push(Record::Write {
                event: e,
                loc: w.loc,
                rank: g.mo_position(w.loc, e) as u32,
                rmw: w.rmw,
            }),
            // A barrier is recorded like a join: only its place in the order.
            EventKind::Join { .. } | EventKind::Barrier { .. } => recs.push(Record::Join { event: e }),
            _ => {}
        }
    }
    put(&mut buf, recs.len() as u64);
    for r in recs {
        let e = r.event();
        let tag = match r {
            Record::Read { .. } => 0,
            Record::Write { rmw: false, .. } => 1,
            Record::Write { rmw: true, .. } => 2,
            Record::Join { .. } => 3,
        };
        put(&mut buf, tag);
        put(&mut buf, e.thread as u64);
        put(&mut buf, e.index as u64);
        match r {
            Record::Read { rf, spurious, .. } => {
                put(&mut buf, if rf.is_init() { 0 } else { rf.thread as u64 + 1 });
                put(&mut buf, rf.index as u64);
                put(&mut buf, spurious as u64);
            }
            Record::Write { loc, rank, .. } => {
                put(&mut buf, loc.0);
                put(&mut buf, rank as u64);
            }
            Record::Join { .. } => {}
        }
    }
    format!(
        "{PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
    )
}

/// Decodes a token, saying what is wrong with a malformed one.
pub fn decode(s: &str) -> Result<Token, String> {
    let body = s
        .trim()
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("a replay token starts with `{PREFIX}`"))?;
    let buf = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|e| format!("replay token is not valid base64: {e}"))?;
    let model = match buf.first() {
        Some(0) => MemoryModel::Sc,
        Some(1) => MemoryModel::Rc11,
        Some(2) => MemoryModel::Cpp20,
        Some(3) => MemoryModel::Src11,
        Some(4) => MemoryModel::Porf,
        _ => return Err("replay token names an unknown memory model".into()),
    };
    let mut at = 1;
    let n = get(&buf, &mut at)?;
    let mut records = Vec::new();
    let small =
        |v: u64| -> Result<u32, String> { u32::try_from(v).map_err(|_| "token number out of range".to_string()) };
    for _ in 0..n {
        let tag = get(&buf, &mut at)?;
        let event = EventId::new(small(get(&buf, &mut at)?)?, small(get(&buf, &mut at)?)?);
        records.push(match tag {
            0 => {
                let t = get(&buf, &mut at)?;
                let i = small(get(&buf, &mut at)?)?;
                let rf = if t == 0 {
                    EventId::INIT
                } else {
                    EventId::new(small(t - 1)?, i)
                };
                let spurious = get(&buf, &mut at)? != 0;
                Record::Read { event, rf, spurious }
            }
            1 | 2 => Record::Write {
                event,
                loc: Loc(get(&buf, &mut at)?),
                rank: small(get(&buf, &mut at)?)?,
                rmw: tag == 2,
            },
            3 => Record::Join { event },
            _ => return Err("replay token has an unknown record".into()),
        });
    }
    if at != buf.len() {
        return Err("replay token has trailing bytes".into());
    }
    Ok(Token { model, records })
}
