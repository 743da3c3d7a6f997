-- Sampled allocation weight (jdk.ObjectAllocationSample) per allocated class: class, samples,
-- bytes.
SELECT objectClass_name AS class, count(*) AS samples, sum(weight) AS bytes
FROM read_parquet('OUT/jdk_ObjectAllocationSample/*.parquet')
GROUP BY objectClass_name
ORDER BY bytes DESC, class;
