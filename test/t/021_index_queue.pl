# test/t/021_index_queue.pl - indexing policy changes never crash the server, never exceed
# tablestore.max_index_builds, survive their worker, and wait for no one's lock (issue 31; doc/
# reliability.md, "Index builds"; src/index/index_worker.c). One server of its own, whose log is read:
#
#  1. a loop of policy changes while the index is being built (one sequential client, as the
#     attack did through the gateway): every change accepted, no process terminated by a
#     signal, the last policy applied;
#  2. 12 concurrent changes of 12 tables with max_index_builds 2: pg_stat_activity sampled
#     throughout never shows more than 2 index workers, and every change is applied;
#  3. the worker killed in the middle of a build (pg_terminate_backend, then SIGKILL): the work
#     is relaunched by wait_for_indexing, which returns, and no invalid index is left;
#  4. a lock held on a table the worker needs: the worker gives up within its lock timeout, the
#     error and the attempts are shown, the next table is built meanwhile, and the first once
#     the lock is gone; past the attempts, wait_for_indexing says why at once;
#  5. an install of 0.3.0 with a change not applied, updated: the update queues it;
#  6. (review 3) a change while another is being built and a third is in place: applied;
#  7. a node's partitioned table (create_shards): a change during a shard's build, a shard's
#     build killed, then a third policy: every shard has exactly the policy's index;
#  8. queued work relaunched by any call on the table by its owner (no indexing_progress):
#     after a normal restart, a crash restart, a worker killed while it waits for its slot;
#  9. an idle worker waits for a change's open transaction (no polling); drop_table during a
#     build cancels it rather than waiting;
# 10. a database owned by a role that is not a superuser: the worker runs as it (the owner
#     terminates it, drops the database WITH (FORCE)), and builds in the table's tablespace,
#     not in the database's default_tablespace.
# Every loop is bounded in count; no assertion depends on how long something took.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('iqueue');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 24\nrestart_after_crash = on\n");
$node->start;
my $db = 'iq';
$node->safe_psql('postgres', "CREATE DATABASE $db");
$node->safe_psql($db, 'CREATE EXTENSION tablestore');
sub sq { return $node->safe_psql($db, $_[0]) }

# a table of n entities, whose index takes a while to build
sub load_table
{
	my ($name, $n) = @_;
	sq(qq{SELECT tablestore.create_table('$name');
		INSERT INTO tablestore_data.@{[lc $name]} (partition_key, row_key, properties)
		SELECT 'p' || (i % 100), lpad(i::text, 7, '0'),
			format('{"Code":%s,"Name":"n%s","Note":"%s","Flag":%s}', i, i, repeat('x', 40), (i % 7 = 0)::text)::tablestore.entity
		FROM generate_series(1, $n) i;
		VACUUM ANALYZE tablestore_data.@{[lc $name]};});
}

# the table's entity indexes: "valid excluded" for each, as one string
sub indexes
{
	my ($name) = @_;
	return sq(qq{SELECT coalesce(string_agg(i.indisvalid || ' ' || coalesce(substring(pg_get_indexdef(i.indexrelid) from 'excluded=''([^'']*)'''), '-'),
			',' ORDER BY c.relname), '') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_opclass o ON o.oid = i.indclass[0] WHERE i.indrelid = 'tablestore_data.@{[lc $name]}'::regclass AND o.opcname = 'entity_gin_ops'});
}

sub signals_in_log
{
	my ($from) = @_;
	my @lines = grep { /terminated by signal/ } split /\n/, slurp_file($node->logfile, $from);
	return join("\n", @lines);
}

my $policy_note = '{"excludedPaths":[{"path":"/Note/?"}]}';
my $policy_name = '{"excludedPaths":[{"path":"/Name/?"}]}';
my $policy_code = '{"excludedPaths":[{"path":"/Code/?"}]}';

# ---------- 1. changes in a loop while the index is built ----------
load_table('Looped', 150000);
my $log_start = -s $node->logfile;
my ($accepted, @refused) = (0);
srand(31);
for my $i (1 .. 24)
{
	# three policies in turn: a change often comes while the previous one's index is built and
	# a third one's is in place (two names were not enough: review 3, finding 2)
	my $p = ($policy_code, $policy_note, $policy_name)[ $i % 3 ];
	my ($rc, $out, $err) = $node->psql($db, "SELECT tablestore.set_indexing_policy('Looped', '$p') ->> 'indexingMode'",
		extra_params => [ '-v', 'ON_ERROR_STOP=1' ], timeout => 60);
	if ($rc == 0 && $out eq 'consistent') { $accepted++ }
	else { push @refused, "change $i: " . ($err =~ s/\n.*//sr) }
	# a change at a random moment of the build: sometimes while it waits, sometimes while it reads
	IPC::Run::run([ 'sleep', sprintf('%.2f', rand(0.7)) ]);
}
is($accepted, 24, 'every change of the loop is accepted during the builds') or diag(join("\n", @refused));
is(signals_in_log($log_start), '', 'no process was terminated by a signal');
sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
is(indexes('Looped'), 'true Code', 'the last policy is applied: one valid index of it, nothing else');
is(sq(q{SELECT count(*) FROM tablestore.index_builds}), '0', 'and nothing is left queued');

# the same through SQL in one transaction each of two changes: the worker starts after the commit
sq(qq{BEGIN; SELECT tablestore.set_indexing_policy('Looped', '$policy_note'); SELECT tablestore.set_indexing_policy('Looped', '{}'); COMMIT;});
sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
is(indexes('Looped'), 'true ', 'two changes in one transaction: the last one applied');

# ---------- 2. max_index_builds under 12 concurrent changes ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 2});
load_table("Many$_", 30000) for 1 .. 12;
sq(q{CREATE TABLE stop_sampling (yes bool);
	-- a transaction per look: an open one would hold back every concurrent build (old snapshots)
	CREATE PROCEDURE sample_workers(polls int, INOUT most int DEFAULT 0, INOUT seen int DEFAULT 0) LANGUAGE plpgsql AS $$
	DECLARE
		n int;
	BEGIN
		FOR i IN 1 .. polls LOOP
			SELECT count(*) INTO n FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND datname = current_database();
			most := greatest(most, n);
			seen := seen + (n > 0)::int;
			EXIT WHEN EXISTS (SELECT 1 FROM stop_sampling);
			COMMIT;
			PERFORM pg_sleep(0.005);
		END LOOP;
	END $$;});
my ($sample_out, $sample_err) = ('', '');
my $sampler = IPC::Run::start([ 'psql', '-X', '-At', '-d', $node->connstr($db), '-c', 'CALL sample_workers(40000)' ],
	'>', \$sample_out, '2>', \$sample_err);
my @changes;
for my $i (1 .. 12)
{
	my ($o, $e) = ('', '');
	push @changes, [ \$o, \$e, IPC::Run::start([ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db),
		'-c', "SELECT tablestore.set_indexing_policy('Many$i', '$policy_name') ->> 'indexingMode'" ], '>', \$o, '2>', \$e) ];
}
my @failed;
for my $c (@changes)
{
	$c->[2]->finish;
	push @failed, ${ $c->[1] } if $c->[2]->result || ${ $c->[0] } !~ /consistent/;
}
is(scalar(@failed), 0, '12 concurrent changes are all accepted (none refused past the limit)') or diag(join("\n", @failed));
sq(qq{CALL tablestore.wait_for_indexing('Many$_', '5 minutes')}) for 1 .. 12;
sq(q{INSERT INTO stop_sampling VALUES (true)});
$sampler->finish;
my ($most, $seen) = split /\|/, $sample_out =~ s/\s+$//r;
note("index workers at once: at most $most ($seen samples saw one)");
ok(defined $seen && $seen > 0, 'the sampler saw the workers run') or diag($sample_err);
ok(defined $most && $most <= 2, 'never more than tablestore.max_index_builds (2) index workers at once') or diag("most: $most");
is(join(',', map { indexes("Many$_") } 1 .. 12), join(',', ('true Name') x 12), 'every change is applied');

# ---------- 3. the worker killed in the middle of a build ----------
sub worker_building
{
	for (1 .. 1200)
	{
		my $pid = sq(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND query LIKE 'CREATE INDEX CONCURRENTLY%'});
		return $pid if $pid ne '';
		IPC::Run::run([ 'sleep', '0.05' ]);
	}
	return '';
}
for my $how ('pg_terminate_backend', 'SIGKILL')
{
	my $policy = $how eq 'SIGKILL' ? $policy_note : $policy_name;
	my $want = $how eq 'SIGKILL' ? 'Note' : 'Name';
	sq(qq{SELECT tablestore.set_indexing_policy('Looped', '$policy')});
	my $pid = worker_building();
	isnt($pid, '', "$how: the worker was caught building");
	if ($how eq 'SIGKILL')
	{
		kill 'KILL', $pid;
		# the postmaster restarts every backend; wait until it accepts connections again
		$node->poll_query_until($db, 'SELECT true') or die 'the server did not come back';
	}
	else
	{
		sq(qq{SELECT pg_terminate_backend($pid)});
	}
	$node->poll_query_until($db, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'})
	  or die 'the worker did not end';
	like(sq(q{SELECT state || ' ' || attempts FROM tablestore.index_builds WHERE table_name = 'Looped'}), qr/^(queued|waiting) 1$/,
		"$how: the change stays queued, its attempt counted");
	is(sq(q{SELECT count(*) FROM tablestore.query_entities('Looped', 'Code ge 1 and Code le 1000')}), '1000',
		"$how: answers are right meanwhile");
	sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
	is(indexes('Looped'), "true $want", "$how: wait_for_indexing relaunched the work: the policy applied, no invalid index left");
}

# ---------- 4. a lock held on the table the worker needs ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 1});
load_table('Held', 20000);
load_table('Next', 20000);
my $hold = $node->background_psql($db);
$hold->query_safe('BEGIN; LOCK TABLE tablestore_data.held IN SHARE UPDATE EXCLUSIVE MODE');
sq(qq{SELECT tablestore.set_indexing_policy('Held', '$policy_note')});
sq(qq{SELECT tablestore.set_indexing_policy('Next', '$policy_note')});
# one worker (max 1): it claims Held first, gives up on its lock, builds Next meanwhile
sq(q{CALL tablestore.wait_for_indexing('Next', '2 minutes')});
is(indexes('Next'), 'true Note', 'the other table is built while the lock is held (one worker: it did not wait for the lock)');
$node->poll_query_until($db, q{SELECT attempts >= 1 AND last_error IS NOT NULL FROM tablestore.index_builds WHERE table_name = 'Held'})
  or die 'no attempt recorded';
like(sq(q{SELECT state || ': ' || last_error FROM tablestore.index_builds WHERE table_name = 'Held'}),
	qr/^(queued|waiting|running): canceling statement due to lock timeout \(SQLSTATE 55P03\)$/,
	'the held table: its attempt gave up on the lock, which index_builds shows');
is(indexes('Held'), 'true ', 'and its index is unchanged, nothing invalid left');
$hold->query_safe('COMMIT');
sq(q{CALL tablestore.wait_for_indexing('Held', '3 minutes')});
is(indexes('Held'), 'true Note', 'once the lock is gone a retry applies it');

# past its attempts a change is left failed, and wait_for_indexing says why at once
sq(q{ALTER DATABASE iq SET tablestore.index_lock_timeout = 10});
$hold->query_safe('BEGIN; LOCK TABLE tablestore_data.held IN SHARE UPDATE EXCLUSIVE MODE');
sq(q{SELECT tablestore.set_indexing_policy('Held', '{}')});
sq(q{UPDATE tablestore_internal.index_queue SET attempts = 7 WHERE table_key = 'held'});
$node->poll_query_until($db, q{SELECT state = 'failed' FROM tablestore.index_builds WHERE table_name = 'Held'})
  or die 'the change did not fail';
my ($rc, $out, $err) = $node->psql($db, q{CALL tablestore.wait_for_indexing('Held', '1 minute')});
like($err, qr/ServerBusy: the indexing policy of the table "Held" could not be applied: canceling statement due to lock timeout/,
	'failed after its attempts: wait_for_indexing raises the last error');
$hold->query_safe('COMMIT');
$hold->quit;
sq(q{ALTER DATABASE iq RESET tablestore.index_lock_timeout});
sq(q{SELECT tablestore.set_indexing_policy('Held', '{}')});
sq(q{CALL tablestore.wait_for_indexing('Held', '3 minutes')});
is(indexes('Held'), 'true ', 'setting the policy again retries it');

# ---------- 5. the update from 0.3.0 with a change not applied ----------
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', q{CREATE EXTENSION tablestore VERSION '0.3.0';
	SELECT tablestore.create_table('Pending'); SELECT tablestore.create_table('Done');
	INSERT INTO tablestore_data.pending (partition_key, row_key, properties)
	SELECT 'p', lpad(i::text, 5, '0'), format('{"Code":%s}', i)::tablestore.entity FROM generate_series(1, 5000) i;
	-- a change 0.3.0 recorded and whose worker never ran
	UPDATE tablestore.tables SET indexing_policy = '{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/Code/?"}]}'
	WHERE key = 'pending';
	ALTER EXTENSION tablestore UPDATE;});
$node->safe_psql('old', q{CALL tablestore.wait_for_indexing('Pending', '3 minutes')});
is($node->safe_psql('old', q{SELECT tablestore.indexing_progress('Pending') || ' ' || tablestore.indexing_progress('Done')
		|| ' ' || (SELECT count(*) FROM tablestore.index_builds)}), '100 100 0',
	'the update queued the change 0.3.0 had not applied; it is applied, nothing left queued');

# a session holding a snapshot: every CREATE INDEX CONCURRENTLY of the database waits for it
sub hold_snapshot
{
	my ($dbname, @user) = @_;
	my $h = $node->background_psql($dbname // $db, extra_params => [@user]);
	$h->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$h->query_safe('SELECT count(*) FROM pg_class');
	return $h;
}

# until the worker's concurrent build (of a relation whose name matches) waits for that snapshot
sub build_waits
{
	my ($like, $dbname) = @_;
	$node->poll_query_until($dbname // $db, qq{SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'
		AND query LIKE 'CREATE INDEX CONCURRENTLY%$like%' AND wait_event = 'virtualxid'})
	  or die "no build of $like waits";
}

# ---------- 6. a change while another is being built and a third is in place ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 2});
load_table('Three', 20000);
sq(qq{SELECT tablestore.set_indexing_policy('Three', '$policy_note')});
sq(q{CALL tablestore.wait_for_indexing('Three', '2 minutes')});
my $snap = hold_snapshot();
sq(qq{SELECT tablestore.set_indexing_policy('Three', '$policy_name')});
build_waits('tablestore_data.three ');
sq(qq{SELECT tablestore.set_indexing_policy('Three', '$policy_code')});
$snap->query_safe('COMMIT');
$snap->quit;
sq(q{CALL tablestore.wait_for_indexing('Three', '2 minutes')});
is(indexes('Three'), 'true Code', 'A applied, B built, C queued meanwhile: C is applied, nothing else left');
is(sq(q{SELECT count(*) FROM tablestore.index_builds}), '0', 'and nothing is left queued or failed');

# ---------- 7. a node's partitioned table ----------
sq(q{SELECT tablestore.create_shards('Parted', 4, '{0,1,2,3}', (SELECT extversion FROM pg_extension WHERE extname = 'tablestore'));
	INSERT INTO tablestore_data.parted (partition_key, row_key, properties)
	SELECT 'p' || (i % 400), lpad(i::text, 6, '0'), format('{"Code":%s,"Name":"n%s","Note":"x"}', i, i)::tablestore.entity
	FROM generate_series(1, 20000) i;});
# every shard's entity indexes: "<valid> <a part of the table's one?> <excluded>", shard by shard
sub shard_indexes
{
	return sq(q{SELECT string_agg(format('%s %s %s', i.indisvalid,
			EXISTS (SELECT 1 FROM pg_inherits x JOIN pg_index pi ON pi.indexrelid = x.inhparent
					WHERE x.inhrelid = i.indexrelid AND pi.indrelid = 'tablestore_data.parted'::regclass),
			coalesce(substring(pg_get_indexdef(i.indexrelid) from 'excluded=''([^'']*)'''), '-')), ',' ORDER BY t.inhrelid, c.relname)
		FROM pg_inherits t JOIN pg_index i ON i.indrelid = t.inhrelid JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_opclass o ON o.oid = i.indclass[0]
		WHERE t.inhparent = 'tablestore_data.parted'::regclass AND o.opcname = 'entity_gin_ops'});
}
sub parted_applied
{
	my ($excluded, $what) = @_;
	sq(q{CALL tablestore.wait_for_indexing('Parted', '2 minutes')});
	is(shard_indexes(), join(',', ("t t $excluded") x 4), "$what: each shard has exactly the policy's index, a part of the table's");
	is(indexes('Parted'), "true $excluded", "$what: and the table one valid index of the policy");
}
parted_applied('', 'created');
# a change undone while a shard's part is being built: that part is left unattached
$snap = hold_snapshot();
sq(qq{SELECT tablestore.set_indexing_policy('Parted', '$policy_code')});
build_waits('tablestore_shards.parted_');
sq(q{SELECT tablestore.set_indexing_policy('Parted', '{}')});
$snap->query_safe('COMMIT');
$snap->quit;
parted_applied('', 'a change undone during a shard build');
# a shard's build killed: its invalid index is left on the shard
$snap = hold_snapshot();
sq(qq{SELECT tablestore.set_indexing_policy('Parted', '$policy_note')});
build_waits('tablestore_shards.parted_');
sq(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'});
$snap->query_safe('COMMIT');
$snap->quit;
$node->poll_query_until($db, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'})
  or die 'the worker did not end';
sq(q{SELECT tablestore.set_indexing_policy('Parted', '{}')});
parted_applied('', 'a shard build killed, then the change undone');
# later changes are applied, whatever earlier ones left
sq(qq{SELECT tablestore.set_indexing_policy('Parted', '$policy_name')});
parted_applied('Name', 'a third policy');
sq(qq{SELECT tablestore.set_indexing_policy('Parted', '$policy_code')});
parted_applied('Code', 'and a fourth');

# ---------- 8. queued work relaunched by a call on the table, without indexing_progress ----------
load_table('Relaunch', 20000);
my $call = q{SELECT count(*) FROM tablestore.query_entities('Relaunch', 'Code eq 7')};
my $none_queued = q{SELECT count(*) = 0 FROM tablestore.index_builds};
for my $how ('a normal restart', 'a crash restart')
{
	my $policy = $how eq 'a normal restart' ? $policy_name : $policy_note;
	my $want = $how eq 'a normal restart' ? 'Name' : 'Note';
	# the change's attempts fail on a lock until the server stops
	my $lock = $node->background_psql($db);
	$lock->query_safe('BEGIN; LOCK TABLE tablestore_data.relaunch IN SHARE UPDATE EXCLUSIVE MODE');
	sq(qq{SELECT tablestore.set_indexing_policy('Relaunch', '$policy')});
	$node->poll_query_until($db, q{SELECT attempts >= 1 FROM tablestore.index_builds WHERE table_name = 'Relaunch'})
	  or die 'no attempt';
	if ($how eq 'a normal restart')
	{
		$node->stop('fast');
		$node->start;
	}
	else
	{
		my $pid = $lock->query_safe('SELECT pg_backend_pid()');
		kill 'KILL', $pid;
		$node->poll_query_until($db, 'SELECT true') or die 'the server did not come back';
	}
	eval { $lock->quit };
	is(sq(q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'}) . ' '
		  . sq(q{SELECT count(*) FROM tablestore.index_builds WHERE table_name = 'Relaunch'}), '0 1',
		"$how: the change is queued, no worker runs");
	sq($call);
	ok($node->poll_query_until($db, $none_queued), "$how: a query of the table by its owner relaunched the work");
	is(indexes('Relaunch'), "true $want", "$how: the policy is applied");
}
# a worker killed while it waits for its slot (its launcher's transaction still open)
my $open = $node->background_psql($db);
$open->query_safe(qq{BEGIN; SELECT tablestore.set_indexing_policy('Relaunch', '$policy_code')});
$node->poll_query_until($db, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND wait_event_type = 'Lock'})
  or die 'no worker waits for its slot';
sq(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'});
$node->poll_query_until($db, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'})
  or die 'the worker did not end';
$open->query_safe('COMMIT');
$open->quit;
sq($call);
ok($node->poll_query_until($db, $none_queued), 'a worker killed while waiting for its slot: the next call relaunched the work');
is(indexes('Relaunch'), 'true Code', 'and the policy is applied');

# ---------- 9. waiting for a change's transaction; a drop during a build ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 1});
load_table('Waited', 20000);
$snap = hold_snapshot();
sq(qq{SELECT tablestore.set_indexing_policy('Relaunch', '$policy_note')});
build_waits('tablestore_data.relaunch ');
# a change in an open transaction while the one worker builds (no slot: the worker takes it)
$open = $node->background_psql($db);
$open->query_safe(qq{BEGIN; SELECT tablestore.set_indexing_policy('Waited', '$policy_name')});
$snap->query_safe('COMMIT');
$snap->quit;
ok($node->poll_query_until($db, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'
		AND query = 'waiting for the policy changes being made' AND wait_event = 'virtualxid'}),
	'a worker with nothing to do but a change being made waits for its transaction (no polling)');
$open->query_safe('COMMIT');
$open->quit;
sq(q{CALL tablestore.wait_for_indexing('Waited', '2 minutes')});
is(indexes('Waited'), 'true Name', 'the change is applied once committed');
# drop_table during a build that waits for someone's snapshot: the build is cancelled
$snap = hold_snapshot();
sq(qq{SELECT tablestore.set_indexing_policy('Waited', '$policy_code')});
build_waits('tablestore_data.waited ');
my ($drc, $dout, $derr) = $node->psql($db, q{SELECT tablestore.drop_table('Waited')}, timeout => 60);
is($drc, 0, 'drop_table during a build: done while the snapshot the build waits for is still held') or diag($derr);
$snap->query_safe('COMMIT');
$snap->quit;
is(sq(q{SELECT count(*) FROM pg_class WHERE relname LIKE 'waited%'}), '0', 'the table and its indexes are gone');
$node->poll_query_until($db, $none_queued) or die 'the dropped table stays queued';

# ---------- 10. a database owned by a role that is not a superuser ----------
$node->safe_psql('postgres', q{CREATE ROLE dbo LOGIN});
$node->safe_psql('postgres', q{CREATE DATABASE owned OWNER dbo});
$node->safe_psql('postgres', q{SET allow_in_place_tablespaces = on; CREATE TABLESPACE restricted LOCATION ''});
$node->safe_psql('owned', q{CREATE EXTENSION tablestore; GRANT CREATE ON SCHEMA tablestore_data TO dbo;});
sub dbo { return $node->safe_psql('owned', $_[0], extra_params => [ '-U', 'dbo' ]) }
dbo(q{SELECT tablestore.create_table('Mine');
	INSERT INTO tablestore_data.mine (partition_key, row_key, properties)
	SELECT 'p', lpad(i::text, 6, '0'), format('{"Code":%s,"Name":"n%s"}', i, i)::tablestore.entity FROM generate_series(1, 20000) i});
$snap = hold_snapshot('owned', '-U', 'dbo');
dbo(qq{SELECT tablestore.set_indexing_policy('Mine', '$policy_name')});
build_waits('tablestore_data.mine ', 'owned');
is(sq(q{SELECT usename FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND datname = 'owned'}), 'dbo',
	"the worker runs as the database's owner");
is(dbo(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'}), 't',
	'which may terminate it');
$snap->query_safe('COMMIT');
$snap->quit;
dbo(q{CALL tablestore.wait_for_indexing('Mine', '2 minutes')});
is(dbo(q{SELECT tablestore.indexing_progress('Mine')}), '100', "the owner's wait relaunched the work: applied");
# a default_tablespace the owner may not create in: the index stays where the table is
dbo(q{ALTER DATABASE owned SET default_tablespace = restricted});
dbo(qq{SELECT tablestore.set_indexing_policy('Mine', '$policy_code')});
dbo(q{CALL tablestore.wait_for_indexing('Mine', '2 minutes')});
is(dbo(q{SELECT string_agg(c.relname || ' ' || c.reltablespace, ',') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'tablestore_data.mine'::regclass AND NOT i.indisprimary}), 'mine_entities 0',
	"the index is built in the table's tablespace, not in a default_tablespace its owner may not create in");
dbo(q{ALTER DATABASE owned RESET default_tablespace});
# the owner drops its database WITH (FORCE) during a build
$snap = hold_snapshot('owned', '-U', 'dbo');
dbo(qq{SELECT tablestore.set_indexing_policy('Mine', '$policy_note')});
build_waits('tablestore_data.mine ', 'owned');
my ($frc, $fout, $ferr) = $node->psql('postgres', 'DROP DATABASE owned WITH (FORCE)', extra_params => [ '-U', 'dbo' ]);
is($frc, 0, 'the owner drops the database WITH (FORCE) during a build') or diag($ferr);
eval { $snap->quit };

is(signals_in_log($log_start) =~ s/.*signal 9: Killed.*\n?//gr, '', 'no process was terminated by another signal than the SIGKILLs of the test');
$node->stop;
done_testing();
