//! `MirrorEngine`: the CPU reference engine answers every read, and every op is also run on
//! the GPU engine, so that a browser (where GPU reads only complete asynchronously) runs each
//! op as a compute shader and can check the GPU's storages against the reference afterwards.
//! Ops the GPU engine hands to the CPU (float64 arithmetic, float sums, ...) get the reference
//! result uploaded instead, so the GPU storages stay exact.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};
use crate::engines::gpu::GpuEngine;
use crate::engines::{
    BinaryOp, CpuEngine, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp,
};

/// What a mirrored run did on the GPU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorStats {
    /// Ops run as compute shaders.
    pub gpu_ops: usize,
    /// Ops the GPU engine handed to the CPU engine (their result was uploaded).
    pub cpu_ops: usize,
    /// CPU storage id -> GPU storage id, for reading the GPU's copy back.
    pub ids: BTreeMap<StorageId, StorageId>,
}

/// Runs every op on both engines; reads come from the CPU engine.
pub struct MirrorEngine {
    cpu: CpuEngine,
    gpu: Rc<RefCell<GpuEngine>>,
    stats: Rc<RefCell<MirrorStats>>,
}

impl MirrorEngine {
    /// A mirror over `gpu` (cleared first), reporting into `stats`.
    pub fn new(gpu: Rc<RefCell<GpuEngine>>, stats: Rc<RefCell<MirrorStats>>) -> MirrorEngine {
        gpu.borrow_mut().clear();
        *stats.borrow_mut() = MirrorStats::default();
        MirrorEngine {
            cpu: CpuEngine::new(),
            gpu,
            stats,
        }
    }

    fn on_gpu(&self, t: &Tensor) -> Tensor {
        let storage = self
            .stats
            .borrow()
            .ids
            .get(&t.storage)
            .copied()
            .unwrap_or(t.storage);
        Tensor {
            storage,
            dtype: t.dtype,
            layout: t.layout.clone(),
        }
    }

    fn operand(&self, o: &Operand) -> Operand {
        match o {
            Operand::Tensor(t) => Operand::Tensor(self.on_gpu(t)),
            Operand::Scalar(s) => Operand::Scalar(*s),
        }
    }

    /// After an op: count it, and upload the reference result when the GPU did not run it.
    fn settle(&mut self, dst: &Tensor, gpu_failed: bool) {
        let handed_over = {
            let mut gpu = self.gpu.borrow_mut();
            gpu.take_op_log().iter().any(|r| r.engine != "gpu")
        };
        let mut stats = self.stats.borrow_mut();
        if handed_over || gpu_failed {
            stats.cpu_ops += 1;
            let gpu_id = stats.ids.get(&dst.storage).copied().unwrap_or(dst.storage);
            drop(stats);
            let bytes = self.cpu.read_storage(dst.storage);
            self.gpu.borrow_mut().overwrite(gpu_id, bytes);
        } else {
            stats.gpu_ops += 1;
        }
    }
}

impl Engine for MirrorEngine {
    fn name(&self) -> String {
        self.gpu.borrow().name()
    }

    fn allocate(&mut self, nbytes: usize) -> StorageId {
        let id = self.cpu.allocate(nbytes);
        let gpu_id = self.gpu.borrow_mut().allocate(nbytes);
        self.stats.borrow_mut().ids.insert(id, gpu_id);
        id
    }

    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId {
        let gpu_id = self.gpu.borrow_mut().allocate_with(bytes.clone());
        let id = self.cpu.allocate_with(bytes);
        self.stats.borrow_mut().ids.insert(id, gpu_id);
        id
    }

    fn free(&mut self, id: StorageId) {
        self.cpu.free(id);
        if let Some(gpu_id) = self.stats.borrow_mut().ids.remove(&id) {
            self.gpu.borrow_mut().free(gpu_id);
        }
    }

    fn nbytes(&self, id: StorageId) -> usize {
        self.cpu.nbytes(id)
    }

    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        self.cpu.read_storage(id)
    }

    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        self.cpu.copy(dst, src);
        let (d, s) = (self.on_gpu(dst), self.on_gpu(src));
        self.gpu.borrow_mut().copy(&d, &s);
        self.settle(dst, false);
    }

    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        self.cpu.fill(dst, value);
        let d = self.on_gpu(dst);
        self.gpu.borrow_mut().fill(&d, value);
        self.settle(dst, false);
    }

    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        self.cpu.unary(op, dst, src, compute);
        let (d, s) = (self.on_gpu(dst), self.on_gpu(src));
        self.gpu.borrow_mut().unary(op, &d, &s, compute);
        self.settle(dst, false);
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        self.cpu.binary(op, dst, a, b, compute)?;
        let (d, x, y) = (self.on_gpu(dst), self.operand(a), self.operand(b));
        let failed = self
            .gpu
            .borrow_mut()
            .binary(op, &d, &x, &y, compute)
            .is_err();
        self.settle(dst, failed);
        Ok(())
    }

    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        self.cpu.reduce(op, dst, src, dims);
        let (d, s) = (self.on_gpu(dst), self.on_gpu(src));
        self.gpu.borrow_mut().reduce(op, &d, &s, dims);
        self.settle(dst, false);
    }

    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        self.cpu.matmul(dst, a, b, sum);
        let (d, x, y) = (self.on_gpu(dst), self.on_gpu(a), self.on_gpu(b));
        self.gpu.borrow_mut().matmul(&d, &x, &y, sum);
        self.settle(dst, false);
    }

    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        self.cpu.values(view)
    }
}
