\set p random(0, :n / 1000 - 1)
\set r random(0, 899)
SELECT pk, rk, ts, etag, doc FROM raw_main WHERE pk = cmp_pk(:p * 1000) AND rk >= cmp_rk(:r) AND rk < cmp_rk(:r + 100) ORDER BY pk, rk;
