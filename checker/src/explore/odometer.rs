//! The depth-first walk over choice sequences that the enumerating
//! strategies share ([`super::reference`], [`super::values`]): each run
//! replays the choices of the path so far and extends it with first
//! options; the next run advances the deepest decision that has options
//! left, like an odometer. No state beyond the path is kept, so every
//! sequence of decisions comes up exactly once.

/// A path of decisions, each (option taken, number of options).
#[derive(Default)]
pub(super) struct Odometer {
    path: Vec<(u32, u32)>,
    pos: usize,
    started: bool,
}

impl Odometer {
    /// The option to take at the next decision of this run, among `n`.
    pub(super) fn decide(&mut self, n: usize) -> usize {
        let c = if self.pos < self.path.len() {
            self.path[self.pos].0 as usize
        } else {
            self.path.push((0, n as u32));
            0
        };
        self.pos += 1;
        c
    }

    /// Starts the next run: advances the last decision that has options
    /// left (dropping those after it). False when every path has been run.
    pub(super) fn next_run(&mut self) -> bool {
        if self.started {
            // Decisions past where the last run stopped were never taken.
            self.path.truncate(self.pos);
            loop {
                match self.path.last_mut() {
                    None => return false,
                    Some((c, n)) if *c + 1 < *n => {
                        *c += 1;
                        break;
                    }
                    Some(_) => {
                        self.path.pop();
                    }
                }
            }
        }
        self.started = true;
        self.pos = 0;
        true
    }
}
