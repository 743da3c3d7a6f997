//! Clock profiling packets (`OPROF_PCKT` 8; `ClockPacket` in profile.c): MSTATE and NTICK
//! (format notes §3); and the old (Sun Studio 12, `PROF_PCKT` 1) packets holding the
//! profile-interval counts of all ten Solaris microstates (spec: "時間ベースのプロファイリング").

use super::blocks::RawPacket;
use super::layout::{Common, K_MSTATE, K_NTICK, K_UCPU, Layout, opt};
use crate::cursor::Endian;
use crate::error::Result;

/// Thread microstates (`LMS_*`), the values of `MSTATE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// The number of Solaris microstates an old clock packet counts (`USER` to `STOPPED`).
pub const SOLARIS_MICROSTATES: usize = 10;

/// A clock profiling tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClockPacket {
    /// Common fields.
    pub common: Common,
    /// `MSTATE` (`USER` for an old packet, whose states are in `microstates`).
    pub mstate: MicroState,
    /// `NTICK`: profiling intervals (`ptimer` µs each) spent in that state; for an old packet,
    /// the sum of its counters.
    pub nticks: u32,
    /// An old (SS12) packet's counters `UCPU`, `SCPU`, `TRAP`, `TFLT`, `DFLT`, `KFLT`, `ULCK`,
    /// `TSLP`, `WCPU`, `TSTP`: the intervals spent in each microstate, in [`MicroState`] order,
    /// since the thread last entered user mode. `None` for gprofng packets.
    pub microstates: Option<[u32; SOLARIS_MICROSTATES]>,
}

impl ClockPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        layout.check(p)?;
        let common = layout.common_unchecked(p, e);
        if layout.known(K_UCPU).is_some() {
            let counts: [u32; SOLARIS_MICROSTATES] =
                std::array::from_fn(|i| opt(layout.known(K_UCPU + i), p, e) as u32);
            return Ok(ClockPacket {
                common,
                mstate: MicroState::User,
                nticks: counts.iter().fold(0u32, |sum, &n| sum.saturating_add(n)),
                microstates: Some(counts),
            });
        }
        Ok(ClockPacket {
            common,
            mstate: MicroState::from_value(opt(layout.known(K_MSTATE), p, e) as u32),
            nticks: opt(layout.known(K_NTICK), p, e) as u32,
            microstates: None,
        })
    }

    /// The ticks as gprofng records them: the one `(MSTATE, NTICK)` of a gprofng packet, or
    /// one `(state, count)` per non-zero counter of an old packet (`readPacket`'s
    /// `PROP_UCPU + i` loop).
    pub fn ticks(&self) -> impl Iterator<Item = (MicroState, u32)> + '_ {
        let (single, states) = match &self.microstates {
            None => (Some((self.mstate, self.nticks)), None),
            Some(counts) => (None, Some(counts)),
        };
        let states = states.into_iter().flat_map(|counts| {
            counts
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n != 0)
                .map(|(i, &n)| (MicroState::from_value(i as u32), n))
        });
        single.into_iter().chain(states)
    }
}
