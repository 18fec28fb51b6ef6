//! `std::hint` replacements.

/// A spin-loop hint: under the checker the thread waits until a location it
/// read since its previous hint gets a new write, instead of spinning forever.
#[track_caller]
pub fn spin_loop() {
    crate::rt::spin();
}
