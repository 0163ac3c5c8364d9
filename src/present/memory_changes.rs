//! What a step's memory record says, put into lines and labels: the tracker's lines (what
//! appeared and vanished since the step before, identical lines grouped as `7 ×`), what each
//! live storage is (its category, what holds it, the autograd nodes and slots that saved it),
//! and which tensors make up a band of the timeline.
//!
//! Words are catalog messages ([`Msg`]); byte counts are written by the caller in the units the
//! reader chose ([`crate::present::memory_units`]).

use crate::core::tensor::{DType, StorageId};
use crate::core::trace::{FreeReason, MemoryCategory, MemoryChange, StepMemory};
use crate::present::cells::dims_text;
use crate::present::i18n::Msg;
use crate::present::memory_units::cuda_block_bytes;

/// An autograd node's slot that keeps a storage alive (`ReluBackward0` / `result`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SavedBy {
    pub node: String,
    pub slot: String,
}

/// One line of the tracker: identical changes of a step, grouped.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeLine {
    /// `+` or `-`.
    pub sign: char,
    /// How many identical changes the line stands for.
    pub count: usize,
    /// The bytes of all of them.
    pub bytes: u64,
    /// The bytes of each.
    pub each: u64,
    pub category: Option<MemoryCategory>,
    /// What appeared or vanished (a catalog message).
    pub what: Msg,
    /// Why it vanished (none for an appearance).
    pub why: Option<Msg>,
    /// The storages of the line.
    pub storages: Vec<StorageId>,
}

/// The nodes and slots that saved `storage` (a storage saved by several names each), in the
/// order the storage's role lists what holds it (the first saver first), else the record's.
pub fn saved_by(memory: &StepMemory, storage: StorageId) -> Vec<SavedBy> {
    let mut out: Vec<SavedBy> = Vec::new();
    let role = memory.storages.iter().find(|r| r.storage == storage);
    // The role's own list names every saver (the `saved` set keeps one storage per
    // node, slot, shape and dtype).
    if let Some(r) = role.filter(|r| !r.saved_by.is_empty()) {
        for (node, slot) in &r.saved_by {
            let by = SavedBy {
                node: node.clone(),
                slot: slot.clone(),
            };
            if !out.contains(&by) {
                out.push(by);
            }
        }
        return out;
    }
    for s in memory.saved.iter().filter(|s| s.storage == storage) {
        let by = SavedBy {
            node: s.node.clone(),
            slot: s.slot.clone(),
        };
        if !out.contains(&by) {
            out.push(by);
        }
    }
    if let Some(role) = memory.storages.iter().find(|r| r.storage == storage) {
        let rank = |b: &SavedBy| {
            let name = b.dotted();
            role.held_by
                .iter()
                .position(|h| *h == name)
                .unwrap_or(usize::MAX)
        };
        crate::core::tensor::stable_sort::sort_by_key(&mut out, rank);
    }
    out
}

impl SavedBy {
    /// `ReluBackward0.result`, as a role's `held_by` names it.
    pub fn dotted(&self) -> String {
        format!("{}.{}", self.node, self.slot)
    }
}

/// The shape and dtype a saved storage was saved as, from the first record naming it, else
/// from its role.
fn saved_shape(memory: &StepMemory, storage: StorageId) -> Option<(Vec<i64>, DType)> {
    memory
        .saved
        .iter()
        .find(|s| s.storage == storage)
        .map(|s| (s.shape.clone(), s.dtype))
        .or_else(|| {
            memory
                .storages
                .iter()
                .find(|r| r.storage == storage)
                .map(|r| (r.shape.clone(), r.dtype))
        })
}

/// What a change is: for a storage saved for backward, its nodes and slots and the shape it
/// was saved as (from the step's `saved` records, or the step before's for a storage that
/// went); otherwise the trace's own words (`Parameter (512, 512, 3, 3) float32`).
fn what_of(change: &MemoryChange, memory: &StepMemory, before: Option<&StepMemory>) -> Msg {
    let record = if change.sign == '+' {
        Some(memory)
    } else {
        before
    };
    let by = record
        .map(|m| saved_by(m, change.storage))
        .unwrap_or_default();
    if change.category == Some(MemoryCategory::Saved) && !by.is_empty() {
        let shape = record
            .and_then(|m| saved_shape(m, change.storage))
            .map(|(shape, dtype)| format!("{} {}", dims_text(&shape), dtype.name()))
            .unwrap_or_default();
        let others = by[1..]
            .iter()
            .map(|b| format!("{} {}", b.node, b.slot))
            .collect::<Vec<_>>()
            .join(", ");
        let msg = if others.is_empty() {
            Msg::new("memchange-saved")
        } else {
            Msg::new("memchange-saved-shared").arg("others", others)
        };
        return msg
            .arg("node", by[0].node.as_str())
            .arg("slot", by[0].slot.as_str())
            .arg("shape", shape);
    }
    Msg::new("memchange-what").arg("what", change.what.as_str())
}

/// Why a storage went, as the tracker says it.
fn why_of(change: &MemoryChange) -> Option<Msg> {
    if change.sign == '+' {
        return None;
    }
    Some(match (change.reason, &change.name) {
        (Some(FreeReason::LastReference), Some(name)) => {
            Msg::new("memchange-freed-name").arg("name", name.as_str())
        }
        (Some(FreeReason::LastReference), None) => Msg::new("memchange-freed-last"),
        (Some(FreeReason::Backward), _) => Msg::new("memchange-freed-backward"),
        (Some(FreeReason::ZeroGrad), _) => Msg::new("memchange-freed-zero-grad"),
        (Some(FreeReason::Temporary), _) => Msg::new("memchange-freed-temporary"),
        (None, _) => Msg::new("memchange-freed"),
    })
}

/// The step's changes as the tracker's lines, identical ones (same sign, category, words,
/// reason and bytes each) grouped into one line where the first of them was, with `cuda`:
/// each storage's bytes as a 512-byte block of the CUDA caching allocator.
pub fn change_lines(
    memory: &StepMemory,
    before: Option<&StepMemory>,
    cuda: bool,
) -> Vec<ChangeLine> {
    let mut lines: Vec<ChangeLine> = Vec::new();
    for change in &memory.changes {
        let sign = if change.sign == '+' { '+' } else { '-' };
        let each = if cuda {
            cuda_block_bytes(change.bytes)
        } else {
            change.bytes
        };
        let what = what_of(change, memory, before);
        let why = why_of(change);
        let same = lines.iter_mut().find(|l| {
            l.sign == sign
                && l.each == each
                && l.category == change.category
                && l.what == what
                && l.why == why
        });
        match same {
            Some(l) => {
                l.count += 1;
                l.bytes += each;
                l.storages.push(change.storage);
            }
            None => lines.push(ChangeLine {
                sign,
                count: 1,
                bytes: each,
                each,
                category: change.category,
                what,
                why,
                storages: vec![change.storage],
            }),
        }
    }
    lines
}

/// The catalog message naming a category (`Parameters`, `Saved for backward`, ...).
pub fn category_msg(c: MemoryCategory) -> &'static str {
    match c {
        MemoryCategory::Parameter => "memcat-parameter",
        MemoryCategory::Buffer => "memcat-buffer",
        MemoryCategory::Gradient => "memcat-gradient",
        MemoryCategory::OptimizerState => "memcat-optimizer-state",
        MemoryCategory::Saved => "memcat-saved",
        MemoryCategory::Variable => "memcat-variable",
        MemoryCategory::Other => "memcat-other",
    }
}

/// What a live storage is, for its label in the storage list.
#[derive(Clone, Debug, PartialEq)]
pub struct StorageLabel {
    pub category: Option<MemoryCategory>,
    /// What holds it, most telling first (`lin1.weight`).
    pub held_by: Vec<String>,
    /// The nodes and slots that keep it for backward.
    pub saved: Vec<SavedBy>,
}

/// The label of `storage` in a step's memory record (none when the record does not list it).
pub fn storage_label(memory: &StepMemory, storage: StorageId) -> Option<StorageLabel> {
    let role = memory.storages.iter().find(|s| s.storage == storage);
    let saved = saved_by(memory, storage);
    if role.is_none() && saved.is_empty() {
        return None;
    }
    // The badges name the savers: the list names the rest.
    let held_by = role
        .map(|r| {
            r.held_by
                .iter()
                .filter(|h| !saved.iter().any(|b| b.dotted() == **h))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Some(StorageLabel {
        category: role.and_then(|r| r.category),
        held_by,
        saved,
    })
}

/// The tensors of a band of the timeline: the storages of `category` at a step, by bytes
/// (largest first), each as what holds it first (else its id) and its bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Band {
    pub bytes: u64,
    pub tensors: Vec<(String, u64)>,
}

/// The tensors in `category`'s band of a step (CUDA blocks with `cuda`).
pub fn band(memory: &StepMemory, category: MemoryCategory, cuda: bool) -> Band {
    let mut tensors: Vec<(String, u64)> = memory
        .storages
        .iter()
        .filter(|s| s.category.unwrap_or(MemoryCategory::Other) == category)
        .map(|s| {
            let name = s
                .held_by
                .first()
                .cloned()
                .unwrap_or_else(|| s.storage.to_string());
            let bytes = if cuda {
                cuda_block_bytes(s.bytes)
            } else {
                s.bytes
            };
            (name, bytes)
        })
        .collect();
    crate::core::tensor::stable_sort::sort_by_key(&mut tensors, |t| std::cmp::Reverse(t.1));
    Band {
        bytes: tensors.iter().map(|t| t.1).sum(),
        tensors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::trace::{SavedRecord, StorageRole};
    use crate::present::i18n::{Catalog, Lang};

    fn change(sign: char, bytes: u64, cat: MemoryCategory, id: u32, what: &str) -> MemoryChange {
        MemoryChange {
            sign,
            bytes,
            category: Some(cat),
            storage: StorageId(id),
            what: what.to_string(),
            ..MemoryChange::default()
        }
    }

    fn saved(node: &str, slot: &str, shape: &[i64], id: u32) -> SavedRecord {
        SavedRecord {
            node: node.into(),
            slot: slot.into(),
            shape: shape.to_vec(),
            dtype: DType::Float32,
            storage: StorageId(id),
        }
    }

    fn en(m: &Msg) -> String {
        Catalog::new(Lang::En).msg(m)
    }

    #[test]
    fn identical_changes_are_one_line_with_a_count_and_their_bytes_together() {
        let p = 512 * 512 * 9 * 4;
        let mut changes: Vec<MemoryChange> = (0..7)
            .map(|i| {
                change(
                    '+',
                    p,
                    MemoryCategory::Parameter,
                    i,
                    "Parameter (512, 512, 3, 3) float32",
                )
            })
            .collect();
        changes.insert(
            3,
            change(
                '+',
                2048,
                MemoryCategory::Parameter,
                9,
                "Parameter (512,) float32",
            ),
        );
        let m = StepMemory {
            changes,
            ..StepMemory::default()
        };
        let lines = change_lines(&m, None, false);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].count, 7);
        assert_eq!(lines[0].bytes, 66_060_288);
        assert_eq!(lines[0].each, p);
        assert_eq!(lines[0].storages.len(), 7);
        assert_eq!(en(&lines[0].what), "Parameter (512, 512, 3, 3) float32");
        assert_eq!(lines[1].count, 1);
        assert_eq!(lines[0].why, None);
        // As on a CUDA device: each is a 512-byte block.
        let cuda = change_lines(&m, None, true);
        assert_eq!(cuda[1].bytes, 2048);
        assert_eq!(cuda[0].bytes, 66_060_288);
    }

    #[test]
    fn saved_tensors_are_named_by_node_and_slot_with_their_shape() {
        let m = StepMemory {
            saved: vec![
                saved("AddmmBackward0", "mat1", &[64, 200], 5),
                saved("ReluBackward0", "result", &[64, 200], 5),
                saved("AddmmBackward0", "mat1", &[64, 100], 2),
            ],
            changes: vec![change(
                '+',
                51_200,
                MemoryCategory::Saved,
                5,
                "ReluBackward0 saved result",
            )],
            ..StepMemory::default()
        };
        let lines = change_lines(&m, None, false);
        assert_eq!(
            en(&lines[0].what),
            "AddmmBackward0 saved mat1 (64, 200) float32, shared with ReluBackward0 result"
        );
        // The role's holders say which saved it first.
        let mut m = m;
        m.storages.push(StorageRole {
            storage: StorageId(5),
            held_by: vec![
                "ReluBackward0.result".into(),
                "AddmmBackward0.mat1".into(),
                "h".into(),
            ],
            ..StorageRole::default()
        });
        let lines = change_lines(&m, None, false);
        assert_eq!(
            en(&lines[0].what),
            "ReluBackward0 saved result (64, 200) float32, shared with AddmmBackward0 mat1"
        );
        assert_eq!(storage_label(&m, StorageId(5)).unwrap().held_by, vec!["h"]);
        assert_eq!(
            saved_by(&m, StorageId(5)),
            vec![
                SavedBy {
                    node: "ReluBackward0".into(),
                    slot: "result".into()
                },
                SavedBy {
                    node: "AddmmBackward0".into(),
                    slot: "mat1".into()
                },
            ]
        );
        assert_eq!(saved_by(&m, StorageId(7)), vec![]);
    }

    #[test]
    fn a_storages_own_savers_come_from_its_role() {
        // Two Linear layers of the same shapes: the `saved` set keeps one of the storages.
        let m = StepMemory {
            saved: vec![saved("AddmmBackward0", "mat1", &[8, 8], 1)],
            storages: vec![StorageRole {
                storage: StorageId(2),
                bytes: 256,
                category: Some(MemoryCategory::Saved),
                saved_by: vec![
                    ("ReluBackward0".into(), "result".into()),
                    ("AddmmBackward0".into(), "mat1".into()),
                ],
                shape: vec![8, 8],
                dtype: DType::Float32,
                ..StorageRole::default()
            }],
            changes: vec![change(
                '+',
                256,
                MemoryCategory::Saved,
                2,
                "ReluBackward0 saved result",
            )],
            ..StepMemory::default()
        };
        let by = saved_by(&m, StorageId(2));
        assert_eq!(by.len(), 2);
        assert_eq!(by[0].dotted(), "ReluBackward0.result");
        let lines = change_lines(&m, None, false);
        assert_eq!(
            en(&lines[0].what),
            "ReluBackward0 saved result (8, 8) float32, shared with AddmmBackward0 mat1"
        );
    }

    #[test]
    fn frees_say_why_and_find_what_was_saved_in_the_step_before() {
        let before = StepMemory {
            saved: vec![saved("ReluBackward0", "result", &[64, 200], 5)],
            ..StepMemory::default()
        };
        let mut by_name = change(
            '-',
            51_200,
            MemoryCategory::Variable,
            4,
            "Tensor (64, 200) float32",
        );
        by_name.reason = Some(FreeReason::LastReference);
        by_name.name = Some("h".into());
        let mut by_backward = change(
            '-',
            51_200,
            MemoryCategory::Saved,
            5,
            "ReluBackward0 saved result",
        );
        by_backward.reason = Some(FreeReason::Backward);
        let mut grad = change('-', 800, MemoryCategory::Gradient, 6, "lin1.bias.grad");
        grad.reason = Some(FreeReason::ZeroGrad);
        let m = StepMemory {
            changes: vec![by_name, by_backward, grad],
            ..StepMemory::default()
        };
        let lines = change_lines(&m, Some(&before), false);
        let words: Vec<(char, String, String)> = lines
            .iter()
            .map(|l| {
                (
                    l.sign,
                    en(&l.what),
                    l.why.as_ref().map(en).unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            words,
            vec![
                (
                    '-',
                    "Tensor (64, 200) float32".into(),
                    "freed: last reference to h dropped".into()
                ),
                (
                    '-',
                    "ReluBackward0 saved result (64, 200) float32".into(),
                    "freed by backward()".into()
                ),
                ('-', "lin1.bias.grad".into(), "freed by zero_grad()".into()),
            ]
        );
    }

    #[test]
    fn labels_and_bands_name_what_holds_each_storage() {
        let role = |id: u32, bytes: u64, cat: MemoryCategory, held: &[&str]| StorageRole {
            storage: StorageId(id),
            bytes,
            category: Some(cat),
            held_by: held.iter().map(|s| s.to_string()).collect(),
            ..StorageRole::default()
        };
        let m = StepMemory {
            storages: vec![
                role(0, 80_000, MemoryCategory::Parameter, &["lin1.weight"]),
                role(1, 800, MemoryCategory::Parameter, &["lin1.bias"]),
                role(5, 51_200, MemoryCategory::Saved, &["ReluBackward0.result"]),
                role(9, 8000, MemoryCategory::Parameter, &["lin2.weight"]),
                role(11, 4, MemoryCategory::Other, &[]),
            ],
            saved: vec![saved("ReluBackward0", "result", &[64, 200], 5)],
            ..StepMemory::default()
        };
        let l = storage_label(&m, StorageId(5)).unwrap();
        assert_eq!(l.category, Some(MemoryCategory::Saved));
        assert_eq!(l.saved.len(), 1);
        assert_eq!(
            storage_label(&m, StorageId(0)).unwrap().held_by,
            vec!["lin1.weight"]
        );
        assert_eq!(storage_label(&m, StorageId(42)), None);
        let b = band(&m, MemoryCategory::Parameter, false);
        assert_eq!(b.bytes, 88_800);
        let names: Vec<&str> = b.tensors.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(names, vec!["lin1.weight", "lin2.weight", "lin1.bias"]);
        assert_eq!(
            band(&m, MemoryCategory::Other, false).tensors,
            vec![("s11".to_string(), 4)]
        );
        assert_eq!(band(&m, MemoryCategory::Other, true).bytes, 512);
        for c in MemoryCategory::ALL {
            assert!(Catalog::new(Lang::En).has(category_msg(c)));
        }
    }
}
