//! How every link packs its data (share links, lesson links): `base64url(deflate(bytes))`,
//! and its inverse, which trusts nothing (bad encodings, cut data, zip bombs).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// Why packed data did not unpack. The messages are shown to the user as plain text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnpackError {
    /// Not base64url.
    #[error("This link is damaged: its data is not valid base64url. Was it cut or changed when it was copied?")]
    BadEncoding,
    /// The deflate stream ends early or is corrupt.
    #[error("This link is incomplete or damaged: its data does not unpack ({reason}). Was it cut when it was copied?")]
    Truncated {
        /// What the inflater said.
        reason: String,
    },
    /// It inflates to more than the caller's limit.
    #[error("This link unpacks to more than {max} bytes, more than any Stridescope state.")]
    Oversized {
        /// The caller's limit in bytes.
        max: usize,
    },
}

/// `base64url(deflate(bytes))`.
pub fn pack(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(bytes, 9))
}

/// The inverse of [`pack`], stopping at `max` inflated bytes (zip bombs). Tolerates `=`
/// padding and whitespace, which mailers add.
pub fn unpack(data: &str, max: usize) -> Result<Vec<u8>, UnpackError> {
    let data: String = data
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '=')
        .collect();
    let packed = URL_SAFE_NO_PAD
        .decode(data.as_bytes())
        .map_err(|_| UnpackError::BadEncoding)?;
    miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, max).map_err(|e| match e.status {
        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => UnpackError::Oversized { max },
        miniz_oxide::inflate::TINFLStatus::FailedCannotMakeProgress => UnpackError::Truncated {
            reason: "the data ends early".into(),
        },
        other => UnpackError::Truncated {
            reason: format!("{other:?}"),
        },
    })
}
