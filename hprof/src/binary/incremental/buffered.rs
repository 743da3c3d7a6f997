//! An incremental decoder with its own buffer.

use super::decoder::Decoder;
use super::event::{Event, Status};
use crate::binary::error::Result;

/// An incremental decoder with its own buffer: feed chunks, pull events.
///
/// Memory use is the largest single record or sub-record plus one chunk.
///
/// ```
/// use hprof::binary::incremental::{BufferedDecoder, Event};
/// # let mut file = Vec::new();
/// # hprof::binary::Header { version: hprof::binary::Version::V1_0_2,
/// #     id_size: hprof::binary::IdSize::Eight, timestamp_ms: 0 }.write(&mut file);
/// # file.extend_from_slice(&[0x03, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 7]); // UNLOAD_CLASS
/// let mut decoder = BufferedDecoder::new();
/// let mut headers = 0;
/// for chunk in file.chunks(7) {
///     decoder.feed(chunk);
///     while let Some(event) = decoder.next_event()? {
///         if let Event::Header(_) = event {
///             headers += 1;
///         }
///     }
/// }
/// decoder.finish()?;
/// assert_eq!(headers, 1);
/// # Ok::<(), hprof::binary::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct BufferedDecoder {
    decoder: Decoder,
    buf: Vec<u8>,
    start: usize,
}

impl BufferedDecoder {
    /// A buffered decoder expecting the file header first.
    pub fn new() -> BufferedDecoder {
        BufferedDecoder::default()
    }

    /// Wraps a configured [`Decoder`].
    pub fn with_decoder(decoder: Decoder) -> BufferedDecoder {
        BufferedDecoder {
            decoder,
            buf: Vec::new(),
            start: 0,
        }
    }

    /// Appends a chunk of input.
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(chunk);
    }

    /// Bytes buffered but not consumed yet.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next complete event, or `None` when more input is needed.
    ///
    /// # Errors
    /// Any decoding [`Error`](crate::binary::Error).
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        let input = self.buf.get(self.start..).unwrap_or_default();
        match self.decoder.decode(input)? {
            Status::Complete { item, consumed } => {
                self.start += consumed;
                Ok(Some(item))
            }
            Status::Partial { consumed, .. } => {
                self.start += consumed;
                Ok(None)
            }
        }
    }

    /// Checks that the input ended cleanly after the last record.
    ///
    /// # Errors
    /// [`Error::Truncated`](crate::binary::Error::Truncated) with the offset where the file was cut.
    pub fn finish(&self) -> Result<()> {
        self.decoder
            .finish(self.buf.get(self.start..).unwrap_or_default())
    }

    /// The underlying decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }
}
