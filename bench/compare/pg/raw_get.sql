\set i random(0, :n - 1)
SELECT pk, rk, ts, etag, doc FROM raw_main WHERE pk = cmp_pk(:i) AND rk = cmp_rk(:i);
