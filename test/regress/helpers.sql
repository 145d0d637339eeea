-- test/regress/helpers.sql - shared by the pg_regress files in test/sql/, which include it first:
--   \set ECHO none
--   \i test/regress/helpers.sql
--   \set ECHO all
-- (pg_regress runs psql in the top directory of the source tree.)

-- pg_temp.try(statement): run it and answer 'ok: <first column of its first row>', or
-- '<SQLSTATE> <message>' when it fails, so that a file can show many errors in one result.
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	IF stmt ~* '^\s*(select|with|values|table)\M' THEN
		EXECUTE stmt INTO r;
	ELSE
		EXECUTE stmt;
	END IF;
	RETURN 'ok: ' || coalesce(r, '');
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
