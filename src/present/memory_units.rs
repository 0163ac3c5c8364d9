//! Byte counts as the memory panels write them: decimal units (`66.06 MB`, 1 MB = 1000 kB, as
//! the course articles' memory trackers print them) or binary units (`63 MiB`, as `nvidia-smi`
//! shows them), and the axis ticks of the memory timeline in the same units.
//!
//! All arithmetic is on integers (rounded half up to two decimals, trailing zeros dropped), so
//! the same count always prints the same text.

/// Which units byte counts are written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ByteUnits {
    /// kB, MB, GB: powers of 1000 (the articles' `66.060 M`).
    #[default]
    Decimal,
    /// KiB, MiB, GiB: powers of 1024 (`nvidia-smi`).
    Binary,
}

impl ByteUnits {
    /// The name kept in the browser's storage (`decimal`, `binary`).
    pub fn key(self) -> &'static str {
        match self {
            ByteUnits::Decimal => "decimal",
            ByteUnits::Binary => "binary",
        }
    }

    /// The units a kept name names (anything else is the default).
    pub fn from_key(key: &str) -> ByteUnits {
        match key {
            "binary" => ByteUnits::Binary,
            _ => ByteUnits::Decimal,
        }
    }

    /// The base of the units (1000 or 1024).
    pub fn base(self) -> u64 {
        match self {
            ByteUnits::Decimal => 1000,
            ByteUnits::Binary => 1024,
        }
    }

    /// The unit names, from bytes up.
    fn names(self) -> [&'static str; 6] {
        match self {
            ByteUnits::Decimal => ["B", "kB", "MB", "GB", "TB", "PB"],
            ByteUnits::Binary => ["B", "KiB", "MiB", "GiB", "TiB", "PiB"],
        }
    }
}

/// `n` bytes in `units`: `512 B`, `51.2 kB`, `66.06 MB`, `50 KiB`, `63 MiB` (at most two
/// decimals, rounded half up, trailing zeros dropped; a value that rounds up to the next unit
/// is written in it: `1 MB`, not `1000 kB`).
pub fn format_bytes(n: u64, units: ByteUnits) -> String {
    let base = units.base() as u128;
    let names = units.names();
    let n = n as u128;
    let mut unit = 0usize;
    let mut scale: u128 = 1;
    while unit + 1 < names.len() && n >= scale * base {
        unit += 1;
        scale *= base;
    }
    if unit == 0 {
        return format!("{n} B");
    }
    let mut hundredths = (n * 100 + scale / 2) / scale;
    if hundredths >= base * 100 && unit + 1 < names.len() {
        unit += 1;
        scale *= base;
        hundredths = (n * 100 + scale / 2) / scale;
    }
    format!("{} {}", decimal_text(hundredths), names[unit])
}

/// `hundredths / 100` with at most two decimals and no trailing zeros (`6606` → `66.06`,
/// `5120` → `51.2`, `6300` → `63`).
fn decimal_text(hundredths: u128) -> String {
    let whole = hundredths / 100;
    let frac = hundredths % 100;
    if frac == 0 {
        format!("{whole}")
    } else if frac.is_multiple_of(10) {
        format!("{whole}.{}", frac / 10)
    } else {
        format!("{whole}.{frac:02}")
    }
}

/// A count with thousands separators, as model summaries print parameter counts
/// (`1,234,567`).
pub fn count_text(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Round tick values for an axis from 0 to at least `max` bytes, at most `most` ticks above 0:
/// multiples of 1, 2 or 5 times a power of ten of a unit of `units` (`[50 kB, 100 kB, 150 kB,
/// 200 kB, 250 kB]` for a 216,840-byte peak). The last tick is the axis's top (≥ `max`); no
/// ticks for `max == 0`.
pub fn axis_ticks(max: u64, units: ByteUnits, most: usize) -> Vec<u64> {
    if max == 0 || most == 0 {
        return Vec::new();
    }
    let base = units.base();
    // The unit of `max` (the largest power of the base not above it).
    let mut unit: u64 = 1;
    while let Some(next) = unit.checked_mul(base) {
        if next > max {
            break;
        }
        unit = next;
    }
    let step = [1u64, 2, 5, 10, 20, 50, 100, 200, 500]
        .iter()
        .filter_map(|&m| unit.checked_mul(m))
        .find(|&s| max.div_ceil(s) as usize <= most)
        .unwrap_or_else(|| max.div_ceil(most as u64));
    (1..=max.div_ceil(step))
        .map(|k| k.saturating_mul(step))
        .collect()
}

/// Bytes as a CUDA caching allocator block counts them for `torch.cuda.memory_allocated()`:
/// rounded up to a multiple of 512 (zero stays zero). The rule, not a measurement.
pub fn cuda_block_bytes(n: u64) -> u64 {
    n.div_ceil(512) * 512
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_bytes_read_as_the_course_articles_print_them() {
        let d = ByteUnits::Decimal;
        assert_eq!(format_bytes(0, d), "0 B");
        assert_eq!(format_bytes(999, d), "999 B");
        assert_eq!(format_bytes(1000, d), "1 kB");
        assert_eq!(format_bytes(51_200, d), "51.2 kB");
        assert_eq!(format_bytes(168_200, d), "168.2 kB");
        assert_eq!(format_bytes(216_840, d), "216.84 kB");
        // 7 × Parameter (512, 512, 3, 3) float32.
        assert_eq!(format_bytes(7 * 512 * 512 * 9 * 4, d), "66.06 MB");
        // Rounded half up, never "1000 kB".
        assert_eq!(format_bytes(999_995, d), "1 MB");
        assert_eq!(format_bytes(999_994, d), "999.99 kB");
        assert_eq!(format_bytes(1_234_567_890, d), "1.23 GB");
    }

    #[test]
    fn binary_bytes_read_as_nvidia_smi_counts_them() {
        let b = ByteUnits::Binary;
        assert_eq!(format_bytes(1023, b), "1023 B");
        assert_eq!(format_bytes(1024, b), "1 KiB");
        assert_eq!(format_bytes(51_200, b), "50 KiB");
        assert_eq!(format_bytes(7 * 512 * 512 * 9 * 4, b), "63 MiB");
        assert_eq!(format_bytes(1536, b), "1.5 KiB");
        assert_eq!(format_bytes(u64::MAX, b), "16384 PiB");
    }

    #[test]
    fn units_are_kept_by_name() {
        for u in [ByteUnits::Decimal, ByteUnits::Binary] {
            assert_eq!(ByteUnits::from_key(u.key()), u);
        }
        assert_eq!(ByteUnits::from_key("<script>"), ByteUnits::Decimal);
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count_text(0), "0");
        assert_eq!(count_text(999), "999");
        assert_eq!(count_text(1000), "1,000");
        assert_eq!(count_text(22_210), "22,210");
        assert_eq!(count_text(1_234_567), "1,234,567");
    }

    #[test]
    fn axis_ticks_are_round_and_reach_the_maximum() {
        let d = ByteUnits::Decimal;
        assert_eq!(
            axis_ticks(216_840, d, 4),
            vec![100_000, 200_000, 300_000],
            "a 216.84 kB peak"
        );
        assert_eq!(
            axis_ticks(168_200, d, 4),
            vec![50_000, 100_000, 150_000, 200_000]
        );
        assert_eq!(axis_ticks(0, d, 4), Vec::<u64>::new());
        assert_eq!(axis_ticks(7, d, 4), vec![2, 4, 6, 8]);
        let b = ByteUnits::Binary;
        assert_eq!(axis_ticks(3 << 20, b, 4), vec![1 << 20, 2 << 20, 3 << 20]);
        for max in [1u64, 3, 999, 1000, 1001, 123_456, 9_999_999, u64::MAX / 3] {
            for units in [d, b] {
                let t = axis_ticks(max, units, 4);
                assert!(!t.is_empty() && t.len() <= 4, "{max}: {t:?}");
                assert!(*t.last().unwrap() >= max, "{max}: {t:?}");
                assert!(t.windows(2).all(|w| w[0] < w[1]), "{max}: {t:?}");
            }
        }
    }

    #[test]
    fn cuda_blocks_round_up_to_512_bytes() {
        assert_eq!(cuda_block_bytes(0), 0);
        assert_eq!(cuda_block_bytes(1), 512);
        assert_eq!(cuda_block_bytes(512), 512);
        assert_eq!(cuda_block_bytes(513), 1024);
        assert_eq!(cuda_block_bytes(51_200), 51_200);
        assert_eq!(cuda_block_bytes(4), 512);
    }
}
