\set i random(0, :n - 1)
\set v random(1, 1000000)
UPDATE raw_main SET doc = doc || format('{"Score":%s}', :v::int)::jsonb WHERE pk = cmp_pk(:i) AND rk = cmp_rk(:i);
