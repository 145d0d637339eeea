\set i random(1, :n)
\set v random(1, 100000)
SELECT tablestore.merge_entity('bench', score_entity_text('p' || (:i % 100), lpad(:i::text, 8, '0'), :v)::tablestore.entity);
