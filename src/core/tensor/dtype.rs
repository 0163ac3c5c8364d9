//! Element types, their sizes, their names in every spelling PyTorch uses, and the
//! conversions between them (exactly as PyTorch's CPU kernels convert).

use half::{bf16, f16};
use serde::Serialize;

/// A PyTorch scalar type. Only the ones Stridescope teaches with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    /// PyTorch's default dtype.
    #[default]
    Float32,
    Float64,
    /// Two float32 halves (real, imaginary): `torch.complex64` / `torch.cfloat`.
    Complex64,
    /// Two float64 halves (real, imaginary): `torch.complex128` / `torch.cdouble`.
    Complex128,
}

/// The three promotion categories of PyTorch's type-promotion rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
    Complex,
}

impl std::fmt::Display for DType {
    /// The trace's name (`float32`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl DType {
    /// Every real dtype (the ones the engines compute in), in a stable order; the complex
    /// dtypes are [`DType::COMPLEX`].
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];

    /// The complex dtypes: their bytes are moved as their float halves (`Tensor::as_real`).
    pub const COMPLEX: [DType; 2] = [DType::Complex64, DType::Complex128];

    /// Bytes per element (`element_size()`).
    pub fn item_size(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// The name used in traces: `int64`, `float32`, ...
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Parses a trace name or a `torch.` attribute name (`float`, `half`, `long`, ... included).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "uint8" => DType::UInt8,
            "int8" => DType::Int8,
            "int16" | "short" => DType::Int16,
            "int32" | "int" => DType::Int32,
            "int64" | "long" => DType::Int64,
            "float16" | "half" => DType::Float16,
            "bfloat16" => DType::BFloat16,
            "float32" | "float" => DType::Float32,
            "float64" | "double" => DType::Float64,
            "complex64" | "cfloat" => DType::Complex64,
            "complex128" | "cdouble" => DType::Complex128,
            _ => return None,
        })
    }

    /// Python's `repr(dtype)`: `torch.int64`.
    pub fn torch_repr(self) -> String {
        format!("torch.{}", self.name())
    }

    /// c10's `ScalarType` name, as used in error messages (`Long`, `Float`, `Byte`, ...).
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::UInt8 => "Byte",
            DType::Int8 => "Char",
            DType::Int16 => "Short",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float16 => "Half",
            DType::BFloat16 => "BFloat16",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
            DType::Complex64 => "ComplexFloat",
            DType::Complex128 => "ComplexDouble",
        }
    }

    /// The legacy tensor type name, as `Tensor.type()` returns it: `torch.LongTensor`.
    pub fn legacy_type_name(self) -> String {
        format!("torch.{}Tensor", self.scalar_type_name())
    }

    /// The C++ type name c10 uses in `value cannot be converted to type ... without
    /// overflow` when a Python number is converted to an element (`Scalar::to<T>()`).
    pub fn c10_scalar_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8_t",
            DType::Int8 => "int8_t",
            DType::Int16 => "int16_t",
            DType::Int32 => "int",
            DType::Int64 => "int64_t",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Complex64 => "c10::complex<float>",
            DType::Complex128 => "c10::complex<double>",
        }
    }

    /// The lowest and highest finite values of the dtype, as doubles.
    pub fn finite_range(self) -> (f64, f64) {
        match self {
            DType::Bool => (0.0, 1.0),
            DType::UInt8 => (0.0, 255.0),
            DType::Int8 => (-128.0, 127.0),
            DType::Int16 => (-32768.0, 32767.0),
            DType::Int32 => (-2_147_483_648.0, 2_147_483_647.0),
            DType::Int64 => (-9.223_372_036_854_776e18, 9.223_372_036_854_776e18),
            DType::Float16 => (-65504.0, 65504.0),
            DType::BFloat16 => (-bf16::MAX.to_f64(), bf16::MAX.to_f64()),
            DType::Float32 => (-f64::from(f32::MAX), f64::from(f32::MAX)),
            DType::Float64 | DType::Complex128 => (f64::MIN, f64::MAX),
            DType::Complex64 => (-f64::from(f32::MAX), f64::from(f32::MAX)),
        }
    }

    /// c10's `overflows<T>(value)`: whether converting a Python number to this dtype with
    /// `checked_convert` fails. Bools never overflow; infinities fit floating dtypes; NaN
    /// overflows integers; negative integers may wrap into unsigned dtypes as long as their
    /// magnitude fits (`-1` becomes 255 in `uint8`).
    pub fn overflows(self, value: Scalar) -> bool {
        let (lowest, max) = self.finite_range();
        match value {
            Scalar::Bool(_) => false,
            _ if self == DType::Bool => false,
            Scalar::Int(i) => match self {
                DType::Int64 => false,
                DType::UInt8 => i > 255 || (i < 0 && i.unsigned_abs() > 255),
                _ => (i as f64) < lowest || (i as f64) > max,
            },
            Scalar::Float(f) => {
                if f.is_infinite() && (self.is_floating() || self.is_complex()) {
                    return false;
                }
                if f.is_nan() {
                    return !(self.is_floating() || self.is_complex());
                }
                f < lowest || f > max
            }
        }
    }

    /// `checked_convert`: the number, or c10's overflow message for this dtype.
    pub fn checked_number(self, value: Scalar) -> Result<Scalar, String> {
        if self.overflows(value) {
            return Err(format!(
                "value cannot be converted to type {} without overflow",
                self.c10_scalar_name()
            ));
        }
        Ok(value)
    }

    /// The tensor type string ATen's `toString()` prints in errors such as `expand`'s:
    /// the legacy class (`torch.LongTensor`), or `CPUBFloat16Type` / `CPUBoolType` for the
    /// dtypes that have none.
    pub fn aten_type_string(self) -> String {
        match self {
            DType::BFloat16 | DType::Bool => format!("CPU{}Type", self.scalar_type_name()),
            other => other.legacy_type_name(),
        }
    }

    /// The C++ type name used in `"addmm_impl_cpu_" not implemented for 'Bool'` style errors
    /// and in `expected m1 and m2 to have the same dtype, but got: long int != float`.
    pub fn cpp_type_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "unsigned char",
            DType::Int8 => "signed char",
            DType::Int16 => "short int",
            DType::Int32 => "int",
            DType::Int64 => "long int",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Complex64 => "c10::complex<float>",
            DType::Complex128 => "c10::complex<double>",
        }
    }

    /// The promotion category.
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => {
                Category::Integral
            }
            DType::Complex64 | DType::Complex128 => Category::Complex,
            _ => Category::Floating,
        }
    }

    /// True for complex64 and complex128 (`torch.is_complex`).
    pub fn is_complex(self) -> bool {
        self.category() == Category::Complex
    }

    /// The dtype of one half of a complex element (`float32` for `complex64`); other dtypes
    /// are their own.
    pub fn real_part(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            other => other,
        }
    }

    /// The complex dtype whose halves are this floating dtype (`complex64` for `float32`,
    /// `complex128` for `float64`); `None` for the others.
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::Float32 => Some(DType::Complex64),
            DType::Float64 => Some(DType::Complex128),
            DType::Complex64 | DType::Complex128 => Some(self),
            _ => None,
        }
    }

    /// True for float16, bfloat16, float32 and float64.
    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }

    /// True for the integer types (not bool).
    pub fn is_integral(self) -> bool {
        self.category() == Category::Integral
    }

    /// `torch.promote_types(a, b)`.
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        if a == b {
            return a;
        }
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        match (lo, hi) {
            (Bool, x) => x,
            // uint8 with a signed integer needs a wider signed type.
            (UInt8, Int8) => Int16,
            (UInt8, x) => x,
            (Int8 | Int16 | Int32 | Int64, x) => x,
            (Float16, BFloat16) => Float32,
            (Float16 | BFloat16, x) => x,
            (Float32, x) => x,
            (Float64, Complex64) => Complex128,
            (Float64, x) => x,
            (Complex64, x) => x,
            (Complex128, _) => Complex128,
        }
    }

    /// Decodes element `index` of a little-endian byte buffer.
    pub fn read(self, bytes: &[u8], index: usize) -> Scalar {
        let size = self.item_size();
        let at = index * size;
        let b = &bytes[at..at + size];
        match self {
            DType::Bool => Scalar::Bool(b[0] != 0),
            DType::UInt8 => Scalar::Int(i64::from(b[0])),
            DType::Int8 => Scalar::Int(i64::from(b[0] as i8)),
            DType::Int16 => Scalar::Int(i64::from(i16::from_le_bytes([b[0], b[1]]))),
            DType::Int32 => Scalar::Int(i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            DType::Int64 => Scalar::Int(i64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
            DType::Float16 => Scalar::Float(f16::from_le_bytes([b[0], b[1]]).to_f64()),
            DType::BFloat16 => Scalar::Float(bf16::from_le_bytes([b[0], b[1]]).to_f64()),
            DType::Float32 => {
                Scalar::Float(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            }
            DType::Float64 => Scalar::Float(f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
            // The real half: complex values are handled as their `view_as_real`.
            DType::Complex64 => DType::Float32.read(b, 0),
            DType::Complex128 => DType::Float64.read(b, 0),
        }
    }

    /// Encodes `value`, converted to this dtype as PyTorch converts, into element `index`.
    pub fn write(self, bytes: &mut [u8], index: usize, value: Scalar) {
        let size = self.item_size();
        let at = index * size;
        let out = &mut bytes[at..at + size];
        match self {
            DType::Bool => out[0] = u8::from(value.to_bool()),
            DType::UInt8 => out[0] = value.to_wrapped_int() as u8,
            DType::Int8 => out[0] = value.to_wrapped_int() as i8 as u8,
            DType::Int16 => out.copy_from_slice(&(value.to_wrapped_int() as i16).to_le_bytes()),
            DType::Int32 => out.copy_from_slice(&(value.to_wrapped_int() as i32).to_le_bytes()),
            DType::Int64 => out.copy_from_slice(&value.to_wrapped_int().to_le_bytes()),
            DType::Float16 => out.copy_from_slice(&f16::from_f32(value.to_f32()).to_le_bytes()),
            DType::BFloat16 => out.copy_from_slice(&bf16::from_f32(value.to_f32()).to_le_bytes()),
            DType::Float32 => out.copy_from_slice(&value.to_f32().to_le_bytes()),
            DType::Float64 => out.copy_from_slice(&value.to_f64().to_le_bytes()),
            // A real number becomes `value + 0j`.
            DType::Complex64 => {
                out.fill(0);
                DType::Float32.write(out, 0, value);
            }
            DType::Complex128 => {
                out.fill(0);
                DType::Float64.write(out, 0, value);
            }
        }
    }

    /// Rounds a value to what this dtype can hold (`Scalar` in, the stored value out).
    pub fn round(self, value: Scalar) -> Scalar {
        let mut buf = [0u8; 16];
        self.write(&mut buf, 0, value);
        self.read(&buf, 0)
    }
}

/// One element's value while it is being computed: the widest form of its category.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// Truthiness (`x != 0`).
    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        }
    }

    /// As a 64-bit integer; floats truncate toward zero, as C++'s `static_cast` does on x86
    /// (out-of-range floats give `i64::MIN`, NaN too).
    pub fn to_wrapped_int(self) -> i64 {
        match self {
            Scalar::Bool(b) => i64::from(b),
            Scalar::Int(i) => i,
            Scalar::Float(f) => {
                if f.is_finite() && f > -9.223_372_036_854_776e18 && f < 9.223_372_036_854_776e18 {
                    f.trunc() as i64
                } else {
                    i64::MIN
                }
            }
        }
    }

    /// As a double.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// As a float, rounded once from the exact value (integers) or from the double.
    pub fn to_f32(self) -> f32 {
        match self {
            Scalar::Bool(b) => f32::from(u8::from(b)),
            Scalar::Int(i) => i as f32,
            Scalar::Float(f) => f as f32,
        }
    }

    /// The category of the value itself (a Python `True`, `3`, or `2.5`).
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Integral,
            Scalar::Float(_) => Category::Floating,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_torch_promote_types() {
        assert_eq!(DType::promote(DType::UInt8, DType::Int8), DType::Int16);
        assert_eq!(DType::promote(DType::Int8, DType::UInt8), DType::Int16);
        assert_eq!(
            DType::promote(DType::Float16, DType::BFloat16),
            DType::Float32
        );
        assert_eq!(DType::promote(DType::Bool, DType::Int32), DType::Int32);
        assert_eq!(DType::promote(DType::Int64, DType::Float16), DType::Float16);
        assert_eq!(DType::promote(DType::Float64, DType::Int8), DType::Float64);
        assert_eq!(
            DType::promote(DType::Float64, DType::Complex64),
            DType::Complex128
        );
        assert_eq!(
            DType::promote(DType::Complex64, DType::Float16),
            DType::Complex64
        );
        assert_eq!(
            DType::promote(DType::Int64, DType::Complex128),
            DType::Complex128
        );
        assert_eq!(
            DType::promote(DType::BFloat16, DType::Complex64),
            DType::Complex64
        );
    }

    #[test]
    fn conversions_round_like_pytorch() {
        assert_eq!(DType::UInt8.round(Scalar::Int(-1)), Scalar::Int(255));
        assert_eq!(DType::Int8.round(Scalar::Int(200)), Scalar::Int(-56));
        assert_eq!(DType::Int32.round(Scalar::Float(-2.7)), Scalar::Int(-2));
        assert_eq!(DType::Bool.round(Scalar::Float(0.5)), Scalar::Bool(true));
        assert_eq!(
            DType::Float16.round(Scalar::Float(0.1)),
            Scalar::Float(0.0999755859375)
        );
        assert_eq!(
            DType::BFloat16.round(Scalar::Int(257)),
            Scalar::Float(256.0)
        );
    }
}
