//! Fuzzes the data-file reader: block walking and decoding every packet through log.xml field
//! descriptors (typed views and by-name records). The input is `[u16 log length][log.xml][data]`;
//! when the log part does not parse, a built-in log describing every known kind is used.
#![no_main]
use experiment::log::Log;
use experiment::packets::Packets;
use experiment::summary::heap_summary;
use experiment::{DataFile, cursor::Endian};
use libfuzzer_sys::fuzz_target;

const LOG: &str = r#"<experiment version="12.4"></experiment><system arch="x86_64"/>
<profile name="profile"><profdata fname="d"/><profpckt kind="8">
<field name="LWPID" offset="8" type="INT64"/><field name="THRID" offset="16" type="INT64"/>
<field name="CPUID" offset="24" type="INT32"/><field name="TSTAMP" offset="28" type="INT64"/>
<field name="FRINFO" offset="36" type="INT64"/><field name="MSTATE" offset="44" type="INT32"/>
<field name="NTICK" offset="48" type="INT32"/></profpckt></profile>
<profile name="heaptrace"><profdata fname="d"/><profpckt kind="5">
<field name="TSTAMP" offset="32" type="INT64"/><field name="HTYPE" offset="48" type="INT32"/>
<field name="HSIZE" offset="56" type="UINT64"/><field name="HVADDR" offset="64" type="UINT64"/>
<field name="HOVADDR" offset="72" type="UINT64"/></profpckt></profile>
<profile name="synctrace"><profdata fname="d"/><profpckt kind="2">
<field name="TSTAMP" offset="32" type="INT64"/><field name="SRQST" offset="48" type="UINT64"/>
<field name="SOBJ" offset="56" type="UINT64"/></profpckt></profile>
<profile name="iotrace"><profdata fname="d"/><profpckt kind="19">
<field name="IOTYPE" offset="48" type="INT32"/><field name="IONBYTE" offset="56" type="INT64"/>
<field name="IOFNAME" offset="80" type="STRING"/></profpckt></profile>
<profile name="hwcounter"><profdata fname="d"/><profpckt kind="3">
<field name="HWCTAG" offset="48" type="UINT32"/><field name="HWCINT" offset="56" type="UINT64"/>
<field name="X" offset="4" type="DOUBLE"/><field name="Y" offset="60000" type="INT64"/></profpckt></profile>"#;

fuzz_target!(|data: &[u8]| {
    let (log, rest) = match data {
        [a, b, rest @ ..] => {
            let n = usize::from(u16::from_le_bytes([*a, *b]));
            match rest.get(..n).map(Log::parse) {
                Some(Ok(log)) => (log, rest.get(n..).unwrap_or_default()),
                _ => (Log::parse(LOG.as_bytes()).unwrap_or_default(), rest),
            }
        }
        _ => return,
    };
    let files: Vec<String> = std::iter::once("d".to_owned())
        .chain(log.data_files())
        .collect();
    for name in files {
        let file = DataFile::new(&name, bytes::Bytes::copy_from_slice(rest), &log);
        let mut heap = Vec::new();
        for p in file.packets().flatten() {
            if let Ok(experiment::packets::TypedPacket::Heap(h)) = p.typed() {
                heap.push(h);
            }
            let _ = p.packet.record();
        }
        let _ = heap_summary(&heap);
    }
    for e in [Endian::Little, Endian::Big] {
        let _ = Packets::new(rest, e).count();
    }
});
