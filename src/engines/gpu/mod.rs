//! The GPU engine: storages in `wgpu` storage buffers, every storage-moving op a WGSL
//! compute shader (`shaders/`), results identical to the CPU engine bit for bit.
//!
//! Storages are `array<u32>` buffers whose byte length is the storage's rounded up to 4
//! (the logical `nbytes` is kept beside). Kernels own whole output words, so 1- and 2-byte
//! dtypes never race. On the GPU: every copy and fill (all dtype pairs, bit-exact
//! conversions), bool / integer (int64 on u32 pairs) / float16 / bfloat16 / float32
//! elementwise ops, integer floor division and remainder, integer sums, amax / amin of
//! every dtype, integer and bool matmul. On the CPU engine's functions (storages read back,
//! computed with `cpu.rs`, written back): float64 arithmetic, true division, float pow,
//! floor division and remainder (WGSL's are not correctly rounded), float sums and float
//! matmuls (they accumulate in f64, which WGSL lacks), zero integer divisors (the CPU engine
//! raises ZeroDivisionError) and storages larger than `max_storage_buffer_binding_size`.
//! [`GpuEngine::take_op_log`] says which engine ran each op and why.
//!
//! Float results are bit-exact with the CPU engine on the adapters tested (lavapipe):
//! conversions and comparisons work on the bits, + - * take an exact integer path where
//! denormals are involved, and NaNs follow x86's rules (first NaN operand, quieted; the
//! negative default NaN for invalid operations).
//!
//! Natively every method blocks where it must (reads map a staging buffer and wait). In
//! the browser nothing may block: create the engine with [`GpuEngine::new`] and read with
//! [`GpuEngine::read_storage_async`]; the synchronous reads of the `Engine` trait then
//! answer from the engine's host copies.

/// A shader (a `.wgsl` file of this folder or of `src/painters/`) as the wasm carries it: `include_str!` of the copy `build.rs`
/// writes without comments and indentation (naga's line numbers count that copy's lines;
/// `STRIDESCOPE_SHADER_DIR` loads the documented files natively).
macro_rules! wgsl {
    ($name:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/shaders/", $name, ".wgsl"))
    };
}
pub(crate) use wgsl;

mod arith;
pub(crate) mod kernels;
pub mod plan;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};
use crate::engines::cpu::CpuEngine;
use crate::engines::{BinaryOp, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp};

/// Why the GPU engine could not start or could not run a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// No WebGPU/Vulkan adapter (install Mesa's lavapipe: `mesa-vulkan-drivers`).
    #[error("no GPU adapter found ({0}); natively, install a Vulkan driver such as Mesa's lavapipe (apt-get install mesa-vulkan-drivers)")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("the GPU adapter refused a device: {0}")]
    RequestDevice(String),
    /// Mapping a buffer for reading failed.
    #[error("reading a GPU buffer failed: {0}")]
    Map(String),
    /// A tensor is larger than one kernel may bind.
    #[error("a storage of {bytes} bytes exceeds this adapter's max_storage_buffer_binding_size ({limit} bytes)")]
    TooLarge { bytes: u64, limit: u64 },
}

/// Which engine ran one op, and why it was not the GPU when it was not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpRecord {
    /// The engine method: `copy`, `fill`, `unary neg`, `binary add`, `reduce sum`, `matmul`.
    pub op: String,
    /// `gpu` or `cpu`.
    pub engine: String,
    /// Why the op ran on the CPU (null when it ran on the GPU).
    pub reason: Option<String>,
}

/// One storage: its buffer on the device and, when known, a host copy of its bytes.
struct GpuStorage {
    /// The `array<u32>` buffer (None when the storage is larger than the device allows:
    /// then it lives in `host` only and every op touching it runs on the CPU).
    buffer: Option<wgpu::Buffer>,
    nbytes: usize,
    /// The bytes as last read or written by the host; None once a kernel wrote the buffer.
    host: Option<Vec<u8>>,
}

/// The GPU engine (see the module documentation).
pub struct GpuEngine {
    /// The instance the device came from: a surface the device draws into (a page's canvas)
    /// is made from it.
    instance: wgpu::Instance,
    /// The adapter the device was opened on (a surface's capabilities are the adapter's).
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    /// The limits kernels plan with (the device's, unless restricted for tests).
    limits: wgpu::Limits,
    device_limits: wgpu::Limits,
    storages: BTreeMap<StorageId, GpuStorage>,
    next_id: u32,
    modules: HashMap<kernels::Family, wgpu::ShaderModule>,
    pipelines: HashMap<String, wgpu::ComputePipeline>,
    op_log: Vec<OpRecord>,
    /// Bound where a kernel's binding is not read.
    dummy: Option<wgpu::Buffer>,
    /// Use the workgroup-memory transpose even on CPU adapters (tests).
    force_shared_transpose: bool,
    /// Bound as the status flag of elementwise ops that cannot raise it.
    status: Option<wgpu::Buffer>,
    /// While the benchmark times a batch: the kernels' command buffers, held back to be
    /// submitted together (see `defer_submissions`).
    deferred: std::cell::RefCell<Option<Vec<wgpu::CommandBuffer>>>,
}

/// A storage's GPU buffer as a painter reads it.
#[derive(Clone, Debug)]
pub struct StorageBuffer {
    /// The `array<u32>` buffer; None when the storage is larger than the device allows and
    /// lives on the host only.
    pub buffer: Option<wgpu::Buffer>,
    /// The storage's length in bytes.
    pub nbytes: usize,
}

/// Rounds a byte count up to whole u32 words (at least one word: bindings cannot be empty).
fn buffer_size(nbytes: usize) -> u64 {
    (nbytes.div_ceil(4).max(1) * 4) as u64
}

impl GpuEngine {
    /// The instance the device was opened from: make a surface for this engine's device
    /// (a browser canvas's WebGPU context) with it. The engine itself knows no window or page.
    pub fn instance(&self) -> &wgpu::Instance {
        &self.instance
    }

    /// The adapter the device was opened on (ask it a surface's capabilities).
    pub fn adapter(&self) -> &wgpu::Adapter {
        &self.adapter
    }

    /// The device the engine's buffers live on (the painters draw with it).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue the engine submits to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The buffer holding a storage's bytes, for the painters (None for an unknown id).
    pub fn storage_buffer(&self, id: StorageId) -> Option<StorageBuffer> {
        self.storages.get(&id).map(|s| StorageBuffer {
            buffer: s.buffer.clone(),
            nbytes: s.nbytes,
        })
    }

    /// Finds an adapter and opens a device (works natively and in the browser).
    pub async fn new() -> Result<GpuEngine, GpuError> {
        // WGPU_BACKEND (vulkan, gl, ...) and the other WGPU_* variables choose natively.
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("stridescope"),
                // Timestamps time render-bench's frames where the adapter has them.
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::RequestDevice(e.to_string()))?;
        Ok(GpuEngine {
            instance,
            adapter,
            device,
            queue,
            info,
            limits: limits.clone(),
            device_limits: limits,
            storages: BTreeMap::new(),
            next_id: 0,
            modules: HashMap::new(),
            pipelines: HashMap::new(),
            op_log: Vec::new(),
            dummy: None,
            force_shared_transpose: false,
            status: None,
            deferred: std::cell::RefCell::new(None),
        })
    }

    /// [`GpuEngine::new`], blocking until the device is open (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking() -> Result<GpuEngine, GpuError> {
        pollster::block_on(GpuEngine::new())
    }

    /// The adapter's description (`name`, `backend`, `device_type`, ...).
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The device's limits.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Plans kernels as if the device had smaller limits (None: the device's own): lets
    /// tests reach 2-D grids and the binding-size fallback with small tensors.
    #[doc(hidden)]
    pub fn restrict_limits_for_testing(
        &mut self,
        max_binding: Option<u64>,
        max_groups: Option<u32>,
    ) {
        let device = &self.device_limits;
        self.limits.max_storage_buffer_binding_size = max_binding
            .unwrap_or(device.max_storage_buffer_binding_size)
            .min(device.max_storage_buffer_binding_size);
        self.limits.max_compute_workgroups_per_dimension = max_groups
            .unwrap_or(device.max_compute_workgroups_per_dimension)
            .min(device.max_compute_workgroups_per_dimension);
    }

    /// Runs transposes with the workgroup-memory kernel meant for GPUs even on a CPU adapter
    /// (so that tests on lavapipe cover it).
    #[doc(hidden)]
    pub fn force_shared_transpose_for_testing(&mut self, force: bool) {
        self.force_shared_transpose = force;
    }

    /// The records of the ops run since the last call: which engine ran each, and why.
    pub fn take_op_log(&mut self) -> Vec<OpRecord> {
        std::mem::take(&mut self.op_log)
    }

    fn log_gpu(&mut self, op: &str) {
        self.op_log.push(OpRecord {
            op: op.to_string(),
            engine: "gpu".to_string(),
            reason: None,
        });
    }

    fn log_cpu(&mut self, op: &str, reason: String) {
        self.op_log.push(OpRecord {
            op: op.to_string(),
            engine: "cpu".to_string(),
            reason: Some(reason),
        });
    }

    /// Waits until the device has finished all submitted work (native; a no-op in the
    /// browser).
    pub fn wait_idle(&self) {
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// The buffer of a storage that kernels may bind, or the reason they may not.
    fn bindable(&self, id: StorageId) -> Result<&wgpu::Buffer, String> {
        let storage = self
            .storages
            .get(&id)
            .ok_or_else(|| format!("storage {id} is unknown to the GPU engine"))?;
        let limit = self.limits.max_storage_buffer_binding_size;
        match &storage.buffer {
            Some(b) if b.size() <= limit => Ok(b),
            _ => Err(GpuError::TooLarge {
                bytes: storage.nbytes as u64,
                limit,
            }
            .to_string()),
        }
    }

    /// Checks that every storage in `ids` may be bound by a kernel.
    fn all_bindable(&self, ids: &[StorageId]) -> Result<(), String> {
        for &id in ids {
            self.bindable(id)?;
        }
        Ok(())
    }

    fn mark_written(&mut self, id: StorageId) {
        if let Some(s) = self.storages.get_mut(&id) {
            s.host = None;
        }
    }

    /// Replaces a storage's bytes (on the device, and as the host copy).
    fn write_bytes(&mut self, id: StorageId, mut bytes: Vec<u8>) {
        let Some(storage) = self.storages.get_mut(&id) else {
            return;
        };
        bytes.resize(storage.nbytes, 0);
        if let Some(buffer) = &storage.buffer {
            let mut padded = bytes.clone();
            padded.resize(buffer.size() as usize, 0);
            self.queue.write_buffer(buffer, 0, &padded);
        }
        storage.host = Some(bytes);
    }

    /// Replaces a storage's bytes with `bytes` (a mirror uploads the reference result of an
    /// op this engine handed to the CPU).
    pub fn overwrite(&mut self, id: StorageId, bytes: Vec<u8>) {
        self.write_bytes(id, bytes);
    }

    /// Starts reading a storage back and returns a future that owns everything it needs (so a
    /// caller can await it without holding the engine): the browser's way to verify results.
    pub fn read_later(
        &self,
        id: StorageId,
    ) -> impl std::future::Future<Output = Result<Vec<u8>, GpuError>> + 'static {
        let source = self
            .storages
            .get(&id)
            .map(|s| (s.host.clone(), s.buffer.clone(), s.nbytes));
        let pending = source.map(|(host, buffer, nbytes)| match (host, buffer) {
            (Some(host), _) => Err(host),
            (None, Some(buffer)) => {
                let staging = self.staged_copy(&buffer);
                let (future, resolve) = kernels::oneshot();
                staging.map_async(wgpu::MapMode::Read, .., move |result| {
                    resolve(result.map_err(|e| e.to_string()));
                });
                #[cfg(not(target_arch = "wasm32"))]
                let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
                Ok((future, staging, nbytes))
            }
            (None, None) => Err(vec![0; nbytes]),
        });
        async move {
            match pending {
                None => Ok(Vec::new()),
                Some(Err(bytes)) => Ok(bytes),
                Some(Ok((future, staging, nbytes))) => {
                    future.await.map_err(GpuError::Map)?;
                    let bytes = {
                        let view = staging
                            .get_mapped_range(..)
                            .map_err(|e| GpuError::Map(e.to_string()))?;
                        view[..nbytes.min(view.len())].to_vec()
                    };
                    staging.unmap();
                    Ok(bytes)
                }
            }
        }
    }

    /// Calls `handler` with the reason if the device is lost (driver reset, tab in the
    /// background too long, ...), so the caller can fall back to the CPU engine.
    pub fn on_device_lost(&self, handler: impl Fn(String) + Send + 'static) {
        self.device
            .set_device_lost_callback(move |reason, message| {
                handler(format!("{reason:?}: {message}"))
            });
    }

    /// Frees every storage (a new run starts empty; pipelines stay cached).
    pub fn clear(&mut self) {
        self.storages.clear();
        self.op_log.clear();
    }

    /// Reads a whole storage back (blocking natively).
    fn fetch(&mut self, id: StorageId) -> Result<Vec<u8>, GpuError> {
        let Some(storage) = self.storages.get(&id) else {
            return Ok(Vec::new());
        };
        if let Some(host) = &storage.host {
            return Ok(host.clone());
        }
        let nbytes = storage.nbytes;
        let Some(buffer) = &storage.buffer else {
            return Ok(vec![0; nbytes]);
        };
        let bytes = self.read_buffer(buffer, nbytes)?;
        if let Some(s) = self.storages.get_mut(&id) {
            s.host = Some(bytes.clone());
        }
        Ok(bytes)
    }

    /// A mappable copy of `buffer`: the copy is submitted, not waited for.
    pub fn staged_copy(&self, buffer: &wgpu::Buffer) -> wgpu::Buffer {
        let size = buffer.size();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope read"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        staging
    }

    /// Copies `buffer` into a staging buffer and maps it (blocking natively).
    fn read_buffer(&self, buffer: &wgpu::Buffer, nbytes: usize) -> Result<Vec<u8>, GpuError> {
        let staging = self.staged_copy(buffer);
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        match receiver.try_recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(GpuError::Map(e.to_string())),
            Err(_) => {
                return Err(GpuError::Map(
                    "the mapping did not complete (in the browser, use read_storage_async)"
                        .to_string(),
                ))
            }
        }
        let bytes = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| GpuError::Map(e.to_string()))?;
            view[..nbytes.min(view.len())].to_vec()
        };
        staging.unmap();
        Ok(bytes)
    }

    /// Reads a whole storage without blocking (the browser's way; works natively too).
    pub async fn read_storage_async(&mut self, id: StorageId) -> Result<Vec<u8>, GpuError> {
        let bytes = self.read_later(id).await?;
        if let Some(s) = self.storages.get_mut(&id) {
            s.host = Some(bytes.clone());
        }
        Ok(bytes)
    }

    /// Reads back every storage whose host copy a kernel made stale, without blocking (the
    /// browser's way): afterwards the synchronous reads of the `Engine` trait (`values`,
    /// `read_storage`) answer from host copies, so a web page awaits this between
    /// statements.
    pub async fn sync_host_copies(&mut self) -> Result<(), GpuError> {
        let stale: Vec<StorageId> = self
            .storages
            .iter()
            .filter(|(_, s)| s.host.is_none())
            .map(|(id, _)| *id)
            .collect();
        for id in stale {
            self.read_storage_async(id).await?;
        }
        Ok(())
    }

    /// Runs an op on the CPU engine: the storages of `dst` and `inputs` are read back,
    /// `run` computes on a scratch `CpuEngine` (with its views remapped), and `dst`'s
    /// storage is written back.
    fn on_cpu<T>(
        &mut self,
        op: &str,
        reason: String,
        dst: &Tensor,
        inputs: &[&Tensor],
        run: impl FnOnce(&mut CpuEngine, &dyn Fn(&Tensor) -> Tensor) -> T,
    ) -> T {
        let mut cpu = CpuEngine::new();
        let mut map: BTreeMap<StorageId, StorageId> = BTreeMap::new();
        for t in std::iter::once(dst).chain(inputs.iter().copied()) {
            if map.contains_key(&t.storage) {
                continue;
            }
            let bytes = match self.fetch(t.storage) {
                Ok(b) => b,
                Err(e) => {
                    self.log_cpu(op, format!("{reason}; and reading failed: {e}"));
                    vec![0; self.nbytes(t.storage)]
                }
            };
            map.insert(t.storage, cpu.allocate_with(bytes));
        }
        let remap = |t: &Tensor| -> Tensor {
            Tensor {
                storage: map.get(&t.storage).copied().unwrap_or(t.storage),
                dtype: t.dtype,
                layout: t.layout.clone(),
            }
        };
        let result = run(&mut cpu, &remap);
        let out = remap(dst);
        let bytes = cpu.read_storage(out.storage);
        self.write_bytes(dst.storage, bytes);
        self.log_cpu(op, reason);
        result
    }

    /// A buffer holding the words of `view`'s extent in `view`'s storage, and the view's
    /// element offset within it: used when an input shares its storage with the output, so
    /// that the input is read completely before anything is written (as the CPU engine does).
    fn snapshot(&self, view: &Tensor) -> Option<(wgpu::Buffer, i64)> {
        let buffer = self.bindable(view.storage).ok()?;
        let (lo, hi) = view.layout.extent()?;
        let item = view.dtype.item_size() as u64;
        let lo_word = (lo.max(0) as u64 * item) / 4;
        let hi_word = ((hi.max(0) as u64 * item).div_ceil(4)).min(buffer.size() / 4);
        let words = (hi_word.saturating_sub(lo_word)).max(1);
        let temp = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope snapshot"),
            size: words * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let copy_words = hi_word.saturating_sub(lo_word);
        if copy_words > 0 {
            encoder.copy_buffer_to_buffer(buffer, lo_word * 4, &temp, 0, copy_words * 4);
        }
        self.queue.submit([encoder.finish()]);
        let shift = (lo_word * 4 / item) as i64;
        Some((temp, shift))
    }
}

impl Engine for GpuEngine {
    fn name(&self) -> String {
        format!("gpu ({}, {:?})", self.info.name, self.info.backend)
    }

    fn allocate(&mut self, nbytes: usize) -> StorageId {
        let id = StorageId(self.next_id);
        self.next_id += 1;
        let size = buffer_size(nbytes);
        let storage = if size <= self.limits.max_buffer_size {
            GpuStorage {
                buffer: Some(self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("stridescope storage"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })),
                nbytes,
                host: Some(vec![0; nbytes]),
            }
        } else {
            GpuStorage {
                buffer: None,
                nbytes,
                host: Some(vec![0; nbytes]),
            }
        };
        self.storages.insert(id, storage);
        id
    }

    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId {
        let id = self.allocate(bytes.len());
        self.write_bytes(id, bytes);
        id
    }

    fn free(&mut self, id: StorageId) {
        self.storages.remove(&id);
    }

    fn nbytes(&self, id: StorageId) -> usize {
        self.storages.get(&id).map(|s| s.nbytes).unwrap_or(0)
    }

    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        match self.fetch(id) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.log_cpu("read", e.to_string());
                vec![0; self.nbytes(id)]
            }
        }
    }

    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        if let Some(pieces) = crate::engines::complex_copy_pieces(dst, src) {
            return crate::engines::run_real_pieces(self, pieces);
        }
        if dst.numel() <= 0 {
            return;
        }
        match self.gpu_copy(dst, src) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu("copy");
            }
            Err(reason) => self.on_cpu("copy", reason, dst, &[src], |cpu, remap| {
                cpu.copy(&remap(dst), &remap(src))
            }),
        }
    }

    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        if let Some(pieces) = crate::engines::complex_fill_pieces(dst, value) {
            return crate::engines::run_real_pieces(self, pieces);
        }
        if dst.numel() <= 0 {
            return;
        }
        match self.gpu_fill(dst, value) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu("fill");
            }
            Err(reason) => self.on_cpu("fill", reason, dst, &[], |cpu, remap| {
                cpu.fill(&remap(dst), value)
            }),
        }
    }

    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        let name = format!("unary {}", arith::unary_name(op));
        if dst.numel() <= 0 {
            return;
        }
        match self.gpu_unary(op, dst, src, compute) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu(&name);
            }
            Err(reason) => self.on_cpu(&name, reason, dst, &[src], |cpu, remap| {
                cpu.unary(op, &remap(dst), &remap(src), compute)
            }),
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
        let name = format!("binary {}", arith::binary_name(op));
        if dst.numel() <= 0 {
            return Ok(());
        }
        match self.gpu_binary(op, dst, a, b, compute) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu(&name);
                Ok(())
            }
            Err(reason) => {
                let inputs: Vec<&Tensor> = [a, b]
                    .into_iter()
                    .filter_map(|o| match o {
                        Operand::Tensor(t) => Some(t),
                        Operand::Scalar(_) => None,
                    })
                    .collect();
                let remap_operand = |o: &Operand, remap: &dyn Fn(&Tensor) -> Tensor| match o {
                    Operand::Tensor(t) => Operand::Tensor(remap(t)),
                    Operand::Scalar(s) => Operand::Scalar(*s),
                };
                self.on_cpu(&name, reason, dst, &inputs, |cpu, remap| {
                    cpu.binary(
                        op,
                        &remap(dst),
                        &remap_operand(a, remap),
                        &remap_operand(b, remap),
                        compute,
                    )
                })
            }
        }
    }

    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        let name = format!("reduce {}", arith::reduce_name(op));
        if dst.numel() <= 0 {
            return;
        }
        match self.gpu_reduce(op, dst, src, dims) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu(&name);
            }
            Err(reason) => self.on_cpu(&name, reason, dst, &[src], |cpu, remap| {
                cpu.reduce(op, &remap(dst), &remap(src), dims)
            }),
        }
    }

    /// The GPU kernel adds in float32 whichever `sum` is asked (its result is checked
    /// against the CPU engine's within float32 rounding).
    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        if dst.numel() <= 0 {
            return;
        }
        match self.gpu_matmul(dst, a, b) {
            Ok(()) => {
                self.mark_written(dst.storage);
                self.log_gpu("matmul");
            }
            Err(reason) => self.on_cpu("matmul", reason, dst, &[a, b], |cpu, remap| {
                cpu.matmul(&remap(dst), &remap(a), &remap(b), sum)
            }),
        }
    }

    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        // A complex view's values are its real and imaginary halves in turn.
        if view.dtype.is_complex() {
            return self.values(&view.as_real());
        }
        let bytes = self.read_storage(view.storage);
        let item = view.dtype.item_size();
        view.layout
            .offsets()
            .map(|o| {
                let o = o.max(0) as usize;
                if (o + 1) * item <= bytes.len() {
                    view.dtype.read(&bytes, o)
                } else {
                    Scalar::Int(0)
                }
            })
            .collect()
    }
}
