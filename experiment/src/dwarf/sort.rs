//! gprofng's own quicksort (`Vector::sort` in `vec.h`), which decides the order of line rows
//! sharing an address, and so which of them wins.

/// The address of row `i` of `rows` (0 past the end, which the sort never asks for).
fn key(rows: &[(u64, u32, u32)], i: usize) -> u64 {
    rows.get(i).map_or(0, |r| r.0)
}

/// Sorts `rows` by address exactly as gprofng's `Vector::sort` does (its own quicksort in
/// `vec.h`, not the C library's), so that rows sharing an address end in gprofng's order:
/// slices under 6 rows by insertion (a row moves before the rows strictly above it); larger
/// ones take the median of the first, middle and last rows as pivot (moved into the middle
/// slot by gprofng's three-way exchange), partition around it from both ends with the pivot
/// slot following the exchanges, then sort the smaller side recursively and loop on the
/// larger (so the depth stays logarithmic).
pub(super) fn sort_like_gprofng(rows: &mut [(u64, u32, u32)]) {
    let mut v = rows;
    loop {
        let n = v.len();
        if n < 6 {
            for i in 1..n {
                let t = key(v, i);
                let mut q = i;
                while q > 0 && key(v, q - 1) > t {
                    q -= 1;
                }
                if let Some(s) = v.get_mut(q..=i) {
                    s.rotate_right(1);
                }
            }
            return;
        }
        let (first, last) = (0, n - 1);
        let mut mid = n / 2;
        // The median of three into the middle slot, the others ordered around it.
        let (mut a1, a2, a3);
        if key(v, first) > key(v, mid) {
            if key(v, mid) > key(v, last) {
                a1 = first;
                a2 = last;
                a3 = last;
            } else if key(v, first) > key(v, last) {
                a1 = first;
                a2 = mid;
                a3 = last;
            } else {
                a1 = first;
                a2 = mid;
                a3 = mid;
            }
        } else if key(v, mid) > key(v, last) {
            a1 = mid;
            a3 = last;
            a2 = if key(v, first) > key(v, last) {
                first
            } else {
                a3
            };
        } else {
            a1 = first;
            a2 = first;
            a3 = first;
        }
        if a1 != a2 {
            // first ← second ← third ← first (the exchange gprofng makes).
            if let (Some(&t1), Some(&t2), Some(&t3)) = (v.get(a1), v.get(a2), v.get(a3)) {
                let mut put = |at: usize, r: (u64, u32, u32)| {
                    if let Some(x) = v.get_mut(at) {
                        *x = r;
                    }
                };
                put(a1, t2);
                if a2 != a3 {
                    put(a2, t3);
                }
                put(a3, t1);
            }
        }
        a1 = 1;
        let mut i = a1;
        let mut j = last - 1;
        loop {
            while i < mid && key(v, i) <= key(v, mid) {
                i += 1;
            }
            while j > mid && key(v, mid) <= key(v, j) {
                j -= 1;
            }
            if i == j {
                break;
            }
            v.swap(i, j);
            if i == mid {
                mid = j;
                i += 1;
            } else if j == mid {
                mid = i;
                j -= 1;
            } else {
                i += 1;
                j -= 1;
            }
        }
        let taken = std::mem::take(&mut v);
        let (left, rest) = taken.split_at_mut(mid);
        let right = rest.get_mut(1..).unwrap_or_default();
        if left.len() <= right.len() {
            sort_like_gprofng(left);
            v = right;
        } else {
            sort_like_gprofng(right);
            v = left;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_like_gprofng;

    #[test]
    fn gprofngs_sort_sorts_and_orders_ties_its_way() {
        // Sorted by address whatever the input; ties keep gprofng's order, not the input's.
        let mut seed = 0x2545_f491_u64;
        for n in 0..200 {
            let mut rows: Vec<(u64, u32, u32)> = (0..n)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 7, i, 0)
                })
                .collect();
            let mut want = rows.clone();
            want.sort_by_key(|r| r.0);
            sort_like_gprofng(&mut rows);
            let keys: Vec<u64> = rows.iter().map(|r| r.0).collect();
            let want_keys: Vec<u64> = want.iter().map(|r| r.0).collect();
            assert_eq!(keys, want_keys, "{n}");
            let mut ids: Vec<u32> = rows.iter().map(|r| r.1).collect();
            ids.sort_unstable();
            assert_eq!(ids, (0..n).collect::<Vec<u32>>(), "a permutation");
        }
        // Under 6 rows: insertion, which keeps ties in order.
        let mut rows = vec![(5, 0, 0), (3, 1, 0), (5, 2, 0), (3, 3, 0)];
        sort_like_gprofng(&mut rows);
        assert_eq!(rows, [(3, 1, 0), (3, 3, 0), (5, 0, 0), (5, 2, 0)]);
        // Six rows at one address: the median-of-three exchange moves the middle row last
        // when first = middle = last … none of them compare greater, so nothing moves.
        let mut rows: Vec<(u64, u32, u32)> = (0..6).map(|i| (1, i, 0)).collect();
        sort_like_gprofng(&mut rows);
        assert_eq!(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
    }
}
