-- Which classes' objects hold references to instances of CLASS, and through which field.
SELECT coalesce(fc.name, f.element_type || '[]') AS referrer_class,
       coalesce(r.field, '[]') AS field,
       count(*) AS reference_count
FROM read_parquet('OUT/references/*.parquet') r
JOIN read_parquet('OUT/objects/*.parquet') t ON t.id = r.to_id
JOIN read_parquet('OUT/classes/*.parquet') tc ON tc.class_id = t.class_id
JOIN read_parquet('OUT/objects/*.parquet') f ON f.id = r.from_id
LEFT JOIN read_parquet('OUT/classes/*.parquet') fc ON fc.class_id = f.class_id
WHERE tc.name = 'CLASS' AND t.kind = 'instance'
GROUP BY referrer_class, field
ORDER BY reference_count DESC, referrer_class, field
LIMIT 20;
