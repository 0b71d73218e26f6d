//! Resource quantities (apimachinery's `pkg/api/resource/quantity.go`):
//! `ParseQuantity`'s grammar and errors, the rounding of `Value` and
//! `MilliValue`, and `String`'s canonical form, which error messages print.

use std::cmp::Ordering;
use std::fmt;

/// A parsed quantity: its value in billionths (nano-units, rounded up as
/// `inf.Dec` values are when scaled), and the suffix family it was written in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Quantity {
    nanos: i128,
    format: Format,
}

/// `resource.Format`: the family of the suffix, kept for `String`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `Ki`, `Mi`, … (powers of 1024).
    BinarySI,
    /// `m`, `k`, `M`, … or none.
    DecimalSI,
    /// `1e3`, `12E6`.
    DecimalExponent,
}

/// `splitREString` of quantity.go, as `ErrFormatWrong` quotes it.
const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// `ParseQuantity`'s errors.
pub fn format_wrong() -> String {
    format!("quantities must match the regular expression '{SPLIT_RE}'")
}
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

const NANO: i128 = 1_000_000_000;

impl Quantity {
    /// `ParseQuantity`.
    pub fn parse(text: &str) -> Result<Quantity, String> {
        if text.is_empty() {
            return Err(format_wrong());
        }
        let (negative, rest) = match text.as_bytes()[0] {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(end);
        let suffix_ok = suffix
            .chars()
            .enumerate()
            .all(|(i, c)| "eEinumkKMGTP".contains(c) || c.is_ascii_digit() || ((c == '-' || c == '+') && i > 0));
        if number.is_empty() || !suffix_ok {
            return Err(format_wrong());
        }
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if fraction.contains('.') || (whole.is_empty() && fraction.is_empty()) {
            return Err(ERR_NUMERIC.into());
        }
        let (base, exponent, format) = match suffix {
            "" => (10, 0, Format::DecimalSI),
            "n" => (10, -9, Format::DecimalSI),
            "u" => (10, -6, Format::DecimalSI),
            "m" => (10, -3, Format::DecimalSI),
            "k" => (10, 3, Format::DecimalSI),
            "M" => (10, 6, Format::DecimalSI),
            "G" => (10, 9, Format::DecimalSI),
            "T" => (10, 12, Format::DecimalSI),
            "P" => (10, 15, Format::DecimalSI),
            "E" => (10, 18, Format::DecimalSI),
            "Ki" => (2, 10, Format::BinarySI),
            "Mi" => (2, 20, Format::BinarySI),
            "Gi" => (2, 30, Format::BinarySI),
            "Ti" => (2, 40, Format::BinarySI),
            "Pi" => (2, 50, Format::BinarySI),
            "Ei" => (2, 60, Format::BinarySI),
            s if s.starts_with(['e', 'E']) => match s[1..].parse::<i32>() {
                Ok(e) if (-30..=30).contains(&e) => (10, e, Format::DecimalExponent),
                _ => return Err(ERR_SUFFIX.into()),
            },
            _ => return Err(ERR_SUFFIX.into()),
        };
        // The digits as an integer with `scale` decimals, then times the suffix.
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        if digits.len() > 30 {
            return Err(ERR_NUMERIC.into());
        }
        let mantissa: i128 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| ERR_NUMERIC.to_string())? };
        let scale = fraction.len() as i32;
        let nanos = if base == 2 {
            scaled(mantissa * (1i128 << exponent), 9 - scale)
        } else {
            scaled(mantissa, 9 + exponent - scale)
        };
        let nanos = nanos.ok_or_else(|| ERR_NUMERIC.to_string())?;
        Ok(Quantity { nanos: if negative { -nanos } else { nanos }, format })
    }

    /// `Value`: the integer value, rounded up.
    pub fn value(&self) -> i128 {
        div_ceil(self.nanos, NANO)
    }

    /// `MilliValue`: thousandths, rounded up.
    pub fn milli_value(&self) -> i128 {
        div_ceil(self.nanos, 1_000_000)
    }

    pub fn is_negative(&self) -> bool {
        self.nanos < 0
    }
}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.nanos.cmp(&other.nanos))
    }
}

/// `m × 10^e`, rounded up when `e` is negative; `None` when too large.
fn scaled(m: i128, e: i32) -> Option<i128> {
    if e >= 0 {
        10i128.checked_pow(e as u32).and_then(|p| m.checked_mul(p))
    } else {
        let p = 10i128.checked_pow((-e) as u32)?;
        Some(div_ceil(m, p))
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && a > 0 { q + 1 } else { q }
}

/// `String` (`CanonicalizeBytes`): `0.5` is `500m`, `1000m` is `1`, `1024Mi`
/// is `1Gi`; a binary quantity under 1024 or not whole is printed decimally.
impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nanos == 0 {
            return f.write_str("0");
        }
        let sign = if self.nanos < 0 { "-" } else { "" };
        let abs = self.nanos.abs();
        let whole = abs % NANO == 0;
        if self.format == Format::BinarySI && whole && abs >= 1024 * NANO {
            let (mut n, mut e) = (abs / NANO, 0);
            while n % 1024 == 0 && e < 6 {
                n /= 1024;
                e += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][e];
            return write!(f, "{sign}{n}{suffix}");
        }
        // AsCanonicalBytes: the largest exponent, a multiple of 3, with a whole mantissa.
        let (mut n, mut e) = (abs, -9i32);
        while n % 1000 == 0 && e < 18 {
            n /= 1000;
            e += 3;
        }
        if self.format == Format::DecimalExponent {
            return match e {
                0 => write!(f, "{sign}{n}"),
                e => write!(f, "{sign}{n}e{e}"),
            };
        }
        let suffix = match e {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            _ => "E",
        };
        write!(f, "{sign}{n}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn values_round_up() {
        assert_eq!(q("500m").milli_value(), 500);
        assert_eq!(q("0.5").milli_value(), 500);
        assert_eq!(q("1Gi").value(), 1 << 30);
        assert_eq!(q("128Mi").value(), 128 << 20);
        assert_eq!(q("1.5Gi").value(), 3 << 29);
        assert_eq!(q("1e3").value(), 1000);
        assert_eq!(q("12E6").value(), 12_000_000);
        // The classic mistake: 128m bytes is 0.128 bytes, rounded up to 1.
        assert_eq!(q("128m").value(), 1);
        assert_eq!(q("0.0001").milli_value(), 1);
        assert_eq!(q("100M").value(), 100_000_000);
        assert_eq!(q("1k").value(), 1000);
    }

    #[test]
    fn canonical_strings() {
        for (written, canonical) in [
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("1.5k", "1500"),
            ("2000", "2k"),
            ("512Mi", "512Mi"),
            ("700m", "700m"),
            ("0.1", "100m"),
            ("1e3", "1e3"),
            ("0", "0"),
            ("-1", "-1"),
            ("0.5Ki", "512"),
            ("4Gi", "4Gi"),
            ("250m", "250m"),
        ] {
            assert_eq!(q(written).to_string(), canonical, "{written}");
        }
    }

    #[test]
    fn errors_are_parse_quantitys() {
        assert_eq!(Quantity::parse("1GB").unwrap_err(), format_wrong());
        assert_eq!(Quantity::parse("").unwrap_err(), format_wrong());
        assert_eq!(Quantity::parse("abc").unwrap_err(), format_wrong());
        assert_eq!(Quantity::parse("1K").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("1mi").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("1.2.3").unwrap_err(), ERR_NUMERIC);
        assert!(Quantity::parse("-1").unwrap().is_negative());
        assert!(q("700m") > q("500m"));
        assert!(q("1Gi") > q("1G"));
    }
}
