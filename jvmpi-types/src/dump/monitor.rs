//! Monitor dump buffers (`JVMPI_EVENT_MONITOR_DUMP`, spec §4.4 "monitor dump format"): a run of
//! `JVMPI_MONITOR_JAVA` and `JVMPI_MONITOR_RAW` records, no padding; identifiers
//! native-order, counts big-endian. The buffer is `monitor_dump.begin .. end`.
//!
//! ```
//! use jvmpi_types::dump::monitor::{self, MonitorDumpRecord};
//! use jvmpi_types::{DumpOptions, EnvId, IdOrder, IdSize, ObjectId};
//!
//! // An unowned Java monitor with one thread waiting to be notified (32-bit little-endian VM).
//! let o = DumpOptions::new(IdSize::Four, IdOrder::Little);
//! let mut buf = vec![0x01, 0xa8, 0x13, 0x6f, 0x00, 0, 0, 0, 0];
//! buf.extend_from_slice(&[0, 0, 0, 1]); // entry count (big-endian)
//! buf.extend_from_slice(&[0, 0, 0, 0]); // nobody waiting to enter
//! buf.extend_from_slice(&[0, 0, 0, 1, 0xe8, 0xa1, 0x02, 0x00]); // one waiting to be notified
//! let records = monitor::parse(&buf, o)?;
//! let MonitorDumpRecord::Java(m) = &records[0] else { unreachable!() };
//! assert_eq!(m.object, ObjectId(0x6f_13a8));
//! assert!(m.owner.is_null());
//! assert_eq!(m.waiting_to_be_notified, [EnvId(0x2_a1e8)]);
//! assert_eq!(records[0].tag().to_string(), "JVMPI_MONITOR_JAVA");
//! # Ok::<(), jvmpi_types::Error>(())
//! ```

use crate::constants::MonitorDumpTag;
use crate::cursor::{Cursor, DumpOptions, Writer};
use crate::error::{Error, Result};
use crate::ids::{EnvId, ObjectId, Pointer, RawMonitorId};

/// `JVMPI_MONITOR_JAVA`: a Java object's monitor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JavaMonitor {
    /// The object.
    pub object: ObjectId,
    /// Owning thread (NULL when unowned).
    pub owner: EnvId,
    /// Entry count (HotSpot 5.0 writes contenders + waiters here, CVM the recursion count).
    pub entry_count: u32,
    /// Threads waiting to enter.
    pub waiting_to_enter: Vec<EnvId>,
    /// Threads waiting to be notified.
    pub waiting_to_be_notified: Vec<EnvId>,
}

/// `JVMPI_MONITOR_RAW`: a raw monitor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawMonitor {
    /// The `char *` name: a pointer into the VM's memory, not a string.
    pub name: Pointer,
    /// The raw monitor.
    pub id: RawMonitorId,
    /// Owning thread (NULL when unowned).
    pub owner: EnvId,
    /// Entry count.
    pub entry_count: u32,
    /// Threads waiting to enter.
    pub waiting_to_enter: Vec<EnvId>,
    /// Threads waiting to be notified.
    pub waiting_to_be_notified: Vec<EnvId>,
}

/// One record of a monitor dump.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MonitorDumpRecord {
    /// `JVMPI_MONITOR_JAVA`.
    Java(JavaMonitor),
    /// `JVMPI_MONITOR_RAW`.
    Raw(RawMonitor),
}

fn read_threads(cur: &mut Cursor<'_>, what: &'static str) -> Result<Vec<EnvId>> {
    let n = cur.u4(what)?;
    cur.ids(u64::from(n), "JNIEnv * thread list")
}

fn write_threads(w: &mut Writer<'_>, threads: &[EnvId]) -> Result<()> {
    w.count(threads.len(), "monitor thread list")?;
    threads
        .iter()
        .try_for_each(|t| w.id(t.0, "JNIEnv * waiting thread"))
}

impl MonitorDumpRecord {
    /// The record's tag.
    #[must_use]
    pub const fn tag(&self) -> MonitorDumpTag {
        match self {
            Self::Java(_) => MonitorDumpTag::Java,
            Self::Raw(_) => MonitorDumpTag::Raw,
        }
    }

    /// Reads one record.
    pub fn read(cur: &mut Cursor<'_>) -> Result<Self> {
        let offset = cur.offset();
        let raw = cur.u1("monitor dump record tag")?;
        let tag = MonitorDumpTag::try_from(raw).map_err(|_| Error::UnknownTag {
            offset,
            context: "monitor dump",
            tag: raw,
        })?;
        Ok(match tag {
            MonitorDumpTag::Java => Self::Java(JavaMonitor {
                object: ObjectId(cur.id("monitor object id")?),
                owner: EnvId(cur.id("JNIEnv * owner")?),
                entry_count: cur.u4("u4 entry count")?,
                waiting_to_enter: read_threads(cur, "u4 number of threads waiting to enter")?,
                waiting_to_be_notified: read_threads(
                    cur,
                    "u4 number of threads waiting to be notified",
                )?,
            }),
            MonitorDumpTag::Raw => Self::Raw(RawMonitor {
                name: Pointer(cur.id("char * raw monitor name")?),
                id: RawMonitorId(cur.id("JVMPI_RawMonitor id")?),
                owner: EnvId(cur.id("JNIEnv * owner")?),
                entry_count: cur.u4("u4 entry count")?,
                waiting_to_enter: read_threads(cur, "u4 number of threads waiting to enter")?,
                waiting_to_be_notified: read_threads(
                    cur,
                    "u4 number of threads waiting to be notified",
                )?,
            }),
        })
    }

    /// Appends this record.
    pub fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u1(self.tag().raw());
        let (owner, entry_count, enter, notify) = match self {
            Self::Java(m) => {
                w.id(m.object.0, "monitor object id")?;
                (
                    m.owner,
                    m.entry_count,
                    &m.waiting_to_enter,
                    &m.waiting_to_be_notified,
                )
            }
            Self::Raw(m) => {
                w.id(m.name.0, "char * raw monitor name")?;
                w.id(m.id.0, "JVMPI_RawMonitor id")?;
                (
                    m.owner,
                    m.entry_count,
                    &m.waiting_to_enter,
                    &m.waiting_to_be_notified,
                )
            }
        };
        w.id(owner.0, "JNIEnv * owner")?;
        w.u4(entry_count);
        write_threads(w, enter)?;
        write_threads(w, notify)
    }
}

/// Lazy, fallible iterator over the records of a monitor dump.
#[derive(Debug, Clone)]
pub struct MonitorDumpRecords<'a> {
    cur: Cursor<'a>,
    failed: bool,
}

impl<'a> MonitorDumpRecords<'a> {
    /// Records of the buffer `data`.
    #[must_use]
    pub const fn new(data: &'a [u8], options: DumpOptions) -> Self {
        Self {
            cur: Cursor::new(data, options),
            failed: false,
        }
    }

    /// Byte offset of the next record.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.cur.offset()
    }

    /// The next record, `Ok(None)` at the end of the buffer.
    pub fn next_record(&mut self) -> Result<Option<MonitorDumpRecord>> {
        if self.failed || self.cur.is_empty() {
            return Ok(None);
        }
        MonitorDumpRecord::read(&mut self.cur)
            .map(Some)
            .inspect_err(|_| self.failed = true)
    }
}

impl Iterator for MonitorDumpRecords<'_> {
    type Item = Result<MonitorDumpRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Decodes a whole monitor dump.
pub fn parse(data: &[u8], options: DumpOptions) -> Result<Vec<MonitorDumpRecord>> {
    MonitorDumpRecords::new(data, options).collect()
}

/// Encodes a monitor dump, appending to `out`.
pub fn write(records: &[MonitorDumpRecord], options: DumpOptions, out: &mut Vec<u8>) -> Result<()> {
    let mut w = Writer::new(out, options);
    records.iter().try_for_each(|r| r.write(&mut w))
}
