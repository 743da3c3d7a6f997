//! Incremental decoding (httparse-style): feed a file in chunks of any size, get every
//! complete header, record and heap-dump sub-record, and learn when more input is needed.
//!
//! Heap dumps are descended into sub-record by sub-record, so memory is bounded by the largest
//! single sub-record (or non-heap record), never by the file or by a `HEAP_DUMP` record.
//!
//! Two ways to drive it:
//! * [`Decoder`]: you own the buffer; [`Decoder::decode`] returns one [`Event`] or
//!   [`Status::Partial`], [`Decoder::decode_all`] calls a closure for every event in the
//!   buffer (the fast path);
//! * [`BufferedDecoder`]: it owns a buffer; [`feed`](BufferedDecoder::feed) chunks and call
//!   [`next_event`](BufferedDecoder::next_event) until it returns `None`.
//!
//! | part | file |
//! |---|---|
//! | events and statuses | `event.rs` |
//! | visitors and the fast path over a heap-dump body | `visit.rs` |
//! | the decoder | `decoder.rs` |
//! | the decoder with a buffer | `buffered.rs` |

mod buffered;
mod decoder;
mod event;
mod visit;

pub use buffered::BufferedDecoder;
pub use decoder::{DEFAULT_MAX_ITEM_LEN, Decoder};
pub use event::{Event, Status};
pub use visit::{Visit, visit_sub_records};
