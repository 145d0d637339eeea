\set i random(0, :n - 1)
SELECT * FROM tablestore.get_entity(:t, format('p%s', lpad((:i / 1000)::text, 5, '0')), lpad((:i % 1000)::text, 6, '0'));
