//! Storages that are windows of another storage's memory (`engines::window`), as
//! `torch.from_numpy`/`torch.as_tensor` make them for an array that does not start at its
//! memory's first byte or does not reach its end: PyTorch wraps exactly the array's bytes
//! in a new storage (offset 0, `nbytes` = the array's extent, `data_ptr` = the array's
//! first byte) that still shares the memory.
//!
//! In the trace a storage is known by its address, as the oracle knows PyTorch's (by
//! `data_ptr()`): a window that starts where its base starts is shown as the base (its
//! tensors drawn on the base's strip, with the window's own `storage_nbytes`), and windows
//! starting at the same byte are one storage.

use crate::core::tensor::layout::Layout;
use crate::core::tensor::{ScriptError, StorageId, Tensor};
use crate::engines::window::open_window;
use crate::engines::Engine;
use crate::interp::runtime::memory::{Memory, StorageInfo};
use crate::interp::R;

impl Memory {
    /// The storage whose memory `id` is (itself, or the base of a window).
    pub(crate) fn memory_root(&self, id: StorageId) -> StorageId {
        match self.storages.get(&id).and_then(|i| i.window) {
            Some((base, _)) => base,
            None => id,
        }
    }

    /// `view` on a window, moved onto the window's base (`None` when not on a window, or
    /// when the window does not start at a whole element of `view`'s dtype).
    pub(crate) fn window_root_view(&self, view: &Tensor) -> Option<Tensor> {
        let (base, start) = self.storages.get(&view.storage)?.window?;
        let item = view.dtype.item_size();
        if item == 0 || start % item != 0 {
            return None;
        }
        let mut out = view.clone();
        out.storage = base;
        out.layout.offset = out.layout.offset.saturating_add((start / item) as i64);
        Some(out)
    }

    /// `view` on the memory it looks into (itself when not on a window): what aliasing
    /// checks compare, two windows of one memory being one memory to the CPU's loops.
    pub(crate) fn rooted(&self, view: &Tensor) -> Tensor {
        self.window_root_view(view).unwrap_or_else(|| view.clone())
    }

    /// The trace's name of a storage: equal for storages at one address (see the module's
    /// docs); a window of zero bytes is a storage of its own, as PyTorch's is.
    pub(crate) fn storage_key(&self, id: StorageId) -> StorageId {
        let Some(info) = self.storages.get(&id) else {
            return id;
        };
        match info.window {
            None => id,
            Some(_) if info.nbytes == 0 => id,
            Some((base, 0)) => base,
            Some(at) => {
                // The largest window at that byte (the first of those) holds the record.
                let holder = self
                    .storages
                    .iter()
                    .filter(|(_, i)| i.window == Some(at) && i.nbytes > 0)
                    .max_by(|(a, x), (b, y)| x.nbytes.cmp(&y.nbytes).then(b.cmp(a)))
                    .map(|(k, _)| *k)
                    .unwrap_or(id);
                holder
            }
        }
    }

    /// Whether storage `id` is listed in the trace's `storages` (a window shown as another
    /// storage is not).
    pub(crate) fn has_storage_record(&self, id: StorageId) -> bool {
        self.storage_key(id) == id
    }

    /// The array view `t` (no negative strides) as `torch.from_numpy` shares it: on a storage
    /// holding exactly the array's bytes, at offset 0. That is `t` itself when it already
    /// spans its whole storage and no tensor holds it; else a window of the memory (one
    /// already open at those bytes is reused). An array of no bytes gets a storage of its own each time, as in PyTorch.
    /// A new window is opened on `engine`.
    pub(crate) fn window_of_array(&mut self, engine: &mut dyn Engine, t: &Tensor) -> R<Tensor> {
        let item = t.dtype.item_size();
        let extent = if t.numel() == 0 {
            0
        } else {
            let last: i64 = t
                .shape()
                .iter()
                .zip(t.strides())
                .map(|(&n, &s)| (n - 1).saturating_mul(s))
                .fold(0i64, i64::saturating_add);
            (last.saturating_add(1) as usize).saturating_mul(item)
        };
        let Some(info) = self.storages.get(&t.storage).cloned() else {
            return Ok(t.clone());
        };
        let start = (t.layout.offset.max(0) as usize).saturating_mul(item);
        // PyTorch wraps the array's memory in a storage of its own. Where a tensor holds
        // that memory already (an array from `t.numpy()`), the two are distinct storages,
        // which the memory walk counts apart (a window at the base's first byte, drawn as
        // the base); an array NumPy made is the new tensor's alone.
        let held = |id| crate::interp::runtime::accounting::objects_on(id) > 0;
        if start == 0 && extent == info.nbytes && extent > 0 && !held(t.storage) {
            return Ok(t.clone());
        }
        let (base, at) = match info.window {
            Some((base, s)) => (base, s.saturating_add(start)),
            None => (t.storage, start),
        };
        let Some(base_info) = self.storages.get(&base).cloned() else {
            return Ok(t.clone());
        };
        let on = |storage| Tensor {
            storage,
            dtype: t.dtype,
            layout: Layout {
                shape: t.shape().to_vec(),
                strides: t.strides().to_vec(),
                offset: 0,
            },
        };
        if at == 0 && extent == base_info.nbytes && extent > 0 && !held(base) {
            return Ok(on(base));
        }
        if item == 0 || at % item != 0 {
            return Err(ScriptError::NotImplemented(
                "sharing an array that starts inside an element of another dtype is outside Stridescope's model".into(),
            ));
        }
        let open = self
            .storages
            .iter()
            .find(|(_, i)| i.window == Some((base, at)) && i.nbytes == extent && extent > 0)
            .map(|(id, _)| *id);
        let id = match open {
            Some(id) => id,
            None => {
                let id = open_window(engine, &self.windows, base, at, extent);
                let born = self.next_birth();
                self.registered_bytes += extent as u64;
                self.storages.insert(
                    id,
                    StorageInfo {
                        dtype: t.dtype.real_part(),
                        nbytes: extent,
                        base_address: base_info.base_address.saturating_add(at as u64),
                        uninitialized: base_info.uninitialized,
                        window: Some((base, at)),
                        meta: false,
                        born,
                    },
                );
                id
            }
        };
        Ok(on(id))
    }
}
