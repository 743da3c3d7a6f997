//! Percentages printed with `%5.2f%%` in SITES, CPU and MONITOR TIME rows. The source text is
//! kept, because printf rounding makes the value alone unable to reproduce it.

/// A percentage as written in the report, e.g. `24.67` (without the `%`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Percent<S> {
    /// The digits as written, without padding and without `%`.
    pub text: S,
}

impl<S: AsRef<str>> Percent<S> {
    /// The numeric value (e.g. `24.67`), or `None` if the text is not a number.
    pub fn value(&self) -> Option<f64> {
        self.text.as_ref().parse().ok()
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> Percent<String> {
        Percent {
            text: self.text.as_ref().to_owned(),
        }
    }

    /// Writes `%5.2f%%` from the kept text.
    pub(crate) fn write_to(&self, out: &mut String) {
        let t = self.text.as_ref();
        for _ in t.len()..5 {
            out.push(' ');
        }
        out.push_str(t);
        out.push('%');
    }
}

impl Percent<String> {
    /// A percentage for a model built in code, formatted like the agent (`%.2f`).
    pub fn from_value(value: f64) -> Self {
        Percent {
            text: format!("{value:.2}"),
        }
    }
}
