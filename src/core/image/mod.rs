//! Images as a script reads them (pure: no file system, no DOM). The shells fill an
//! [`ImageSource`] with images by name (the CLI from files beside the script, the web app
//! from `samples/` and the user's own files); `torchvision.io.read_image` in the evaluator
//! reads it. PNG files are decoded here ([`png`]); other formats are decoded by the browser
//! and arrive as RGB(A) pixels ([`DecodedImage::from_rgba`]). [`modes`] turns a decoded image
//! into the bytes of torchvision's tensor, libpng's transformations included.

pub mod modes;
pub mod png;

use std::collections::BTreeMap;
use std::rc::Rc;

/// How a decoded image's samples are laid out per pixel (PNG's colour types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorType {
    /// One gray sample.
    Gray,
    /// Gray and alpha.
    GrayAlpha,
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
    /// One palette index (see [`DecodedImage::palette`]).
    Palette,
}

impl ColorType {
    /// Samples per pixel.
    pub fn channels(self) -> usize {
        match self {
            ColorType::Gray | ColorType::Palette => 1,
            ColorType::GrayAlpha => 2,
            ColorType::Rgb => 3,
            ColorType::Rgba => 4,
        }
    }
}

/// The samples of a decoded image, row-major with interleaved channels (HWC).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Samples {
    /// 8 bits or fewer per sample: gray of 1, 2 or 4 bits is scaled to 0-255 (as libpng's
    /// `png_set_expand_gray_1_2_4_to_8`); palette indices are kept as indices.
    Eight(Vec<u8>),
    /// 16 bits per sample.
    Sixteen(Vec<u16>),
}

/// A decoded image and what of its file torchvision's conversions depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedImage {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The colour type of the samples.
    pub color: ColorType,
    /// Bits per sample in the file (1, 2, 4, 8 or 16).
    pub bit_depth: u8,
    /// The pixels.
    pub samples: Samples,
    /// The palette of a palette image (`PLTE`), red, green, blue.
    pub palette: Vec<[u8; 3]>,
    /// The alpha of the first palette entries (`tRNS`; the others are opaque).
    pub palette_alpha: Vec<u8>,
    /// The file's gamma times 100,000 (`gAMA`, or 45,455 for `sRGB`), if it says one.
    pub gamma: Option<u32>,
    /// Whether the file has an `eXIf` chunk.
    pub has_exif: bool,
}

impl DecodedImage {
    /// An image the browser decoded (JPEG, GIF, WebP, ...): `rgba` holds 4 bytes a pixel.
    /// torchvision gives such files 3 channels (RGB), or 4 where some pixel is not opaque
    /// (WebP and GIF with transparency).
    pub fn from_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<DecodedImage, ImageError> {
        let pixels = width as usize * height as usize;
        if pixels == 0 || rgba.len() != pixels * 4 {
            return Err(ImageError::Corrupt(format!(
                "{} bytes of pixels for a {width}x{height} image",
                rgba.len()
            )));
        }
        let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
        let (color, samples) = if opaque {
            let rgb = rgba
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            (ColorType::Rgb, rgb)
        } else {
            (ColorType::Rgba, rgba.to_vec())
        };
        Ok(DecodedImage {
            width,
            height,
            color,
            bit_depth: 8,
            samples: Samples::Eight(samples),
            palette: Vec::new(),
            palette_alpha: Vec::new(),
            gamma: None,
            has_exif: false,
        })
    }
}

/// Why an image file could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// Not a PNG, JPEG, GIF or WebP file.
    Unsupported,
    /// A JPEG, GIF or WebP file where only PNG can be decoded (outside the browser).
    NotDecodedHere(&'static str),
    /// The file ends inside a chunk or before its image data do.
    Truncated,
    /// The file is damaged: libpng's reason (`IHDR: CRC error`, `IDAT: incorrect data check`).
    Corrupt(String),
    /// Larger than [`png::MAX_DECODED_BYTES`] once decoded.
    TooLarge {
        /// Pixels per row.
        width: u32,
        /// Rows.
        height: u32,
    },
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageError::Unsupported => write!(f, "not a PNG, JPEG, GIF or WebP file"),
            ImageError::NotDecodedHere(format) => {
                write!(
                    f,
                    "a {format} file (only PNG is decoded outside the browser)"
                )
            }
            ImageError::Truncated => write!(f, "the file is truncated"),
            ImageError::Corrupt(reason) => write!(f, "the file is damaged ({reason})"),
            ImageError::TooLarge { width, height } => write!(
                f,
                "a {width}x{height} image is larger than {} MiB once decoded",
                png::MAX_DECODED_BYTES >> 20
            ),
        }
    }
}

/// The format of an image file by its first bytes, as torchvision's `decode_image` tells
/// them apart: `png`, `jpeg`, `gif`, `webp`, or `None`.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&png::SIGNATURE) {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// Decodes an image file: PNG here; JPEG, GIF and WebP are [`ImageError::NotDecodedHere`]
/// (the web app decodes them with the browser).
pub fn decode(bytes: &[u8]) -> Result<DecodedImage, ImageError> {
    match sniff(bytes) {
        Some("png") => png::decode_png(bytes),
        Some("jpeg") => Err(ImageError::NotDecodedHere("JPEG")),
        Some("gif") => Err(ImageError::NotDecodedHere("GIF")),
        Some(_) => Err(ImageError::NotDecodedHere("WebP")),
        None => Err(ImageError::Unsupported),
    }
}

/// One image file as the source has it: decoded, or why it could not be.
pub type ImageEntry = Result<Rc<DecodedImage>, ImageError>;

/// Where a script's images come from: `read_image(NAME)` asks for NAME as the script wrote
/// it. `None` means there is no such file.
pub trait ImageSource {
    /// The image file named `name`.
    fn image(&mut self, name: &str) -> Option<ImageEntry>;
}

/// Images held in memory by name (what the web app fills before a run, and the default: no
/// images).
#[derive(Clone, Debug, Default)]
pub struct ImageLibrary {
    images: BTreeMap<String, ImageEntry>,
}

impl ImageLibrary {
    /// Adds (or replaces) the image named `name`.
    pub fn add(&mut self, name: &str, entry: ImageEntry) {
        self.images.insert(name.to_string(), entry);
    }

    /// Whether an image (or a failed decode) is held under `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.images.contains_key(name)
    }

    /// The names held, in order, each with its decoded size or its error.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &ImageEntry)> {
        self.images.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl ImageSource for ImageLibrary {
    fn image(&mut self, name: &str) -> Option<ImageEntry> {
        self.images.get(name).cloned()
    }
}

/// Whether `name` is a plain file name that may be fetched from the app's `samples/` folder
/// (no folders, no `..`, no URL syntax).
pub fn is_sample_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_file_names_are_fetched_from_the_samples() {
        assert!(is_sample_name("astronaut.png"));
        assert!(is_sample_name("my_photo-2.jpeg"));
        for name in [
            "",
            "../secret.png",
            "a/b.png",
            ".hidden.png",
            "http://x/y.png",
            "a b.png",
        ] {
            assert!(!is_sample_name(name), "{name}");
        }
    }

    #[test]
    fn browser_pixels_keep_alpha_only_when_some_pixel_is_not_opaque() {
        let opaque = DecodedImage::from_rgba(2, 1, &[1, 2, 3, 255, 4, 5, 6, 255]).expect("ok");
        assert_eq!(opaque.color, ColorType::Rgb);
        assert_eq!(opaque.samples, Samples::Eight(vec![1, 2, 3, 4, 5, 6]));
        let clear = DecodedImage::from_rgba(1, 1, &[1, 2, 3, 0]).expect("ok");
        assert_eq!(clear.color, ColorType::Rgba);
        assert!(DecodedImage::from_rgba(2, 2, &[0; 4]).is_err());
        assert!(DecodedImage::from_rgba(0, 5, &[]).is_err());
    }

    #[test]
    fn formats_are_told_apart_by_their_first_bytes() {
        assert_eq!(sniff(&png::SIGNATURE), Some("png"));
        assert_eq!(sniff(&[0xff, 0xd8, 0xff, 0xe0]), Some("jpeg"));
        assert_eq!(sniff(b"GIF89a..."), Some("gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("webp"));
        assert_eq!(sniff(b"hello"), None);
        assert_eq!(decode(b"hello"), Err(ImageError::Unsupported));
        assert_eq!(
            decode(&[0xff, 0xd8, 0xff, 0xe0]),
            Err(ImageError::NotDecodedHere("JPEG"))
        );
    }
}
