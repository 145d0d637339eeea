\set i random(0, 9999)
SELECT * FROM tablestore.get_entity('Soak', 'p' || lpad((:i % 100)::text, 2, '0'), lpad(:i::text, 6, '0'));
