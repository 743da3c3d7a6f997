"""Runs one of columnar/sql/*.sql on Spark SQL (local mode) over a to-parquet folder.

usage: python3 spark_sql.py OUTDIR QUERY.sql [CLASS]

DuckDB's `read_parquet('OUT/<table>/*.parquet')` becomes Spark's parquet.`OUT/<table>`; the
rows are printed as comma-separated values, one per line.
"""
import re
import sys

from pyspark.sql import SparkSession

out, query = sys.argv[1], sys.argv[2]
cls = sys.argv[3] if len(sys.argv) > 3 else ""
sql = open(query).read()
sql = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
sql = re.sub(r"read_parquet\('OUT/(\w+)/\*\.parquet'\)", lambda m: f"parquet.`{out}/{m.group(1)}`", sql)
sql = sql.replace("CLASS", cls).strip().rstrip(";")

spark = (
    SparkSession.builder.master("local[1]")
    .appName("jvmprof-columnar")
    .config("spark.ui.enabled", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
for row in spark.sql(sql).collect():
    print(",".join(str(v) for v in row))
spark.stop()
