-- bench/trials.sql - time every query of the table q (name, sql) :trials times, after a warm-up,
-- into the table timing (name, trial, ms). Included by codec.sql and query.sql.
CREATE TEMP TABLE timing (name text, trial int, ms float8);
CREATE FUNCTION pg_temp.run_trials(trials int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	t0 timestamptz;
	names text[] := ARRAY(SELECT name FROM q ORDER BY name);
	k int;
BEGIN
	FOR trial IN 1..trials LOOP
		FOR s IN 0..array_length(names, 1) - 1 LOOP
			-- rotate the order each trial so no query always runs first
			k := 1 + (s + trial) % array_length(names, 1);
			SELECT * INTO r FROM q WHERE name = names[k];
			t0 := clock_timestamp();
			EXECUTE r.sql;
			INSERT INTO timing VALUES (r.name, trial, extract(epoch FROM clock_timestamp() - t0) * 1000);
		END LOOP;
	END LOOP;
END $$;
SELECT pg_temp.run_trials(1) AS warmup \gset
TRUNCATE timing;
SELECT pg_temp.run_trials(:trials) AS measured \gset
