\set i random(1, :n)
\set v random(1, 100000)
UPDATE raw SET doc = doc || score_doc_text(:v)::jsonb WHERE pk = 'p' || (:i % 100) AND rk = lpad(:i::text, 8, '0');
