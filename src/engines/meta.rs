//! Storages on PyTorch's meta device: they have a size in bytes but no bytes. `MetaEngine`
//! wraps any engine and keeps the table of its meta storages (by id, with their sizes); an
//! op whose output or any input is a meta storage does no work, every other op runs on the
//! engine it wraps. The evaluator decides shapes, strides, dtypes and errors exactly as for
//! any tensor: only the work is skipped. The engine it wraps never sees a meta storage's
//! size (it holds a zero-byte storage that reserves the id).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};
use crate::engines::{BinaryOp, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp};

/// The most bytes of a meta storage `read_storage` stands in for with zeros.
pub const MAX_META_READ: usize = 256 << 20;

/// The meta storages of a `MetaEngine` and their sizes in bytes, shared with the evaluator.
pub type MetaTable = Rc<RefCell<BTreeMap<StorageId, usize>>>;

/// An engine some of whose storages are on the meta device (see the module's docs).
pub struct MetaEngine {
    inner: Box<dyn Engine>,
    meta: MetaTable,
}

impl MetaEngine {
    /// Wraps `inner`; meta storages are made through the returned table (`allocate_meta`).
    pub fn new(inner: Box<dyn Engine>) -> (MetaEngine, MetaTable) {
        let meta = MetaTable::default();
        (
            MetaEngine {
                inner,
                meta: meta.clone(),
            },
            meta,
        )
    }

    /// Whether any of `views` lies on a meta storage.
    fn any_meta(&self, views: &[&Tensor]) -> bool {
        let meta = self.meta.borrow();
        views.iter().any(|t| meta.contains_key(&t.storage))
    }

    /// Whether an operand lies on a meta storage.
    fn operand_meta(&self, o: &Operand) -> bool {
        match o {
            Operand::Tensor(t) => self.any_meta(&[t]),
            Operand::Scalar(_) => false,
        }
    }
}

/// Makes a meta storage of `nbytes` bytes on `engine`, which must be the `MetaEngine` that
/// made `table` (or an engine around it): it costs a zero-byte storage of the wrapped
/// engine, whatever `nbytes` is.
pub fn allocate_meta(engine: &mut dyn Engine, table: &MetaTable, nbytes: usize) -> StorageId {
    let id = engine.allocate(0);
    table.borrow_mut().insert(id, nbytes);
    id
}

impl Engine for MetaEngine {
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
        self.meta.borrow_mut().remove(&id);
        self.inner.free(id);
    }

    fn nbytes(&self, id: StorageId) -> usize {
        match self.meta.borrow().get(&id) {
            Some(n) => *n,
            None => self.inner.nbytes(id),
        }
    }

    /// A meta storage has no bytes: it reads as zeros (what an op computes from them on the
    /// host lands in a meta storage, never seen), or as nothing past
    /// [`MAX_META_READ`] bytes.
    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        if let Some(&n) = self.meta.borrow().get(&id) {
            return if n <= MAX_META_READ {
                vec![0; n]
            } else {
                Vec::new()
            };
        }
        self.inner.read_storage(id)
    }

    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        if !self.any_meta(&[dst, src]) {
            self.inner.copy(dst, src);
        }
    }

    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        if !self.any_meta(&[dst]) {
            self.inner.fill(dst, value);
        }
    }

    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        if !self.any_meta(&[dst, src]) {
            self.inner.unary(op, dst, src, compute);
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        if self.any_meta(&[dst]) || self.operand_meta(a) || self.operand_meta(b) {
            return Ok(());
        }
        self.inner.binary(op, dst, a, b, compute)
    }

    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        if !self.any_meta(&[dst, src]) {
            self.inner.reduce(op, dst, src, dims);
        }
    }

    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        if !self.any_meta(&[dst, a, b]) {
            self.inner.matmul(dst, a, b, sum);
        }
    }

    /// A meta view's elements read as zeros of its dtype (an op computed on the host from
    /// them writes into a meta storage, so what it computes is never seen).
    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        if self.any_meta(&[view]) {
            let zero = view
                .dtype
                .read(&vec![0u8; view.dtype.item_size().max(1)], 0);
            return vec![zero; view.numel().max(0) as usize];
        }
        self.inner.values(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tensor::layout::Layout;
    use crate::engines::CpuEngine;

    #[test]
    fn a_meta_storage_has_a_size_but_no_bytes_and_ops_on_it_do_nothing() {
        let (mut e, table) = MetaEngine::new(Box::new(CpuEngine::new()));
        let m = allocate_meta(&mut e, &table, 4 << 40);
        assert_eq!(e.nbytes(m), 4 << 40);
        assert!(e.read_storage(m).is_empty());
        let small = allocate_meta(&mut e, &table, 8);
        assert_eq!(e.read_storage(small), vec![0; 8]);
        let c = e.allocate_with((0..4i64).flat_map(|v| v.to_le_bytes()).collect());
        let view = |storage| Tensor {
            storage,
            dtype: DType::Int64,
            layout: Layout::contiguous(&[4]),
        };
        // A copy out of a meta storage leaves the destination as it was.
        e.copy(&view(c), &view(m));
        assert_eq!(e.values(&view(c))[3], Scalar::Int(3));
        e.fill(&view(m), Scalar::Int(7));
        assert_eq!(e.values(&view(m)), vec![Scalar::Int(0); 4]);
        e.free(m);
        e.free(small);
        assert!(table.borrow().is_empty());
    }
}
