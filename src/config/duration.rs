//! Go's `time.ParseDuration`, ported by hand.
//!
//! Peen writes timeouts as Go durations (`20s`, `5m`, `1h30m`, `1.5h`,
//! `300ms`, `.5s`). No crate parses exactly Go's language: some panic on
//! `1µs`, reject `1.5h` or `.5s`, or accept `2d` and `1h 30m`. This port
//! follows Go's algorithm step by step, including its overflow checks, and
//! has a fuzz target (`fuzz/fuzz_targets/go_duration.rs`). Whether a
//! duration must be positive is a configuration rule, not the parser's.

use std::fmt;

/// Why a duration does not parse; the message mirrors Go's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError {
    message: String,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DurationError {}

fn invalid(orig: &str) -> DurationError {
    DurationError {
        message: format!("invalid duration {orig:?}"),
    }
}

/// 2^63, the bound Go checks against before converting to a signed value.
const LIMIT: u64 = 1 << 63;

fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        // U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU, as in Go.
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        _ => return None,
    })
}

/// Parses a Go duration into signed nanoseconds.
pub fn parse_go_duration(text: &str) -> Result<i64, DurationError> {
    let orig = text;
    let mut s = text.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid(orig));
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        // The next character must be [0-9.].
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid(orig));
        }
        // [0-9]*
        let before = s.len();
        let (mut v, rest) = leading_int(s).ok_or_else(|| invalid(orig))?;
        s = rest;
        let pre = before != s.len();
        // (\.[0-9]*)?
        let mut post = false;
        let (mut f, mut scale) = (0u64, 1f64);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let before = s.len();
            let (ff, sc, rest) = leading_fraction(s);
            f = ff;
            scale = sc;
            s = rest;
            post = before != s.len();
        }
        if !pre && !post {
            return Err(invalid(orig));
        }
        // The unit: everything up to the next digit or dot.
        let end = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if end == 0 {
            return Err(DurationError {
                message: format!("missing unit in duration {orig:?}"),
            });
        }
        let unit_text = std::str::from_utf8(&s[..end]).map_err(|_| invalid(orig))?;
        s = &s[end..];
        let unit = unit_nanos(unit_text).ok_or_else(|| DurationError {
            message: format!("unknown unit {unit_text:?} in duration {orig:?}"),
        })?;
        if v > LIMIT / unit {
            return Err(invalid(orig));
        }
        v *= unit;
        if f > 0 {
            // Go uses float64 here to stay nanosecond-accurate for fractions
            // of hours; the product is at most 3.6e12, so the cast is exact.
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid(orig));
            }
        }
        total = match total.checked_add(v) {
            Some(t) if t <= LIMIT => t,
            _ => return Err(invalid(orig)),
        };
    }
    if neg {
        // total ≤ 2^63, so its negation fits in i64.
        return Ok(0i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| invalid(orig))
}

/// Consumes leading digits; `None` on overflow past 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > LIMIT {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

/// Consumes leading digits of a fraction, ignoring precision it cannot hold.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let mut x: u64 = 0;
    let mut scale = 1f64;
    let mut overflow = false;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if !overflow {
            if x > (LIMIT - 1) / 10 {
                overflow = true;
            } else {
                let y = x * 10 + u64::from(s[i] - b'0');
                if y > LIMIT {
                    overflow = true;
                } else {
                    x = y;
                    scale *= 10.0;
                }
            }
        }
        i += 1;
    }
    (x, scale, &s[i..])
}

/// A duration as Go's `Duration.String` prints it, exactly (integer
/// arithmetic): `0s`, `300ms`, `1.5s`, `1m30s`, `1h0m0.000000001s`. What
/// it prints, [`parse_go_duration`] reads back to the same nanoseconds.
pub fn format_go_duration(d: std::time::Duration) -> String {
    const SEC: u128 = 1_000_000_000;
    let ns = d.as_nanos();
    match ns {
        0 => "0s".to_owned(),
        1..1_000 => format!("{ns}ns"),
        1_000..1_000_000 => format!("{}µs", decimal(ns, 1_000)),
        1_000_000..SEC => format!("{}ms", decimal(ns, 1_000_000)),
        _ => {
            let secs = decimal(ns % (60 * SEC), SEC);
            let minutes = ns / (60 * SEC);
            let (h, m) = (minutes / 60, minutes % 60);
            if h > 0 {
                format!("{h}h{m}m{secs}s")
            } else if m > 0 {
                format!("{m}m{secs}s")
            } else {
                format!("{secs}s")
            }
        }
    }
}

/// `value / unit` as a decimal without trailing zeros (`unit` a power of 10).
fn decimal(value: u128, unit: u128) -> String {
    let (whole, rest) = (value / unit, value % unit);
    if rest == 0 {
        return whole.to_string();
    }
    let width = unit.ilog10() as usize;
    let fraction = format!("{rest:0width$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_as_go_and_reads_back() {
        use std::time::Duration;
        for (d, text) in [
            (Duration::ZERO, "0s"),
            (Duration::from_nanos(7), "7ns"),
            (Duration::from_nanos(1_500), "1.5µs"),
            (Duration::from_millis(300), "300ms"),
            (Duration::from_millis(1500), "1.5s"),
            (Duration::from_secs(30), "30s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(3600), "1h0m0s"),
            (Duration::new(3600, 1), "1h0m0.000000001s"),
        ] {
            assert_eq!(format_go_duration(d), text);
            assert_eq!(parse_go_duration(text), Ok(d.as_nanos() as i64), "{text}");
        }
    }

    use super::*;

    const S: i64 = 1_000_000_000;

    macro_rules! ok {
        ($($text:expr => $nanos:expr),* $(,)?) => {
            $(assert_eq!(parse_go_duration($text), Ok($nanos), "{}", $text);)*
        };
    }

    #[test]
    fn go_examples_parse() {
        ok! {
            "0" => 0, "5s" => 5 * S, "30s" => 30 * S, "1478s" => 1478 * S,
            "-5s" => -5 * S, "+5s" => 5 * S, "-0" => 0, "+0" => 0,
            "5.0s" => 5 * S, "5.6s" => 5 * S + 600_000_000, "5.s" => 5 * S,
            ".5s" => S / 2, "1.0s" => S, "1.00s" => S, "1.004s" => S + 4_000_000,
            "1.0040s" => S + 4_000_000, "100.00100s" => 100 * S + 1_000_000,
            "10ns" => 10, "11us" => 11_000, "12µs" => 12_000, "12μs" => 12_000,
            "13ms" => 13_000_000, "14s" => 14 * S, "15m" => 15 * 60 * S, "16h" => 16 * 3600 * S,
            "3h30m" => (3 * 3600 + 30 * 60) * S, "10.5s4m" => 4 * 60 * S + 10 * S + S / 2,
            "-2m3.4s" => -(2 * 60 * S + 3 * S + 400_000_000),
            "1h2m3s4ms5us6ns" => 3600 * S + 2 * 60 * S + 3 * S + 4_000_000 + 5_000 + 6,
            "39h9m14.425s" => 39 * 3600 * S + 9 * 60 * S + 14 * S + 425_000_000,
            "52763797000ns" => 52_763_797_000, "0.3333333333333333333h" => 20 * 60 * S,
            "9007199254740993ns" => 9_007_199_254_740_993,
            "9223372036854775807ns" => i64::MAX, "9223372036854775.807us" => i64::MAX,
            "9223372036s854ms775us807ns" => i64::MAX, "-9223372036854775808ns" => i64::MIN,
            "-9223372036854775.808us" => i64::MIN, "0.100000000000000000000h" => 6 * 60 * S,
            "0.830103483285477580700h" => 49 * 60 * S + 48 * S + 372_539_827,
            "1.5h" => 5400 * S, "20s" => 20 * S, "1h30m" => 5400 * S,
        }
    }

    #[test]
    fn go_rejections() {
        for bad in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "\u{85}\u{85}",
            "\u{ffff}",
            "9223372036854775808ns",
            "9223372036854775.808us",
            "9223372036854ms775us808ns",
            "-9223372036854775809ns",
            "1h 30m",
            "2 s",
            "5S",
        ] {
            assert!(parse_go_duration(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn sums_past_the_limit_are_errors_not_overflows() {
        for bad in [
            "9223372036854775808ns9223372036854775808ns",
            "2562047h2562047h",
        ] {
            assert!(parse_go_duration(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn messages_follow_go() {
        assert_eq!(
            parse_go_duration("3").unwrap_err().to_string(),
            "missing unit in duration \"3\""
        );
        assert_eq!(
            parse_go_duration("3d").unwrap_err().to_string(),
            "unknown unit \"d\" in duration \"3d\""
        );
        assert_eq!(
            parse_go_duration("x").unwrap_err().to_string(),
            "invalid duration \"x\""
        );
    }
}
