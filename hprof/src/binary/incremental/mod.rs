//! Incremental decoding (httparse-style): feed a file in chunks of any size, get every
//! complete header, record and heap-dump sub-record, and learn when more input is needed.
//!
//! Heap dumps are descended into sub-record by sub-record, so memory is bounded by the largest
//! single sub-record (or non-heap record), never by the file or by a `HEAP_DUMP` record.
//!
//! Two ways to drive it:
//! * [`Decoder`]: you own the buffer; [`Decoder::decode`] returns one [`Event`] or
//!   [`Status::Partial`], [`Decoder::decode_all`] calls a closure for every event in the
//!   buffer, and [`Decoder::decode_with`] a [`Visit`]or (the fast path);
//!   [`Decoder::decode_forked`] walks two heap-dump records at once on one thread, into a
//!   visitor and its [`Fork`] (a histogram: about 0.8 of the time);
//! * [`BufferedDecoder`]: it owns a buffer; [`feed`](BufferedDecoder::feed) chunks and call
//!   [`next_event`](BufferedDecoder::next_event) until it returns `None`.
//!
//! | part | file |
//! |---|---|
//! | events and statuses | `event.rs` |
//! | visitors, forks and the fast path over one heap-dump body or two | `visit.rs` |
//! | the decoder | `decoder.rs` |
//! | the decoder with a buffer | `buffered.rs` |

mod buffered;
mod decoder;
mod event;
mod visit;

pub use buffered::BufferedDecoder;
pub use decoder::{DEFAULT_MAX_ITEM_LEN, Decoder};
pub use event::{Event, Status};
pub(crate) use visit::visit_pair;
pub use visit::{Fork, Visit, visit_sub_records};
