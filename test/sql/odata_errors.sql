-- odata_errors: malformed filters are errors that name the position (never an empty result), and
-- injection attempts never run anything but the intended query.
SET search_path = tablestore, public;
SELECT create_table('Target');
SELECT insert_entity('Target', '{"PartitionKey":"p","RowKey":"1","Name":"x","Age":1}') IS NOT NULL AS inserted;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all
CREATE FUNCTION pg_temp.filter(f text) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.try(format('SELECT tablestore.odata_to_sql(%L)', f)) $$;

-- At least 60 malformed filters, each with its position
SELECT n, f AS filter, pg_temp.filter(f) AS error FROM (VALUES
	(1, 'PartitionKey eq Sales'),
	(2, '(PartitionKey eq ''Sales'') und (RowKey eq ''x'')'),
	(3, '(A eq 1'), (4, 'A eq 1)'), (5, '((A eq 1)'), (6, '(A eq 1))'), (7, '()'), (8, '('),
	(9, ')'), (10, 'A eq'), (11, 'A'), (12, 'eq 1'), (13, 'A eq 1 and'), (14, 'and A eq 1'),
	(15, 'A eq 1 or or B eq 2'), (16, 'A eq 1 and and B eq 2'), (17, 'A eq 1 B eq 2'),
	(18, 'A == 1'), (19, 'A = 1'), (20, 'A EQ 1'), (21, 'A Eq 1'), (22, 'A eq 1 AND B eq 2'),
	(23, 'A eq 1 Or B eq 2'), (24, 'NOT (A eq 1)'), (25, 'A equals 1'), (26, 'A like ''x'''),
	(27, 'A eq ''unterminated'), (28, 'A eq ''x'' ''y'''), (29, 'A eq "x"'), (30, 'A eq 1.'),
	(31, 'A eq .5'), (32, 'A eq 1e'), (33, 'A eq 1x'), (34, 'A eq 12abc'), (35, 'A eq 1.5.3'),
	(36, 'A eq 99999999999999999999'), (136, 'A eq 3000000000'), (137, 'A eq -2147483649'), (37, 'A eq 99999999999999999999L'), (38, 'A eq 1e400'),
	(39, 'A eq 1.5L'), (40, 'A eq --1'), (41, 'A eq +1'), (42, 'A eq datetime''2014-13-01T00:00:00Z'''),
	(43, 'A eq datetime''yesterday'''), (44, 'A eq datetime''1600-01-01T00:00:00Z'''),
	(45, 'A eq guid''not-a-guid'''), (46, 'A eq X''0g'''), (47, 'A eq X''123'''), (48, 'A eq binary''zz'''),
	(49, 'A eq datetime'), (50, 'A eq null'), (51, 'null eq A'), (52, 'A eq B'), (53, '1 eq 2'),
	(54, '''x'' eq ''y'''), (55, '1A eq 1'), (56, 'A-B eq 1'), (57, 'A.B eq 1'), (58, 'A/B eq 1'),
	(59, 'A eq 1 not B eq 2'), (60, 'not'), (61, 'not ()'), (62, 'A eq 1 and not'), (63, 'A eq true and'),
	(64, 'A eq 1 ;'), (65, 'A eq 1 -- comment'), (66, 'A eq 1 /* c */'), (67, 'A eq $$x$$'),
	(68, 'A eq ''x''::text'), (69, 'A eq 1,2'), (70, 'A in (1, 2)'), (71, 'substringof(''x'', A)'),
	(72, 'A eq 1 and (B eq 2 or (C eq 3)'), (73, 'A eq 1 and B eq 2)'), (74, 'Ünï eq 1 and eq 2'),
	(75, repeat('x', 300) || ' eq 1'), (76, 'A eq guid''68260b3f-beab-45e2-b900-33e2b442e724'''''),
	(77, 'A eq x''0a'''), (78, 'A eq Datetime''2014-08-22T00:50:44Z''')
) v(n, f) ORDER BY n;

-- A huge malformed filter is reported briefly
SELECT length(pg_temp.filter(repeat('A eq 1 and ', 20000) || 'B')) < 300 AS bounded_message;

-- An empty range is an empty result, not an error
SELECT count(*) AS empty_range FROM query_entities('Target', 'PartitionKey eq ''p'' and RowKey ge ''b'' and RowKey lt ''a''');

-- Injection attempts (at least 30): each is a syntax error or one ordinary query over 'Target'
-- that matches nothing; the canary table below must be untouched afterwards.
CREATE TABLE canary (v int);
INSERT INTO canary VALUES (1);
CREATE FUNCTION pg_temp.attack(f text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
	SELECT count(*) INTO n FROM tablestore.query_entities('Target', f);
	RETURN n || ' rows';
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ' ' || left(SQLERRM, 60);
END $$;
CREATE TEMP TABLE attacks (n int, f text);
INSERT INTO attacks VALUES
	(1, 'Name eq ''x''; DROP TABLE canary; --'''),
	(2, 'Name eq ''x''''; DROP TABLE canary; --'''),
	(3, 'Name eq ''x'' or 1 eq 1'),
	(4, 'Name eq ''x'' OR ''1''=''1'''),
	(5, 'Name eq ''x''''or''''1''''=''''1'''),
	(6, 'Name eq ''\'' or Name eq ''x'''),
	(7, 'Name eq ''x\''; DELETE FROM canary; --'''),
	(8, 'Name eq E''x\'''),
	(9, 'Name eq $$x$$; DROP TABLE canary'),
	(10, 'Name eq ''x'')); DROP TABLE canary; --'),
	(11, 'Name eq ''x'' /* '),
	(12, 'Name eq ''x'' -- '''),
	(13, 'Name; DROP TABLE canary eq 1'),
	(14, '"Name" eq ''x'''),
	(15, 'Name eq ''x''::text'),
	(16, 'Name eq ''x'' COLLATE "C"'),
	(17, 'Name eq (SELECT 1)'),
	(18, 'Name eq ''x'' UNION SELECT 1'),
	(19, 'Name eq chr(39)'),
	(20, 'Name eq ''x'''' || (DELETE FROM canary RETURNING 1)::text || '''''),
	(21, 'Name eq ʼxʼ'),
	(22, 'Name eq ＇x＇'),
	(23, 'Name eq ‘x’ or 1 eq 1'),
	(24, 'Name eq ''x'' ＯＲ 1 eq 1'),
	(25, 'Name eq ''x\\'''),
	(26, 'Name eq ''%'''),
	(27, 'Name eq ''x'' and pg_sleep(1) eq 1'),
	(28, 'properties eq ''{}'''),
	(29, 'partition_key eq ''p'''),
	(30, 'Age eq 1::int'),
	(31, 'Age eq 0x10'),
	(32, 'Name eq ''x'' ' || chr(10) || '; DROP TABLE canary'),
	(33, 'Name eq ''$1'''),
	(34, 'Name eq datetime''2014-08-22T00:50:44Z'' or datetime''x'' eq 1'),
	(35, 'Name eq ''x'' and RowKey ge E''\x00''');
SELECT n, f AS filter, pg_temp.attack(f) AS result FROM attacks ORDER BY n;
-- the same with standard_conforming_strings off, where '\' is an escape in plain literals
SET standard_conforming_strings = off;
SELECT n, pg_temp.attack(f) AS result FROM attacks WHERE f LIKE '%\\%' ORDER BY n;
RESET standard_conforming_strings;
SELECT count(*) AS canary_rows FROM canary;
SELECT count(*) AS target_rows FROM tablestore_data.target;

-- A quote in a value is one character of the value, found as such
SELECT insert_entity('Target', '{"PartitionKey":"p","RowKey":"2","Name":"O''Brien \\ ; DROP"}') IS NOT NULL;
SELECT row_key FROM query_entities('Target', 'Name eq ''O''''Brien \ ; DROP''');

DROP TABLE canary;
SELECT drop_table('Target');
