//! A visitor that records every event in order, forks included, and the driver that feeds it
//! to `Decoder::decode_forked` window by window: shared by the fixture and property tests.

use hprof::binary::incremental::{Decoder, Event, Fork, Visit};

/// Every event it is given, in order; a fork's events are appended when it is joined.
#[derive(Default)]
pub(crate) struct Recorder {
    pub(crate) events: Vec<String>,
    /// How many events came through a fork.
    pub(crate) forked: usize,
}

impl<'a> Visit<'a> for Recorder {
    fn event(&mut self, event: Event<'a>) {
        self.events.push(format!("{event:?}"));
    }
}

impl Fork<'_> for Recorder {
    fn fork(&self) -> Recorder {
        Recorder::default()
    }
    fn join(&mut self, fork: &mut Recorder) {
        self.forked += fork.events.len();
        self.events.append(&mut fork.events);
    }
}

/// `decode_forked` (two heap-dump records at once) or `decode_with` (one at a time) over
/// `data` in windows growing by `sizes` in turn (the input's size told to the decoder when
/// `sized`), as the examples feed a memory-mapped dump: the events, then how it ended (the
/// error, or what `finish` said), and how many events came through a fork.
pub(crate) fn events(
    data: &[u8],
    sizes: &[usize],
    sized: bool,
    forked: bool,
) -> (Vec<String>, usize) {
    let mut d = match sized {
        true => Decoder::new().input_len(data.len() as u64),
        false => Decoder::new(),
    };
    let mut r = Recorder::default();
    let (mut pos, mut end, mut i) = (0, 0, 0);
    loop {
        end = (end + sizes[i % sizes.len()]).min(data.len());
        i += 1;
        let window = &data[pos..end];
        let decoded = match forked {
            true => d.decode_forked(window, &mut r),
            false => d.decode_with(window, &mut r),
        };
        match decoded {
            Ok((consumed, _)) => pos += consumed,
            Err(e) => {
                r.events.push(format!("{:?}", Err::<(), _>(e)));
                return (r.events, r.forked);
            }
        }
        if end == data.len() {
            r.events.push(format!("{:?}", d.finish(&data[pos..])));
            return (r.events, r.forked);
        }
    }
}
