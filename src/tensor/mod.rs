//! The tensor model: dtypes, storages, strided views and the layout rules of PyTorch.
//! Pure data and arithmetic: this module knows nothing of engines, wgpu or the DOM.

pub mod dtype;
pub mod error;
pub mod layout;
pub mod random;

pub use dtype::{Category, DType, Scalar};
pub use error::ScriptError;
pub use layout::{Layout, MemoryFormat};

/// Identifies one storage (a flat, untyped byte buffer) for the whole run of a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StorageId(pub u32);

impl std::fmt::Display for StorageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// A strided view of a storage: what a PyTorch tensor is, minus autograd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub storage: StorageId,
    pub dtype: DType,
    pub layout: Layout,
}

impl Tensor {
    /// The shape.
    pub fn shape(&self) -> &[i64] {
        &self.layout.shape
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[i64] {
        &self.layout.strides
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    /// Number of elements.
    pub fn numel(&self) -> i64 {
        self.layout.numel()
    }

    /// The same storage and dtype with another layout.
    pub fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage,
            dtype: self.dtype,
            layout,
        }
    }
}
