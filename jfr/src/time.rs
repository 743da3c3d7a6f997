//! Time as the recorder writes it and as the JDK prints it: ticks of the chunk's clock
//! converted to nanoseconds the way the JDK's reader converts them, durations spelled as
//! `java.time.Duration::toString` (`PT1.5S`), points in time as `OffsetDateTime::toString`
//! (`2024-01-02T03:04:05.123456789Z`).

use std::fmt::Write;

use crate::header::ChunkHeader;
use crate::metadata::Unit;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

fn divisor(h: &ChunkHeader) -> f64 {
    h.ticks_per_second as f64 / 1e9
}

/// Ticks of the chunk's clock → nanoseconds since the epoch.
pub(crate) fn ticks_to_epoch_nanos(h: &ChunkHeader, ticks: i64) -> i64 {
    let delta = ticks.wrapping_sub(h.start_ticks) as f64;
    h.start_nanos.wrapping_add((delta / divisor(h)) as i64)
}

/// A duration in ticks → nanoseconds.
pub(crate) fn ticks_to_nanos(h: &ChunkHeader, ticks: i64) -> i64 {
    (ticks as f64 / divisor(h)) as i64
}

/// A `java.time.Duration`: whole seconds (floored) and nanoseconds in `0..1e9`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duration {
    /// Seconds, rounded towards negative infinity.
    pub seconds: i64,
    /// Nanoseconds past `seconds`, `0..1_000_000_000`.
    pub nanos: i32,
}

impl Duration {
    /// A duration of `n` nanoseconds.
    pub fn from_nanos(n: i64) -> Duration {
        Duration {
            seconds: n.div_euclid(NANOS_PER_SECOND),
            nanos: n.rem_euclid(NANOS_PER_SECOND) as i32,
        }
    }

    /// A duration of `ms` milliseconds.
    pub fn from_millis(ms: i64) -> Duration {
        Duration {
            seconds: ms.div_euclid(1000),
            nanos: (ms.rem_euclid(1000) * 1_000_000) as i32,
        }
    }

    /// A duration of `s` seconds.
    pub fn from_seconds(s: i64) -> Duration {
        Duration {
            seconds: s,
            nanos: 0,
        }
    }

    /// The duration a field value of `unit` stands for, as the JDK reads it (a value of
    /// `i64::MIN` is the JDK's "minimum" duration whatever the unit). `None` for a timestamp
    /// unit.
    pub fn of_field(h: &ChunkHeader, unit: Unit, v: i64) -> Option<Duration> {
        if v == i64::MIN {
            return Some(Duration::from_seconds(i64::MIN));
        }
        Some(match unit {
            Unit::TimespanTicks => Duration::from_nanos(ticks_to_nanos(h, v)),
            Unit::TimespanNanos => Duration::from_nanos(v),
            Unit::TimespanMicros => Duration::from_nanos(v.wrapping_mul(1000)),
            Unit::TimespanMillis => Duration::from_millis(v),
            Unit::TimespanSeconds => Duration::from_seconds(v),
            Unit::TimestampTicks | Unit::TimestampMillis => return None,
        })
    }

    /// The duration in nanoseconds, saturating.
    pub fn as_nanos(&self) -> i64 {
        let n = i128::from(self.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanos);
        n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

impl std::fmt::Display for Duration {
    /// `java.time.Duration::toString`: `PT0S`, `PT0.000123S`, `PT1H2M3.5S`, `PT-0.5S`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (seconds, nanos) = (self.seconds, i64::from(self.nanos));
        if seconds == 0 && nanos == 0 {
            return f.write_str("PT0S");
        }
        let effective = if seconds < 0 && nanos > 0 {
            seconds + 1
        } else {
            seconds
        };
        let hours = effective / 3600;
        let minutes = (effective % 3600) / 60;
        let secs = effective % 60;
        let mut buf = String::with_capacity(24);
        buf.push_str("PT");
        if hours != 0 {
            let _ = write!(buf, "{hours}H");
        }
        if minutes != 0 {
            let _ = write!(buf, "{minutes}M");
        }
        if secs == 0 && nanos == 0 && buf.len() > 2 {
            return f.write_str(&buf);
        }
        if seconds < 0 && nanos > 0 && secs == 0 {
            buf.push_str("-0");
        } else {
            let _ = write!(buf, "{secs}");
        }
        if nanos > 0 {
            let fraction = if seconds < 0 {
                2 * NANOS_PER_SECOND - nanos
            } else {
                nanos + NANOS_PER_SECOND
            };
            let digits = fraction.to_string();
            let digits = digits.trim_end_matches('0');
            buf.push('.');
            buf.push_str(digits.get(1..).unwrap_or_default());
        }
        buf.push('S');
        f.write_str(&buf)
    }
}

/// A point in time with the recording's offset from UTC, printed as
/// `java.time.OffsetDateTime::toString`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    /// Nanoseconds since the epoch; `None` for the JDK's "minimum" timestamp (a field value
    /// of `i64::MIN`).
    pub epoch_nanos: Option<i128>,
    /// Offset from UTC in seconds.
    pub offset_seconds: i32,
}

impl Timestamp {
    /// The timestamp a field value of `unit` stands for. `None` for a timespan unit.
    pub fn of_field(h: &ChunkHeader, unit: Unit, v: i64, offset_seconds: i32) -> Option<Timestamp> {
        let epoch_nanos = match unit {
            _ if v == i64::MIN => None,
            Unit::TimestampTicks => Some(i128::from(ticks_to_epoch_nanos(h, v))),
            Unit::TimestampMillis => Some(i128::from(v) * 1_000_000),
            _ => return None,
        };
        Some(Timestamp {
            epoch_nanos,
            offset_seconds,
        })
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(epoch_nanos) = self.epoch_nanos else {
            return f.write_str("-999999999-01-01T00:00+18:00");
        };
        let local = epoch_nanos + i128::from(self.offset_seconds) * 1_000_000_000;
        let secs = local.div_euclid(1_000_000_000) as i64;
        let nano = local.rem_euclid(1_000_000_000) as i64;
        let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
        let sod = secs.rem_euclid(86_400);
        let (hour, minute, second) = (sod / 3600, (sod % 3600) / 60, sod % 60);
        if year.abs() < 1000 {
            if year < 0 {
                write!(f, "-{:04}", -year)?;
            } else {
                write!(f, "{year:04}")?;
            }
        } else {
            if year > 9999 {
                f.write_str("+")?;
            }
            write!(f, "{year}")?;
        }
        write!(f, "-{month:02}-{day:02}T{hour:02}:{minute:02}")?;
        if second > 0 || nano > 0 {
            write!(f, ":{second:02}")?;
            if nano > 0 {
                if nano % 1_000_000 == 0 {
                    write!(f, ".{:03}", nano / 1_000_000)?;
                } else if nano % 1000 == 0 {
                    write!(f, ".{:06}", nano / 1000)?;
                } else {
                    write!(f, ".{nano:09}")?;
                }
            }
        }
        let off = self.offset_seconds;
        if off == 0 {
            return f.write_str("Z");
        }
        let abs = off.unsigned_abs();
        write!(
            f,
            "{}{:02}:{:02}",
            if off < 0 { '-' } else { '+' },
            abs / 3600,
            (abs / 60) % 60
        )?;
        if abs % 60 != 0 {
            write!(f, ":{:02}", abs % 60)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_java_prints_them() {
        let cases = [
            (Duration::from_nanos(0), "PT0S"),
            (Duration::from_nanos(123_000), "PT0.000123S"),
            (Duration::from_nanos(-500_000_000), "PT-0.5S"),
            (Duration::from_nanos(-1_500_000_000), "PT-1.5S"),
            (Duration::from_seconds(3600), "PT1H"),
            (Duration::from_seconds(3661), "PT1H1M1S"),
            (
                Duration::from_millis(i64::MAX),
                "PT2562047788015H12M55.807S",
            ),
            (
                Duration::from_seconds(i64::MIN),
                "PT-2562047788015215H-30M-8S",
            ),
            (Duration::from_nanos(1_000_000_001), "PT1.000000001S"),
        ];
        for (d, want) in cases {
            assert_eq!(d.to_string(), want, "{d:?}");
        }
    }

    #[test]
    fn timestamps_as_java_prints_them() {
        let t = |n: i128, off| {
            Timestamp {
                epoch_nanos: Some(n),
                offset_seconds: off,
            }
            .to_string()
        };
        assert_eq!(t(0, 0), "1970-01-01T00:00Z");
        assert_eq!(t(1_000_000_000, 0), "1970-01-01T00:00:01Z");
        assert_eq!(
            t(1_764_185_659_784_686_251, 0),
            "2025-11-26T19:34:19.784686251Z"
        );
        assert_eq!(t(1_764_185_659_769_000_000, 0), "2025-11-26T19:34:19.769Z");
        assert_eq!(
            t(1_764_185_659_769_100_000, 3600),
            "2025-11-26T20:34:19.769100+01:00"
        );
        assert_eq!(t(-1, -1800), "1969-12-31T23:29:59.999999999-00:30");
    }
}
