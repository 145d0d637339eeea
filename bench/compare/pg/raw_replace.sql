\set i random(0, :n - 1)
UPDATE raw_main SET (ts, etag, doc) = (SELECT t, cmp_etag(t), cmp_doc(:i)::jsonb FROM clock_timestamp() t)
WHERE pk = cmp_pk(:i) AND rk = cmp_rk(:i);
