-- entity_binary: the binary wire form (send/recv, binary COPY) round-trips, and malformed binary
-- input is rejected as strictly as malformed text.
SET search_path = tablestore, public;

CREATE TABLE binary_src (id int PRIMARY KEY, e tablestore.entity);
INSERT INTO binary_src VALUES
	(1, '{}'),
	(2, '{"PartitionKey":"Sales","RowKey":"00010","Name":"Ken Kwok","Age":23,"Score":12.5,"Active":true}'),
	(3, '{"v":"9223372036854775807","v@odata.type":"Edm.Int64","w":"-9223372036854775808","w@odata.type":"Edm.Int64"}'),
	(4, '{"n":"NaN","n@odata.type":"Edm.Double","p":"Infinity","p@odata.type":"Edm.Double","m":"-Infinity","m@odata.type":"Edm.Double","z":-0.0,"o":1.0}'),
	(5, '{"a":"1601-01-01T00:00:00Z","a@odata.type":"Edm.DateTime","b":"9999-12-31T23:59:59.9999999Z","b@odata.type":"Edm.DateTime"}'),
	(6, '{"g":"68260b3f-beab-45e2-b900-33e2b442e724","g@odata.type":"Edm.Guid","x":"AAEC","x@odata.type":"Edm.Binary","e":"","e@odata.type":"Edm.Binary"}'),
	(7, '{"s":"nul\u0000😀 Grüße","t":""}'),
	(8, '{"PartitionKey":"","RowKey":""}'),
	-- written out of name order (an order array), with keys between the properties
	(9, '{"z":1,"RowKey":"r","y":"2","PartitionKey":"p","x":3.5,"w":true}');
INSERT INTO binary_src SELECT 100 + i, format('{"RowKey":"%s","n":%s,"s":"%s"}', i, i, repeat('x', i * 10))::entity
FROM generate_series(1, 200) i;
-- a large value (TOASTed and compressed on disk)
INSERT INTO binary_src SELECT 999, format('{"big":"%s"}', repeat('abcdefgh', 4000))::entity;

-- send -> recv through SQL
SELECT id FROM binary_src WHERE entity_from_binary(entity_to_binary(e)) <> e OR
	entity_from_binary(entity_to_binary(e))::text <> e::text;
SELECT entity_to_binary('{"a":1}') AS wire_form_of_a_1;

-- Binary COPY out and in gives identical values (the files land in the data directory)
SELECT current_setting('data_directory') || '/tablestore_regress_binary.copy' AS binfile,
	   current_setting('data_directory') || '/tablestore_regress_text.copy' AS textfile \gset
COPY binary_src TO :'binfile' WITH (FORMAT binary);
CREATE TABLE binary_dst (LIKE binary_src);
COPY binary_dst FROM :'binfile' WITH (FORMAT binary);
SELECT count(*) AS copied,
	   count(*) FILTER (WHERE s.e = d.e AND s.e::text = d.e::text
		AND entity_to_binary(s.e) = entity_to_binary(d.e)) AS identical
FROM binary_src s JOIN binary_dst d USING (id);
-- and text COPY too
COPY binary_src TO :'textfile';
TRUNCATE binary_dst;
COPY binary_dst FROM :'textfile';
SELECT count(*) FILTER (WHERE s.e = d.e) AS identical_text_copy FROM binary_src s JOIN binary_dst d USING (id);

-- Malformed binary input: start from a valid encoding and break one thing at a time.
\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- '{"a":1}' is 01 00 0100 | 00000000 0100 02 00 | 61 01000000
SELECT n, label, pg_temp.try(format('SELECT tablestore.entity_from_binary(%L::bytea)::text', b)) FROM (VALUES
	(1, 'valid', '\x010001000000000001000200' || '\x6101000000'::bytea),
	(2, 'empty', '\x'::bytea),
	(3, 'too short', '\x0100'::bytea),
	(4, 'version 2', '\x02000000'::bytea),
	(5, 'version 0', '\x00000000'::bytea),
	(6, 'unknown flag', '\x01100000'::bytea),
	(7, '253 properties', '\x0100fd00'::bytea),
	(8, 'truncated directory', '\x01000100000000'::bytea),
	(9, 'offset out of place', '\x010001000100000001000200' || '\x6101000000'::bytea),
	(10, 'name length too long', '\x010001000000000009000200' || '\x6101000000'::bytea),
	(11, 'type 0', '\x010001000000000001000000' || '\x6101000000'::bytea),
	(12, 'type 9', '\x010001000000000001000900' || '\x6101000000'::bytea),
	(13, 'nonzero reserved byte', '\x010001000000000001000201' || '\x6101000000'::bytea),
	(14, 'Int32 of 3 bytes', '\x010001000000000001000200' || '\x61010000'::bytea),
	(15, 'trailing byte', '\x01000000ff'::bytea),
	(16, 'Boolean 2', '\x010001000000000001000500' || '\x6102'::bytea),
	(17, 'name 1a', '\x010001000000000002000200' || '\x316101000000'::bytea),
	(18, 'reserved name', '\x010001000000000006000200' || '\x526f774b657901000000'::bytea),
	(19, 'invalid UTF-8 name', '\x010001000000000001000200' || '\xff01000000'::bytea),
	(20, 'invalid UTF-8 String', '\x010001000000000001000100' || '\x61c328'::bytea),
	(21, 'surrogate in String', '\x010001000000000001000100' || '\x61eda080'::bytea),
	(22, 'overlong UTF-8', '\x010001000000000001000100' || '\x61c0af'::bytea),
	(23, 'DateTime out of range', '\x010001000000000001000600' || '\x610000000000000000'::bytea),
	(24, 'non-canonical NaN', '\x010001000000000001000400' || '\x61010000000000f87f'::bytea),
	(25, 'canonical NaN', '\x010001000000000001000400' || '\x61000000000000f87f'::bytea),
	(26, 'unsorted names', '\x010002000000000001000200' || '\x050000000100020062010000006101000000'::bytea),
	(27, 'duplicate names', '\x010002000000000001000200' || '\x050000000100020061010000006101000000'::bytea),
	(28, 'key length without flag', '\x01010000010001006162'::bytea),
	(29, 'key with slash', '\x01010000010000002f'::bytea),
	(30, 'key truncated', '\x010100000500000061'::bytea),
	(31, 'valid keys only', '\x01030000010001007072'::bytea),
	(32, 'String over 32768 units', '\x010001000000000001000100' || ('\x61'::bytea || decode(repeat('61', 32769), 'hex'))),
	-- 0.3.0's form of the order written, still read (into today's form): '{"b":1,"a":2}' was
	-- 01 04 0200 | a: 00000000 0100 02 00 | b: 05000000 0100 02 00 | order 01 00 (b, then a) |
	-- 61 02000000 62 01000000
	(33, 'valid written order', '\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x0100'::bytea || '\x61020000006201000000'::bytea),
	(34, 'order of the names', '\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x0001'::bytea || '\x61020000006201000000'::bytea),
	(35, 'order naming one twice', '\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x0101'::bytea || '\x61020000006201000000'::bytea),
	(36, 'order index out of range', '\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x0200'::bytea || '\x61020000006201000000'::bytea),
	(37, 'order truncated', '\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x01'::bytea),
	(38, 'order of one property', '\x010401000000000001000200'::bytea || '\x00'::bytea || '\x6101000000'::bytea),
	(39, 'order of no property', '\x01040000'::bytea),
	(40, 'order with keys', '\x01070200'::bytea || '\x01000100'::bytea || '\x02000000010002000700000001000200'::bytea || '\x0100' || '\x7072'::bytea || '\x61020000006201000000'::bytea),
	-- today's form: the order in the directory's last bytes, the k-th naming the k-th written:
	-- '{"b":1,"a":2}' is 01 08 0200 | a: 00000000 0100 02 01 | b: 05000000 0100 02 00 | 61 02000000 62 01000000
	(41, 'valid order in the directory', '\x01080200' || '\x00000000010002010500000001000200'::bytea || '\x61020000006201000000'::bytea),
	(42, 'directory order of the names', '\x01080200' || '\x00000000010002000500000001000201'::bytea || '\x61020000006201000000'::bytea),
	(43, 'directory order naming one twice', '\x01080200' || '\x00000000010002010500000001000201'::bytea || '\x61020000006201000000'::bytea),
	(44, 'directory order out of range', '\x01080200' || '\x00000000010002020500000001000200'::bytea || '\x61020000006201000000'::bytea),
	(45, 'both order forms', '\x010c0200' || '\x00000000010002010500000001000200'::bytea || '\x0100'::bytea || '\x61020000006201000000'::bytea),
	(46, 'order bytes with the order array', '\x01040200' || '\x00000000010002010500000001000200'::bytea || '\x0100'::bytea || '\x61020000006201000000'::bytea),
	(47, 'order bytes without the flag', '\x01000200' || '\x00000000010002010500000001000200'::bytea || '\x61020000006201000000'::bytea),
	(48, 'directory order with keys', '\x010b0200'::bytea || '\x01000100'::bytea || '\x02000000010002010700000001000200'::bytea || '\x7072'::bytea || '\x61020000006201000000'::bytea)
) x(n, label, b) ORDER BY n;
-- 0.3.0's form is read into today's: the same entity, its order now in the directory (one byte less)
SELECT entity_to_binary(entity_from_binary('\x01040200' || '\x00000000010002000500000001000200'::bytea || '\x0100'::bytea || '\x61020000006201000000'::bytea))
	= '\x01080200' || '\x00000000010002010500000001000200'::bytea || '\x61020000006201000000'::bytea AS read_into_todays_form;

DROP TABLE binary_src, binary_dst;
