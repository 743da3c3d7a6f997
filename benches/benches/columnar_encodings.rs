//! Benchmark for the Parquet encodings `columnar::ParquetSink` picks: each column of a dump's
//! `objects` and `references` tables (as `columnar::hprof::export` builds them) written alone
//! with the `parquet` crate's `ArrowWriter` under each encoding: `plain` (uncompressed),
//! `plain_zstd` (level 1), `delta` (`DELTA_BINARY_PACKED`, integer columns) and `dictionary`
//! (`RLE_DICTIONARY`). The sink uses `delta` for integer columns but `class_id`, and
//! `plain_zstd` for `class_id` and strings. Prints each variant's output size once.
//!
//! The dump is hprof/tests/data/binary/heapgen_jdk17.hprof, or the file `COLUMNAR_DUMP` names
//! (the 1.25 GB dump of `benches/columnar-peers.sh` gives the figures in benches/README.md).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stderr
)]
use std::sync::Arc;

use columnar::arrow_array::{ArrayRef, RecordBatch};
use columnar::arrow_schema::{Field, Schema};
use columnar::parquet::arrow::ArrowWriter;
use columnar::parquet::basic::{Compression, Encoding, ZstdLevel};
use columnar::parquet::file::properties::{EnabledStatistics, WriterProperties};
use criterion::{Criterion, Throughput};

/// The encodings compared, by name.
fn encodings(integer: bool) -> Vec<(&'static str, WriterProperties)> {
    let base = || {
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_encoding(Encoding::PLAIN)
            .set_compression(Compression::UNCOMPRESSED)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_write_batch_size(8192)
    };
    let mut e = vec![
        ("plain", base().build()),
        (
            "plain_zstd",
            base()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .build(),
        ),
        ("dictionary", base().set_dictionary_enabled(true).build()),
    ];
    if integer {
        e.push((
            "delta",
            base().set_encoding(Encoding::DELTA_BINARY_PACKED).build(),
        ));
    }
    e
}

fn write(schema: &Arc<Schema>, columns: &[ArrayRef], props: &WriterProperties) -> usize {
    let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone())).unwrap();
    for c in columns {
        w.write(&RecordBatch::try_new(schema.clone(), vec![c.clone()]).unwrap())
            .unwrap();
    }
    w.into_inner().unwrap().len()
}

fn bench(c: &mut Criterion) {
    let path = std::env::var_os("COLUMNAR_DUMP").map_or_else(
        || benches::repo_root().join("hprof/tests/data/binary/heapgen_jdk17.hprof"),
        std::path::PathBuf::from,
    );
    let data = std::fs::read(&path).unwrap();
    let mut sink = columnar::MemorySink::new();
    columnar::hprof::export(&data, &mut sink, &mut |_| {}).unwrap();
    drop(data);
    for table in ["objects", "references"] {
        let (schema, batches) = &sink.tables[table];
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        for (i, field) in schema.fields().iter().enumerate() {
            let columns: Vec<ArrayRef> = batches.iter().map(|b| b.column(i).clone()).collect();
            let one = Arc::new(Schema::new(vec![Field::clone(field)]));
            let mut g = c.benchmark_group(format!("columnar_encodings/{table}.{}", field.name()));
            g.throughput(Throughput::Elements(rows as u64));
            g.sample_size(10);
            for (name, props) in encodings(field.data_type().is_integer()) {
                let bytes = write(&one, &columns, &props);
                eprintln!("{table}.{} {name}: {bytes} bytes", field.name());
                g.bench_function(name, |b| b.iter(|| write(&one, &columns, &props)));
            }
            g.finish();
        }
    }
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
