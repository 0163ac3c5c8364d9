//! Storages that are windows of another storage's bytes. `torch.from_numpy(a[2:])` makes a
//! new PyTorch storage that starts at the array's first byte and spans only the array, yet
//! shares the memory of `a`: a write through either shows in the other. `WindowEngine`
//! wraps any engine and gives such a window an id of its own (so it has its own size, offset
//! 0 and address); every op on a window runs on the storage it looks into, the views moved
//! by the window's start. The engine it wraps never sees a window.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};
use crate::engines::{BinaryOp, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp};

/// Where a window looks: `nbytes` bytes of storage `base` from byte `byte_offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The storage whose bytes the window shows (never a window itself).
    pub base: StorageId,
    /// The byte of `base` where the window starts.
    pub byte_offset: usize,
    /// The window's size in bytes.
    pub nbytes: usize,
}

/// The windows of a `WindowEngine`, shared with whoever opens them (the evaluator).
pub type WindowTable = Rc<RefCell<BTreeMap<StorageId, Window>>>;

/// An engine whose storages may be windows of other storages (see the module's docs).
pub struct WindowEngine {
    inner: Box<dyn Engine>,
    windows: WindowTable,
}

impl WindowEngine {
    /// Wraps `inner`; windows are opened through the returned table (`open_window`).
    pub fn new(inner: Box<dyn Engine>) -> (WindowEngine, WindowTable) {
        let windows = WindowTable::default();
        (
            WindowEngine {
                inner,
                windows: windows.clone(),
            },
            windows,
        )
    }

    /// `t` moved onto the storage its window looks into (unchanged when not on a window).
    /// A window's start is a whole number of `t`'s elements (the evaluator keeps it so).
    fn resolve<'a>(&self, t: &'a Tensor) -> Cow<'a, Tensor> {
        match self.windows.borrow().get(&t.storage) {
            None => Cow::Borrowed(t),
            Some(w) => {
                let mut out = t.clone();
                out.storage = w.base;
                let item = t.dtype.item_size().max(1);
                out.layout.offset = out
                    .layout
                    .offset
                    .saturating_add((w.byte_offset / item) as i64);
                Cow::Owned(out)
            }
        }
    }

    fn resolve_operand<'a>(&self, o: &'a Operand) -> Cow<'a, Operand> {
        match o {
            Operand::Tensor(t) => match self.resolve(t) {
                Cow::Borrowed(_) => Cow::Borrowed(o),
                Cow::Owned(t) => Cow::Owned(Operand::Tensor(t)),
            },
            Operand::Scalar(_) => Cow::Borrowed(o),
        }
    }
}

/// Opens a window of `nbytes` bytes of `base` (itself possibly a window) from byte
/// `byte_offset` on `engine`, which must be the `WindowEngine` that made `table`.
pub fn open_window(
    engine: &mut dyn Engine,
    table: &WindowTable,
    base: StorageId,
    byte_offset: usize,
    nbytes: usize,
) -> StorageId {
    let (base, byte_offset) = match table.borrow().get(&base) {
        Some(w) => (w.base, w.byte_offset.saturating_add(byte_offset)),
        None => (base, byte_offset),
    };
    // A zero-byte storage of the wrapped engine reserves the id.
    let id = engine.allocate(0);
    table.borrow_mut().insert(
        id,
        Window {
            base,
            byte_offset,
            nbytes,
        },
    );
    id
}

impl Engine for WindowEngine {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn allocate(&mut self, nbytes: usize) -> StorageId {
        self.inner.allocate(nbytes)
    }

    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId {
        self.inner.allocate_with(bytes)
    }

    fn free(&mut self, id: StorageId) {
        self.windows.borrow_mut().remove(&id);
        self.inner.free(id);
    }

    fn nbytes(&self, id: StorageId) -> usize {
        match self.windows.borrow().get(&id) {
            Some(w) => w.nbytes,
            None => self.inner.nbytes(id),
        }
    }

    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        let window = self.windows.borrow().get(&id).copied();
        match window {
            None => self.inner.read_storage(id),
            Some(w) => {
                let bytes = self.inner.read_storage(w.base);
                let start = w.byte_offset.min(bytes.len());
                let end = w.byte_offset.saturating_add(w.nbytes).min(bytes.len());
                bytes[start..end].to_vec()
            }
        }
    }

    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        let (dst, src) = (self.resolve(dst), self.resolve(src));
        self.inner.copy(&dst, &src);
    }

    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        let dst = self.resolve(dst);
        self.inner.fill(&dst, value);
    }

    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        let (dst, src) = (self.resolve(dst), self.resolve(src));
        self.inner.unary(op, &dst, &src, compute);
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        let dst = self.resolve(dst);
        let (a, b) = (self.resolve_operand(a), self.resolve_operand(b));
        self.inner.binary(op, &dst, &a, &b, compute)
    }

    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        let (dst, src) = (self.resolve(dst), self.resolve(src));
        self.inner.reduce(op, &dst, &src, dims);
    }

    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        let (dst, a, b) = (self.resolve(dst), self.resolve(a), self.resolve(b));
        self.inner.matmul(&dst, &a, &b, sum);
    }

    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        let view = self.resolve(view);
        self.inner.values(&view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tensor::layout::Layout;
    use crate::engines::CpuEngine;

    #[test]
    fn a_window_shares_its_base_bytes() {
        let (mut e, table) = WindowEngine::new(Box::new(CpuEngine::new()));
        let bytes: Vec<u8> = (0..6i64).flat_map(|v| v.to_le_bytes()).collect();
        let base = e.allocate_with(bytes);
        let w = open_window(&mut e, &table, base, 16, 32);
        assert_ne!(w, base);
        assert_eq!(e.nbytes(w), 32);
        let view = |storage, shape: &[i64]| Tensor {
            storage,
            dtype: DType::Int64,
            layout: Layout::contiguous(shape),
        };
        assert_eq!(
            e.values(&view(w, &[4])),
            (2..6).map(Scalar::Int).collect::<Vec<_>>()
        );
        e.fill(&view(w, &[1]), Scalar::Int(9));
        assert_eq!(e.values(&view(base, &[6]))[2], Scalar::Int(9));
        assert_eq!(e.read_storage(w).len(), 32);
        // A window of a window looks into the first one's base.
        let w2 = open_window(&mut e, &table, w, 8, 8);
        assert_eq!(e.values(&view(w2, &[1])), vec![Scalar::Int(3)]);
        e.free(w);
        assert_eq!(e.values(&view(w2, &[1])), vec![Scalar::Int(3)]);
    }
}
