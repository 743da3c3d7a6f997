//! `overview`: one `prusage` record per sample point; sample *i* is the difference between
//! records *i−1* and *i* (spec: "サンプリングデータ"; format notes §6, gprofng `PrUsage::bind32/64`).

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};
use crate::log::SampleEvent;

/// One `prusage` record (times in ns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PrUsage {
    /// `pr_lwpid` (the pid on Linux).
    pub lwpid: i32,
    /// `pr_count`.
    pub count: i32,
    /// `pr_tstamp`: when the record was taken (absolute hrtime).
    pub tstamp: u64,
    /// `pr_create`.
    pub create: u64,
    /// `pr_term`.
    pub term: u64,
    /// `pr_rtime`: elapsed real time.
    pub rtime: u64,
    /// `pr_utime`: user CPU.
    pub utime: u64,
    /// `pr_stime`: system CPU.
    pub stime: u64,
    /// `pr_ttime`: trap time.
    pub ttime: u64,
    /// `pr_tftime`: text page fault time.
    pub tftime: u64,
    /// `pr_dftime`: data page fault time.
    pub dftime: u64,
    /// `pr_kftime`: kernel page fault time.
    pub kftime: u64,
    /// `pr_ltime`: user lock wait.
    pub ltime: u64,
    /// `pr_slptime`: sleep time.
    pub slptime: u64,
    /// `pr_wtime`: CPU latency (wait) time.
    pub wtime: u64,
    /// `pr_stoptime`: stopped time.
    pub stoptime: u64,
    /// `pr_minf`: minor faults.
    pub minf: u64,
    /// `pr_majf`: major faults.
    pub majf: u64,
    /// `pr_nswap`: swaps.
    pub nswap: u64,
    /// `pr_inblk`: input blocks.
    pub inblk: u64,
    /// `pr_oublk`: output blocks.
    pub oublk: u64,
    /// `pr_msnd`: messages sent.
    pub msnd: u64,
    /// `pr_mrcv`: messages received.
    pub mrcv: u64,
    /// `pr_sigs`: signals.
    pub sigs: u64,
    /// `pr_vctx`: voluntary context switches.
    pub vctx: u64,
    /// `pr_ictx`: involuntary context switches.
    pub ictx: u64,
    /// `pr_sysc`: system calls.
    pub sysc: u64,
    /// `pr_ioch`: characters read and written.
    pub ioch: u64,
}

/// Size of one record: 504 bytes (64-bit) or 256 bytes (32-bit).
pub fn record_size(word: WordSize) -> usize {
    match word {
        WordSize::W64 => 504,
        WordSize::W32 => 256,
    }
}

fn time(c: &mut Cursor<'_>) -> Result<u64> {
    let sec = c.word("timestruc seconds")?;
    let nsec = c.word("timestruc nanoseconds")?;
    Ok(sec.wrapping_mul(1_000_000_000).wrapping_add(nsec))
}

/// Parses every record; a trailing partial record is an error (gprofng: "overview data file
/// can't be read").
pub fn parse(data: &[u8], endian: Endian, word: WordSize) -> Result<Vec<PrUsage>> {
    let size = record_size(word);
    if data.len() % size != 0 {
        return Err(Error::Invalid {
            what: "overview",
            offset: (data.len() - data.len() % size) as u64,
            expected: format!("a whole number of {size}-byte records"),
            found: format!("{} bytes", data.len()),
        });
    }
    let mut out = Vec::with_capacity(data.len() / size);
    let mut c = Cursor::new(data, 0, endian, word);
    while !c.is_empty() {
        let mut u = PrUsage {
            lwpid: c.u32("pr_lwpid")? as i32,
            count: c.u32("pr_count")? as i32,
            ..PrUsage::default()
        };
        let times = [
            &mut u.tstamp,
            &mut u.create,
            &mut u.term,
            &mut u.rtime,
            &mut u.utime,
            &mut u.stime,
            &mut u.ttime,
            &mut u.tftime,
            &mut u.dftime,
            &mut u.kftime,
            &mut u.ltime,
            &mut u.slptime,
            &mut u.wtime,
            &mut u.stoptime,
        ];
        for t in times {
            *t = time(&mut c)?;
        }
        for _ in 0..6 {
            time(&mut c)?;
        }
        let counts = [
            &mut u.minf,
            &mut u.majf,
            &mut u.nswap,
            &mut u.inblk,
            &mut u.oublk,
            &mut u.msnd,
            &mut u.mrcv,
            &mut u.sigs,
            &mut u.vctx,
            &mut u.ictx,
            &mut u.sysc,
            &mut u.ioch,
        ];
        for n in counts {
            *n = c.word("prusage counter")?;
        }
        for _ in 0..10 {
            c.word("prusage filler")?;
        }
        out.push(u);
    }
    Ok(out)
}

/// A sample: the interval between two overview records.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sample {
    /// 1-based sample number.
    pub number: usize,
    /// Label from log.xml (`<unknown>` when missing).
    pub label: String,
    /// Start (exclusive), absolute hrtime ns.
    pub start: u64,
    /// End (inclusive), absolute hrtime ns.
    pub end: u64,
    /// User CPU in the interval, ns.
    pub user_ns: u64,
    /// System CPU in the interval, ns.
    pub system_ns: u64,
    /// Real time in the interval, ns.
    pub real_ns: u64,
}

/// Pairs consecutive records into samples, labelled by the log's sample events (sample *i*
/// takes the label of the event with id *i*).
pub fn samples(records: &[PrUsage], events: &[SampleEvent]) -> Vec<Sample> {
    records
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| {
            let [a, b] = w else { return None };
            let number = i + 1;
            let label = events
                .iter()
                .find(|e| e.id == number as u64)
                .map_or_else(|| "<unknown>".to_owned(), |e| e.label.clone());
            Some(Sample {
                number,
                label,
                start: a.tstamp,
                end: b.tstamp,
                user_ns: b.utime.saturating_sub(a.utime),
                system_ns: b.stime.saturating_sub(a.stime),
                real_ns: b.rtime.saturating_sub(a.rtime),
            })
        })
        .collect()
}
