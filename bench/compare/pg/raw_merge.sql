\set i random(0, :n - 1)
\set v random(1, 1000000)
UPDATE raw_main SET (ts, etag, doc) = (SELECT t, cmp_etag(t), doc || format('{"Score":%s}', :v::int)::jsonb FROM clock_timestamp() t)
WHERE pk = cmp_pk(:i) AND rk = cmp_rk(:i);
