//! The tensor model: dtypes, storages, strided views and the layout rules of PyTorch.
//! Pure data and arithmetic: this module knows nothing of engines, wgpu or the DOM.

pub mod dtype;
pub mod error;
pub mod layout;
pub mod random;
pub mod stable_sort;

pub use dtype::{Category, DType, Scalar};
pub use error::ScriptError;
pub use layout::{Layout, MemoryFormat};

/// Identifies one storage (a flat, untyped byte buffer) for the whole run of a script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StorageId(pub u32);

impl std::fmt::Display for StorageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s{}", self.0)
    }
}

impl StorageId {
    /// The id a trace or a page attribute names (`s3`), or None for anything else.
    pub fn parse(name: &str) -> Option<StorageId> {
        let digits = name.strip_prefix('s')?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(StorageId)
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

    /// `torch.view_as_real`'s layout of a complex tensor: the float halves, with one more
    /// dim of size 2 (stride 1), every other stride and the offset doubled. Other tensors
    /// are returned unchanged.
    pub fn as_real(&self) -> Tensor {
        if !self.dtype.is_complex() {
            return self.clone();
        }
        let mut shape = self.layout.shape.clone();
        shape.push(2);
        let mut strides: Vec<i64> = self.layout.strides.iter().map(|s| s * 2).collect();
        strides.push(1);
        Tensor {
            storage: self.storage,
            dtype: self.dtype.real_part(),
            layout: Layout {
                shape,
                strides,
                offset: self.layout.offset * 2,
            },
        }
    }

    /// The real (`part` 0) or imaginary (`part` 1) halves of a complex tensor, as a strided
    /// float view of its shape (`x.real` / `x.imag`).
    pub fn complex_part(&self, part: i64) -> Tensor {
        let real = self.as_real();
        let n = self.layout.shape.len();
        Tensor {
            storage: self.storage,
            dtype: real.dtype,
            layout: Layout {
                shape: real.layout.shape[..n].to_vec(),
                strides: real.layout.strides[..n].to_vec(),
                offset: real.layout.offset + part,
            },
        }
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
