\set i random(1, :n)
SELECT * FROM tablestore.get_entity('bench', 'p' || (:i % 100), lpad(:i::text, 8, '0'));
