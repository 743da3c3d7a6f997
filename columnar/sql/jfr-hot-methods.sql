-- The methods on top of the most execution samples (jdk.ExecutionSample), as
-- `jfr print --events jdk.ExecutionSample` shows their first frame: class, method, samples.
SELECT f.class, f.method, count(*) AS samples
FROM read_parquet('OUT/jdk_ExecutionSample/*.parquet') s
JOIN read_parquet('OUT/stack_frames/*.parquet') f ON f.stack_id = s.stackTrace AND f.depth = 0
GROUP BY f.class, f.method
ORDER BY samples DESC, f.class, f.method;
