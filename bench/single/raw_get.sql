\set i random(1, :n)
SELECT * FROM raw WHERE pk = 'p' || (:i % 100) AND rk = lpad(:i::text, 8, '0');
