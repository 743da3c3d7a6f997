//! The hottest methods of a profile (iprof format document, "callCountProfiles"): each
//! method's call counts summed over every context it was counted in.

use std::collections::HashMap;

use crate::model::Profile;

/// One method with its calls summed over every context of `callCountProfiles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HotMethod {
    /// The method id (resolve it with [`Names`](crate::Names)).
    pub method: i64,
    /// Its calls, summed (saturating at `i64::MAX`).
    pub calls: i64,
}

impl Profile<'_> {
    /// The `n` methods with the most calls, most first (ties by id), summed over every
    /// context they were counted in. Entries whose records are not one count are left out
    /// (the [validation report](Profile::validate) lists them).
    ///
    /// ```
    /// let text = r#"{"version":"1.0.0",
    ///   "types":[{"id":8,"name":"void"},{"id":10,"name":"Fib"}],
    ///   "methods":[{"id":1,"name":"fib","signature":[10,8]},{"id":2,"name":"main","signature":[10,8]}],
    ///   "callCountProfiles":[{"ctx":"1:0<1:4","records":[30]},{"ctx":"1:0<2:9","records":[12]},
    ///                        {"ctx":"2:0","records":[1]}]}"#;
    /// let profile = iprof::Profile::parse(text)?;
    /// let names = profile.names();
    /// let hot: Vec<(String, i64)> = profile.hottest_methods(10).iter()
    ///     .map(|h| (names.short_method(h.method), h.calls))
    ///     .collect();
    /// assert_eq!(hot, [("Fib.fib()".to_owned(), 42), ("Fib.main()".to_owned(), 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hottest_methods(&self, n: usize) -> Vec<HotMethod> {
        let mut calls: HashMap<u32, i64> = HashMap::new();
        for p in self.call_counts() {
            if let (Some(method), Ok(count)) = (p.method(), p.count()) {
                let sum = calls.entry(method).or_insert(0);
                *sum = sum.saturating_add(count);
            }
        }
        let mut hot: Vec<HotMethod> = calls
            .into_iter()
            .map(|(method, calls)| HotMethod {
                method: i64::from(method),
                calls,
            })
            .collect();
        hot.sort_by(|a, b| b.calls.cmp(&a.calls).then(a.method.cmp(&b.method)));
        hot.truncate(n);
        hot
    }
}
