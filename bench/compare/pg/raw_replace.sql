\set i random(0, :n - 1)
UPDATE raw_main SET doc = cmp_doc(:i)::jsonb WHERE pk = cmp_pk(:i) AND rk = cmp_rk(:i);
