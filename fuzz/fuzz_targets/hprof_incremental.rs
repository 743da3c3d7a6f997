//! `hprof` incremental decoding: feeding the input in chunks (sizes taken from the input)
//! gives exactly the events, and the same success or failure, as feeding it at once; telling
//! the decoder the input's size changes neither, and it then never asks for more bytes than
//! the input holds; salvaging gives the same verdict; and walking two heap-dump records at
//! once (`decode_forked`, in windows of those sizes) gives the events of `decode_with`, in
//! order, and the same error.
#![no_main]

use hprof::binary::histogram::Histogram;
use hprof::binary::incremental::{BufferedDecoder, Decoder, Event, Status};
use libfuzzer_sys::fuzz_target;

fn at_once(data: &[u8]) -> (Vec<String>, bool) {
    let mut d = Decoder::new();
    let mut events = Vec::new();
    let ok = match d.decode_all(data, |e: Event<'_>| events.push(format!("{e:?}"))) {
        Ok((consumed, _)) => d.finish(&data[consumed..]).is_ok(),
        Err(_) => false,
    };
    (events, ok)
}

/// At once, with the input's size known: it never asks for a record's or sub-record's bytes
/// past the end.
fn at_once_sized(data: &[u8]) -> (Vec<String>, bool) {
    let mut d = Decoder::new().input_len(data.len() as u64);
    let mut events = Vec::new();
    let mut pending = data;
    loop {
        match d.decode(pending) {
            Ok(Status::Complete { item, consumed }) => {
                events.push(format!("{item:?}"));
                pending = &pending[consumed..];
            }
            Ok(Status::Partial { consumed, needed }) => {
                pending = &pending[consumed..];
                // With the whole input given and its size known, only a cut file header or
                // record header (a few bytes) may still be "partial": a record or sub-record
                // whose declared length runs past the end is an error, never a request.
                let end = data.len() - pending.len();
                assert!(needed <= 64, "asked for {needed} at {end}");
                return (events, d.finish(pending).is_ok());
            }
            Err(_) => return (events, false),
        }
    }
}

fn chunked(data: &[u8], sizes: &[u8]) -> (Vec<String>, bool) {
    let mut d = BufferedDecoder::new();
    let mut events = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while pos < data.len() {
        let n = (usize::from(sizes[i % sizes.len()]) + 1).min(data.len() - pos);
        i += 1;
        d.feed(&data[pos..pos + n]);
        pos += n;
        loop {
            match d.next_event() {
                Ok(Some(e)) => events.push(format!("{e:?}")),
                Ok(None) => break,
                Err(_) => return (events, false),
            }
        }
    }
    let ok = d.finish().is_ok();
    (events, ok)
}

/// The hprof tests' recorder and window driver (`decode_forked` or `decode_with` over windows
/// of growing sizes).
#[path = "../../hprof/tests/forking/mod.rs"]
mod forking;

/// `decode_forked` (two heap-dump records at once) or `decode_with` (one at a time) over
/// windows of `data` growing by `sizes` (plus one), the input's size known: the events, then
/// the error or what `finish` said.
fn windows(data: &[u8], sizes: &[u8], forked: bool) -> Vec<String> {
    let sizes: Vec<usize> = sizes.iter().map(|&s| usize::from(s) + 1).collect();
    forking::events(data, &sizes, true, forked).0
}

fuzz_target!(|input: &[u8]| {
    let Some((&n, rest)) = input.split_first() else {
        return;
    };
    let n = usize::from(n % 16) + 1;
    if rest.len() < n {
        return;
    }
    let (sizes, data) = rest.split_at(n);
    let (a, a_ok) = at_once(data);
    let (b, b_ok) = chunked(data, sizes);
    let (c, c_ok) = at_once_sized(data);
    assert_eq!(a_ok, c_ok);
    let k = a.len().min(c.len());
    assert_eq!(a[..k], c[..k]);
    if let Ok(s) = Histogram::salvage(data) {
        assert_eq!(s.is_complete(), a_ok);
    }
    assert_eq!(windows(data, sizes, true), windows(data, sizes, false));
    assert_eq!(a_ok, b_ok);
    if a_ok {
        assert_eq!(a, b);
    } else {
        // On failure, the chunked run saw a prefix of the events.
        let k = a.len().min(b.len());
        assert_eq!(a[..k], b[..k]);
    }
});
