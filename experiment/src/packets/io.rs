//! I/O tracing packets (`IOTRACE_PCKT` 19; iotrace.c): IOTYPE, IOFD, IONBYTE, IORQST, IOOFD,
//! IOFSTYPE and the variable-length IOFNAME (format notes §3).

use super::blocks::RawPacket;
use super::layout::{
    Common, K_IOFD, K_IOFSTYPE, K_IONBYTE, K_IOOFD, K_IORQST, K_IOTYPE, Layout, opt,
};
use crate::cursor::Endian;
use crate::error::Result;

/// `IOTrace_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IoType {
    /// 0 `READ`.
    Read,
    /// 1 `WRITE`.
    Write,
    /// 2 `OPEN`.
    Open,
    /// 3 `CLOSE`.
    Close,
    /// 4 `OTHERIO`.
    OtherIo,
    /// 5 `READERROR`.
    ReadError,
    /// 6 `WRITEERROR`.
    WriteError,
    /// 7 `OPENERROR`.
    OpenError,
    /// 8 `CLOSEERROR`.
    CloseError,
    /// 9 `OTHERIOERROR`.
    OtherIoError,
    /// Any other value.
    Other(i32),
}

impl IoType {
    /// The type with value `v`.
    pub fn from_value(v: i32) -> Self {
        use IoType::*;
        match v {
            0 => Read,
            1 => Write,
            2 => Open,
            3 => Close,
            4 => OtherIo,
            5 => ReadError,
            6 => WriteError,
            7 => OpenError,
            8 => CloseError,
            9 => OtherIoError,
            o => Other(o),
        }
    }
}

/// An I/O call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IoPacket {
    /// Common fields (`tstamp` = call end).
    pub common: Common,
    /// `IOTYPE`.
    pub io_type: IoType,
    /// `IOFD`.
    pub fd: i32,
    /// `IONBYTE`: bytes read or written.
    pub nbytes: u64,
    /// `IORQST`: call start (absolute ns).
    pub request: u64,
    /// `IOOFD`: original fd.
    pub ofd: i32,
    /// `IOFSTYPE`: file system type.
    pub fs_type: i32,
    /// `IOFNAME`: file name (open, errors), if recorded.
    pub file_name: Option<String>,
}

impl IoPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        layout.check(p)?;
        let file_name = match &layout.string {
            Some((_, off)) => p.bytes.get(*off..).and_then(|s| {
                let len = s.iter().position(|&b| b == 0).unwrap_or(s.len());
                (len > 0)
                    .then(|| String::from_utf8_lossy(s.get(..len).unwrap_or_default()).into_owned())
            }),
            None => None,
        };
        Ok(IoPacket {
            common: layout.common_unchecked(p, e),
            io_type: IoType::from_value(opt(layout.known(K_IOTYPE), p, e) as i32),
            fd: opt(layout.known(K_IOFD), p, e) as i32,
            nbytes: opt(layout.known(K_IONBYTE), p, e),
            request: opt(layout.known(K_IORQST), p, e),
            ofd: opt(layout.known(K_IOOFD), p, e) as i32,
            fs_type: opt(layout.known(K_IOFSTYPE), p, e) as i32,
            file_name,
        })
    }
}
