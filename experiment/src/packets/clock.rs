//! Clock profiling packets (`OPROF_PCKT` 8; `ClockPacket` in profile.c): MSTATE and NTICK
//! (format notes §3).

use super::{Common, K_MSTATE, K_NTICK, Layout, RawPacket, opt};
use crate::cursor::Endian;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Thread microstates (`LMS_*`), the values of `MSTATE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MicroState {
    /// 0 `USER`.
    User,
    /// 1 `SYSTEM`.
    System,
    /// 2 `TRAP`.
    Trap,
    /// 3 `TFAULT`.
    TextFault,
    /// 4 `DFAULT`.
    DataFault,
    /// 5 `KFAULT`.
    KernelFault,
    /// 6 `USER_LOCK`.
    UserLock,
    /// 7 `SLEEP`.
    Sleep,
    /// 8 `WAIT_CPU`.
    WaitCpu,
    /// 9 `STOPPED`.
    Stopped,
    /// 10 `LINUX_CPU`.
    LinuxCpu,
    /// 11 `KERNEL_CPU`.
    KernelCpu,
    /// Any other value.
    Other(u32),
}

impl MicroState {
    /// The state with value `v`.
    pub fn from_value(v: u32) -> Self {
        use MicroState::*;
        match v {
            0 => User,
            1 => System,
            2 => Trap,
            3 => TextFault,
            4 => DataFault,
            5 => KernelFault,
            6 => UserLock,
            7 => Sleep,
            8 => WaitCpu,
            9 => Stopped,
            10 => LinuxCpu,
            11 => KernelCpu,
            o => Other(o),
        }
    }

    /// gprofng's name (`LINUX_CPU`, …).
    pub fn name(self) -> &'static str {
        use MicroState::*;
        match self {
            User => "USER",
            System => "SYSTEM",
            Trap => "TRAP",
            TextFault => "TFAULT",
            DataFault => "DFAULT",
            KernelFault => "KFAULT",
            UserLock => "USER_LOCK",
            Sleep => "SLEEP",
            WaitCpu => "WAIT_CPU",
            Stopped => "STOPPED",
            LinuxCpu => "LINUX_CPU",
            KernelCpu => "KERNEL_CPU",
            Other(_) => "UNKNOWN",
        }
    }
}

/// A clock profiling tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockPacket {
    /// Common fields.
    pub common: Common,
    /// `MSTATE`.
    pub mstate: MicroState,
    /// `NTICK`: profiling intervals (`ptimer` µs each) spent in that state.
    pub nticks: u32,
}

impl ClockPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        layout.check(p)?;
        Ok(ClockPacket {
            common: layout.common_unchecked(p, e),
            mstate: MicroState::from_value(opt(layout.known(K_MSTATE), p, e) as u32),
            nticks: opt(layout.known(K_NTICK), p, e) as u32,
        })
    }
}
