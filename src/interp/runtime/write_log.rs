//! The cells a step wrote into storages that existed before it: a set of element offsets per
//! storage, in the order the storages were first written. A loop that writes the same weights
//! 500 times records each cell once, so a step's record stays as small as the storages it
//! touched, however long the loop ran.

use std::collections::HashMap;

use crate::core::tensor::StorageId;

/// The cells written into each storage, as a set of element offsets.
#[derive(Clone, Default)]
pub(crate) struct WriteLog {
    /// One entry per storage written, in the order of first write.
    storages: Vec<WrittenCells>,
    /// Where each storage's entry is in `storages`.
    index: HashMap<StorageId, usize>,
}

/// The cells written in one storage.
#[derive(Clone)]
struct WrittenCells {
    storage: StorageId,
    /// The storage's element size in bytes (the trace's `element_size`).
    element_size: usize,
    /// Bit `i` is set when element `i` was written.
    bits: Vec<u64>,
    /// How many bits are set.
    count: usize,
}

impl WrittenCells {
    /// Marks element `offset` written, unless `cap` cells are marked already or the offset
    /// is past the first `64 * cap` elements (the set's memory stays within `cap` words).
    fn mark(&mut self, offset: i64, cap: usize) {
        let Ok(offset) = usize::try_from(offset) else {
            return;
        };
        let (word, bit) = (offset / 64, offset % 64);
        if word >= self.bits.len() {
            if self.count >= cap || word >= cap {
                return;
            }
            self.bits.resize(word + 1, 0);
        }
        let mask = 1u64 << bit;
        if self.bits[word] & mask == 0 {
            if self.count >= cap {
                return;
            }
            self.bits[word] |= mask;
            self.count += 1;
        }
    }

    /// Marks the `n` elements from `first` written, as [`WrittenCells::mark`] would one by
    /// one: a word at a time when they all fit under `cap`.
    fn mark_range(&mut self, first: usize, n: usize, cap: usize) {
        let Some(end) = first.checked_add(n) else {
            return;
        };
        if n == 0 {
            return;
        }
        let last_word = (end - 1) / 64;
        if last_word >= cap || self.count + n > cap {
            for offset in first..end {
                self.mark(offset as i64, cap);
            }
            return;
        }
        if self.bits.len() <= last_word {
            self.bits.resize(last_word + 1, 0);
        }
        let mut at = first;
        while at < end {
            let (word, bit) = (at / 64, at % 64);
            let span = (64 - bit).min(end - at);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            self.count += (mask & !self.bits[word]).count_ones() as usize;
            self.bits[word] |= mask;
            at += span;
        }
    }

    /// The offsets written, as ascending runs `[first, count]` of consecutive offsets.
    fn runs(&self) -> Vec<[i64; 2]> {
        let mut runs: Vec<[i64; 2]> = Vec::new();
        for (w, &word) in self.bits.iter().enumerate() {
            if word == u64::MAX {
                let first = (w * 64) as i64;
                match runs.last_mut() {
                    Some([start, count]) if *start + *count == first => *count += 64,
                    _ => runs.push([first, 64]),
                }
                continue;
            }
            let mut rest = word;
            while rest != 0 {
                let bit = rest.trailing_zeros() as usize;
                let o = (w * 64 + bit) as i64;
                match runs.last_mut() {
                    Some([start, count]) if *start + *count == o => *count += 1,
                    _ => runs.push([o, 1]),
                }
                rest &= rest - 1;
            }
        }
        runs
    }
}

impl WriteLog {
    /// Records that `offsets` of `storage` (elements of `element_size` bytes) were written,
    /// keeping at most `cap` cells per storage.
    pub(crate) fn note(
        &mut self,
        storage: StorageId,
        element_size: usize,
        offsets: impl IntoIterator<Item = i64>,
        cap: usize,
    ) {
        let at = *self.index.entry(storage).or_insert_with(|| {
            self.storages.push(WrittenCells {
                storage,
                element_size,
                bits: Vec::new(),
                count: 0,
            });
            self.storages.len() - 1
        });
        let cells = &mut self.storages[at];
        for offset in offsets {
            cells.mark(offset, cap);
        }
    }

    /// Records that the `n` consecutive elements from `first` of `storage` were written (a
    /// contiguous view's), as [`WriteLog::note`] of those offsets does.
    pub(crate) fn note_range(
        &mut self,
        storage: StorageId,
        element_size: usize,
        first: usize,
        n: usize,
        cap: usize,
    ) {
        self.note(storage, element_size, std::iter::empty(), cap);
        if let Some(&at) = self.index.get(&storage) {
            self.storages[at].mark_range(first, n, cap);
        }
    }

    /// Adds what `other` recorded (a sub-step's writes, to its enclosing step's).
    pub(crate) fn extend(&mut self, other: WriteLog) {
        for cells in other.storages {
            match self.index.get(&cells.storage) {
                Some(&at) => {
                    let mine = &mut self.storages[at];
                    if mine.bits.len() < cells.bits.len() {
                        mine.bits.resize(cells.bits.len(), 0);
                    }
                    for (w, word) in cells.bits.iter().enumerate() {
                        mine.bits[w] |= word;
                    }
                    mine.count = mine.bits.iter().map(|w| w.count_ones() as usize).sum();
                }
                None => {
                    self.index.insert(cells.storage, self.storages.len());
                    self.storages.push(cells);
                }
            }
        }
    }

    /// Each storage written, with its element size and the runs `[first, count]` of offsets
    /// written (ascending), in the order of first write.
    pub(crate) fn records(&self) -> impl Iterator<Item = (StorageId, usize, Vec<[i64; 2]>)> + '_ {
        self.storages
            .iter()
            .map(|c| (c.storage, c.element_size, c.runs()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_written_twice_is_recorded_once_in_offset_order() {
        let mut log = WriteLog::default();
        log.note(StorageId(3), 4, [5, 1, 5, 130], 100);
        log.note(StorageId(1), 8, [0], 100);
        let mut later = WriteLog::default();
        later.note(StorageId(3), 4, [1, 2], 100);
        log.extend(later);
        let records: Vec<_> = log.records().collect();
        assert_eq!(
            records,
            vec![
                (StorageId(3), 4, vec![[1, 2], [5, 1], [130, 1]]),
                (StorageId(1), 8, vec![[0, 1]]),
            ]
        );
    }

    #[test]
    fn at_most_cap_cells_are_kept_per_storage() {
        let mut log = WriteLog::default();
        log.note(StorageId(0), 4, 0..10, 3);
        log.note(StorageId(0), 4, [1], 3);
        assert_eq!(log.records().next().map(|r| r.2), Some(vec![[0, 3]]));
        let mut full = WriteLog::default();
        full.note(StorageId(0), 4, 0..200, 1000);
        // A range marks what its offsets one by one mark, under the cap and across it.
        for (first, n, cap) in [(3, 200, 1000), (60, 10, 1000), (0, 64, 2), (5, 300, 100)] {
            let mut by_range = WriteLog::default();
            by_range.note(StorageId(2), 4, [0, 70], cap);
            by_range.note_range(StorageId(2), 4, first, n, cap);
            let mut by_offsets = WriteLog::default();
            by_offsets.note(StorageId(2), 4, [0, 70], cap);
            by_offsets.note(StorageId(2), 4, (first..first + n).map(|o| o as i64), cap);
            let runs = |log: &WriteLog| log.records().map(|r| r.2).collect::<Vec<_>>();
            assert_eq!(runs(&by_range), runs(&by_offsets), "{first} {n} {cap}");
        }
        assert_eq!(full.records().next().map(|r| r.2), Some(vec![[0, 200]]));
    }
}
