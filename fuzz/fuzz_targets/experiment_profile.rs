//! Fuzzes named stacks and function profiles: a real experiment (the `heap` fixture's log.xml,
//! with a clock descriptor added) whose data.frameinfo, map.xml, heaptrace, profile and archived
//! load object all come from the input (split at 0xFA bytes), symbolized and
//! profiled end to end (`Symbolizer`, `StackProfile::collect`, function table, folded stacks).
#![no_main]
use experiment::profile::{FunctionTable, Metric, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, MemorySource};
use libfuzzer_sys::fuzz_target;

const LOG: &str = r#"<experiment version="12.4"><collector>2.40.00</collector></experiment>
<system hostname="vm" arch="x86_64" pagesz="4096"/>
<process wsize="64" pid="1"></process>
<event kind="run" tstamp="100.000000000"/>
<profile name="profile" ptimer="10007" numstates="1">
  <profdata fname="profile"/>
  <profpckt kind="8" uname="Clock profiling data">
    <field name="THRID" offset="16" type="INT64"/>
    <field name="TSTAMP" offset="28" type="INT64"/>
    <field name="FRINFO" offset="36" type="INT64"/>
    <field name="NTICK" offset="48" type="INT32"/>
  </profpckt>
</profile>
<profile name="heaptrace">
  <profdata fname="heaptrace"/>
  <profpckt kind="5" uname="Heap tracing data">
    <field name="TSTAMP" offset="32" type="INT64"/>
    <field name="FRINFO" offset="40" type="INT64"/>
    <field name="HTYPE" offset="48" type="INT32"/>
    <field name="HSIZE" offset="56" type="UINT64"/>
    <field name="HVADDR" offset="64" type="UINT64"/>
    <field name="HOVADDR" offset="72" type="UINT64"/>
  </profpckt>
</profile>
<event kind="exit" tstamp="1.000000000"/>"#;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xFA).map(<[u8]>::to_vec);
    let mut next = || parts.next().unwrap_or_default();
    let (frameinfo, map, heap, clock, object) = (next(), next(), next(), next(), next());
    let src = MemorySource::new()
        .with("log.xml", LOG.as_bytes().to_vec())
        .with("data.frameinfo", frameinfo)
        .with("map.xml", map)
        .with("heaptrace", heap)
        .with("profile", clock);
    let Ok(exp) = Experiment::open(src) else {
        return;
    };
    let _ = exp.truncations();
    let object = experiment::bytes::Bytes::from(object);
    let symbols = Symbolizer::new(&exp).with_load_objects(move |_| Some(object.clone()));
    if let Ok(p) = StackProfile::collect(&exp, symbols, None) {
        let t = p.function_table();
        let columns = t.default_columns();
        let _ = t.rows(&columns, FunctionTable::sort_column(&columns));
        let _ = p.folded(Metric::TotalCpu);
        let _ = p.folded(Metric::HeapLeakBytes);
    }
});
