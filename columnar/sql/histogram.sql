-- The class histogram, as the hprof `histogram` example prints it (OUT: the export folder).
SELECT coalesce(c.name, o.element_type || '[]') AS class,
       count(*) AS instances,
       sum(o.shallow_size) AS shallow_bytes
FROM read_parquet('OUT/objects/*.parquet') o
LEFT JOIN read_parquet('OUT/classes/*.parquet') c ON o.class_id = c.class_id
WHERE o.kind <> 'class'
GROUP BY class
ORDER BY instances DESC, class;
