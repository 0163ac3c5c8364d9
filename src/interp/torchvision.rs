//! `torchvision.io`: `read_image`, `decode_image` (of a file name) and `ImageReadMode`, as
//! torchvision 0.29 runs them. The bytes come from the evaluator's [`ImageSource`] (filled by
//! the shells); decoding and libpng's mode transformations are in [`crate::core::image`].
//!
//! torchvision returns the tensor of libpng's rows, permuted: a `[C, H, W]` view with strides
//! `(1, W·C, C)` of a fresh HWC storage (channels last in memory, so not `is_contiguous()`
//! for C > 1). Its errors keep torchvision's text, the C++ source location included, as a
//! notebook shows them.

use crate::core::image::modes::{torchvision_pixels, ReadMode};
use crate::core::image::{ImageError, ImageSource, Samples};
use crate::core::tensor::layout::Layout;
use crate::core::tensor::{DType, ScriptError, Tensor};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Where torchvision 0.29's C++ raises what a script can meet (its messages start with
/// these).
const READ_FILE_AT: &str =
    "read_file, /__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/cpu/read_write_file.cpp:78";
const DECODE_IMAGE_AT: &str =
    "decode_image, /__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/cpu/decode_image.cpp:67";
const DECODE_PNG_READ_AT: &str =
    "operator(), /__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/cpu/decode_png.cpp:79";
const DECODE_PNG_AT: &str =
    "decode_png, /__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/cpu/decode_png.cpp:62";

/// `ImageReadMode.X.value` and `.name`.
pub(super) fn read_mode_attribute(mode: ReadMode, name: &str) -> R<Value> {
    match name {
        "value" => Ok(Value::Int(mode.value())),
        "name" => Ok(Value::Str(mode.name().to_string())),
        _ => Err(ScriptError::Attribute(format!(
            "'ImageReadMode' object has no attribute '{name}'"
        ))),
    }
}

impl Evaluator {
    /// Where `read_image` finds its files from now on (the CLI's folder lookup, the web
    /// app's fetched and added images). The default source holds no image.
    pub fn set_images(&mut self, source: Box<dyn ImageSource>) {
        self.images = source;
    }

    /// `torchvision.io.NAME` and `ImageReadMode.NAME`.
    pub(super) fn torchvision_io_attribute(&mut self, module: &str, name: &str) -> R<Value> {
        match (module, name) {
            ("torchvision.io", "read_image" | "decode_image") => Ok(Value::Method(
                Box::new(Value::Module(module.into())),
                name.into(),
            )),
            ("torchvision.io", "ImageReadMode") => {
                Ok(Value::Module("torchvision.io.ImageReadMode".into()))
            }
            ("torchvision.io.ImageReadMode", n) => ReadMode::from_name(n)
                .map(Value::ReadMode)
                .ok_or_else(|| ScriptError::Attribute(n.to_string())),
            _ => Err(ScriptError::Attribute(format!(
                "module '{module}' has no attribute '{name}'"
            ))),
        }
    }

    /// `torchvision.io.read_image(path, mode=ImageReadMode.UNCHANGED,
    /// apply_exif_orientation=False)` and `decode_image(input, ...)` of a path.
    pub(super) fn call_torchvision_io(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let first = if name == "read_image" {
            "path"
        } else {
            "input"
        };
        let [path, mode, exif] =
            bind_arguments(name, [first, "mode", "apply_exif_orientation"], pos, kw)?;
        let path = path.ok_or_else(|| {
            ScriptError::Type(format!(
                "{name}() missing 1 required positional argument: '{first}'"
            ))
        })?;
        if matches!(path, Value::Tensor(_)) {
            return Err(ScriptError::NotImplemented(format!(
                "{name} of a tensor of encoded bytes is not supported by Stridescope; pass the image's file name"
            )));
        }
        // read_file(str(path)): any value names a file by its str().
        let file = self.str_of(&path)?;
        let entry = self.images.image(&file).ok_or_else(|| {
            ScriptError::Runtime(format!(
                "{READ_FILE_AT}, [Errno 2] No such file or directory: {}",
                crate::interp::python::repr::py_str_repr(&file)
            ))
        })?;
        let mode = match mode.unwrap_or(Value::ReadMode(ReadMode::Unchanged)) {
            Value::ReadMode(m) => m,
            Value::Str(s) => {
                let upper = s.to_ascii_uppercase();
                ReadMode::from_name(&upper).ok_or_else(|| {
                    ScriptError::Key(crate::interp::python::repr::py_str_repr(&upper))
                })?
            }
            other => {
                return Err(ScriptError::Attribute(format!(
                    "'{}' object has no attribute 'value'",
                    other.type_name()
                )))
            }
        };
        let apply_exif = match exif.unwrap_or(Value::Bool(false)) {
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            Value::None => false,
            other => {
                return Err(ScriptError::Runtime(format!(
                    "image::decode_image() Expected a value of type 'bool' for argument 'apply_exif_orientation' but instead found type '{}'.",
                    other.type_name()
                )))
            }
        };
        let image = entry.map_err(|e| self.image_error(e))?;
        if apply_exif && image.has_exif {
            return Err(ScriptError::NotImplemented(
                "apply_exif_orientation=True on an image with EXIF data is not supported by Stridescope".into(),
            ));
        }
        if matches!(image.samples, Samples::Sixteen(_)) {
            return Err(ScriptError::NotImplemented(
                "a 16-bit PNG decodes to a torch.uint16 tensor, which Stridescope does not model"
                    .into(),
            ));
        }
        let (channels, hwc) = torchvision_pixels(&image, mode)
            .ok_or_else(|| ScriptError::Runtime(format!("{DECODE_PNG_AT}, Internal error.")))?;
        let (h, w, c) = (
            i64::from(image.height),
            i64::from(image.width),
            channels as i64,
        );
        self.check_memory(hwc.len(), name)?;
        let storage = self.allocate_with(hwc, DType::UInt8, name)?;
        let tensor = Tensor {
            storage,
            dtype: DType::UInt8,
            layout: Layout {
                shape: vec![c, h, w],
                strides: vec![1, w * c, c],
                offset: 0,
            },
        };
        Ok(Value::tensor(tensor, name, None))
    }

    /// torchvision's error for a file that did not decode (libpng's reason goes to stderr,
    /// shown as the statement's warning).
    fn image_error(&mut self, error: ImageError) -> ScriptError {
        match error {
            ImageError::Unsupported => ScriptError::Runtime(format!(
                "{DECODE_IMAGE_AT}, Unsupported image file. Only jpeg, png, webp and gif are currently supported. For avif and heic format, please rely on `decode_avif` and `decode_heic` directly."
            )),
            ImageError::NotDecodedHere(format) => ScriptError::NotImplemented(format!(
                "Stridescope decodes {format} files in the web app only (with the browser); here it reads PNG files"
            )),
            ImageError::Truncated => ScriptError::Runtime(format!(
                "{DECODE_PNG_READ_AT}, Out of bound read in decode_png. Probably, the input image is corrupted"
            )),
            ImageError::Corrupt(reason) => {
                self.recorder.warn(format!("libpng error: {reason}"));
                ScriptError::Runtime(format!("{DECODE_PNG_AT}, Internal error."))
            }
            ImageError::TooLarge { width, height } => ScriptError::Runtime(format!(
                "read_image: a {width}x{height} image is too large for Stridescope's memory limit"
            )),
        }
    }
}

/// Binds a Python function's arguments by position and keyword, with Python's messages.
fn bind_arguments<const N: usize>(
    function: &str,
    names: [&str; N],
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<[Option<Value>; N]> {
    if pos.len() > N {
        return Err(ScriptError::Type(format!(
            "{function}() takes from 1 to {N} positional arguments but {} were given",
            pos.len()
        )));
    }
    let mut bound: [Option<Value>; N] = std::array::from_fn(|_| None);
    for (slot, v) in bound.iter_mut().zip(pos) {
        *slot = Some(v);
    }
    for (k, v) in kw {
        let Some(i) = names.iter().position(|n| *n == k) else {
            return Err(ScriptError::Type(format!(
                "{function}() got an unexpected keyword argument '{k}'"
            )));
        };
        if bound[i].is_some() {
            return Err(ScriptError::Type(format!(
                "{function}() got multiple values for argument '{k}'"
            )));
        }
        bound[i] = Some(v);
    }
    Ok(bound)
}
