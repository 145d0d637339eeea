-- wal_flush: tablestore_internal.flushed_wal_lsn(), the WAL position a shard move waits for its
-- subscriber to have applied: the insert position, flushed to it - also when the position is at
-- the start of a page no record has reached yet (past the page's header, which is written with the
-- first record: flushing that far failed with "xlog flush request ... is not satisfied", which
-- failed a move in test/t/007 now and then). Non-transactional logical messages of chosen sizes
-- bring the insert position to such a page start, a few times.
SET search_path = tablestore, public;

CREATE FUNCTION pg_temp.page_off() RETURNS int LANGUAGE sql AS $$
	SELECT ((pg_catalog.pg_current_wal_insert_lsn() - '0/0'::pg_lsn) % 8192)::int
$$;
CREATE FUNCTION pg_temp.at_page_starts(wanted int, OUT met int, OUT flushed bool, OUT page_start bool)
LANGUAGE plpgsql AS $$
DECLARE
	rem int;
	lsn pg_lsn;
BEGIN
	met := 0;
	flushed := true;
	page_start := false;
	FOR i IN 1 .. 2000 LOOP
		EXIT WHEN met >= wanted;
		rem := 8192 - pg_temp.page_off();
		IF rem > 300 THEN
			PERFORM pg_catalog.pg_logical_emit_message(false, 'x', repeat('x', rem - 200));
		ELSIF rem >= 60 THEN
			-- a record of 24 + 2 + 24 + 2 + n bytes, aligned to 8, that ends at the page's end
			PERFORM pg_catalog.pg_logical_emit_message(false, 'x', repeat('x', rem - 52));
			IF pg_temp.page_off() IN (24, 40) THEN
				met := met + 1;
				lsn := tablestore_internal.flushed_wal_lsn();
				flushed := flushed AND pg_catalog.pg_current_wal_flush_lsn() >= lsn;
				-- (another session's WAL may have moved the position meanwhile)
				page_start := page_start OR (lsn - '0/0'::pg_lsn) % 8192 = 0;
			END IF;
		ELSE
			PERFORM pg_catalog.pg_logical_emit_message(false, 'x', repeat('x', 100));
		END IF;
	END LOOP;
END $$;
SELECT met >= 3 AS page_starts_met, flushed, page_start AS gave_the_page_start FROM pg_temp.at_page_starts(3);
-- anywhere else, the insert position itself
SELECT tablestore_internal.flushed_wal_lsn() <= pg_catalog.pg_current_wal_flush_lsn() AS flushed;
